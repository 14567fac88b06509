//! `rt::join!` and `rt::try_join!`: every future pinned on the stack in a
//! `MaybeDone`, all polled from one `poll_fn`.
//!
//! The input is `<path to rt>; future, future, ...` (the `macro_rules!`
//! wrappers pass their `$crate`). Each poll starts one branch later than
//! the previous poll did, so no future is always polled first (a future
//! that wakes itself at once cannot keep the others from their turn), and
//! a poll with the task's cooperative budget spent yields instead.
//! `try_join!` returns the first `Err` as soon as it is seen; leaving the
//! block then drops every unfinished future.

use crate::select::{parse_crate_path, poll_in_turn};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `join!`: every output, as a tuple.
    Join,
    /// `try_join!`: `Ok` of every `Ok` value as a tuple, or the first `Err`.
    TryJoin,
}

pub(crate) fn expand(input: TokenStream, kind: Kind) -> TokenStream {
    let parse = |input: ParseStream<'_>| {
        let krate = parse_crate_path(input)?;
        let futures = Punctuated::<Expr, Token![,]>::parse_terminated(input)?;
        Ok((krate, futures))
    };
    match parse.parse2(input) {
        Ok((krate, futures)) => expand_join(&krate, futures.into_iter().collect(), kind),
        Err(error) => error.to_compile_error(),
    }
}

fn expand_join(krate: &TokenStream, futures: Vec<Expr>, kind: Kind) -> TokenStream {
    let site = Span::mixed_site();
    let count = futures.len();
    if count == 0 {
        return match kind {
            Kind::Join => quote_spanned!(site=> ()),
            Kind::TryJoin => quote_spanned!(site=> ::core::result::Result::Ok(())),
        };
    }
    let names: Vec<_> = (0..count)
        .map(|i| format_ident!("__future{}", i, span = site))
        .collect();
    let cx = quote_spanned!(site=> __cx);
    let support = quote_spanned!(site=> #krate::macros::support);

    let pinned = futures.iter().zip(&names).map(|(future, name)| {
        quote_spanned!(site=>
            let mut #name = ::core::pin::pin!(#support::MaybeDone::Future(
                ::core::future::IntoFuture::into_future(#future)
            ));
        )
    });
    let poll_arms = names.iter().enumerate().map(|(i, name)| {
        let on_ready = match kind {
            Kind::Join => quote_spanned!(site=> {}),
            Kind::TryJoin => quote_spanned!(site=> {
                if #support::is_err(#name.as_mut().output_mut()) {
                    let __error = #support::take_err(#name.as_mut().take_output());
                    return ::core::task::Poll::Ready(::core::result::Result::Err(__error));
                }
            }),
        };
        quote_spanned!(site=>
            #i => {
                if ::core::future::Future::poll(#name.as_mut(), #cx).is_pending() {
                    __all_done = false;
                } else #on_ready
            }
        )
    });
    let poll_arms: Vec<_> = poll_arms.collect();
    let start = quote_spanned!(site=> {
        let __this = __first;
        __first = if __first + 1 == #count { 0 } else { __first + 1 };
        __this
    });
    let poll_each = poll_in_turn(krate, start, &poll_arms);
    let outputs = names.iter().map(|name| match kind {
        Kind::Join => quote_spanned!(site=> #support::take_output(#name.as_mut().take_output())),
        Kind::TryJoin => quote_spanned!(site=> #support::take_ok(#name.as_mut().take_output())),
    });
    let done = match kind {
        Kind::Join => quote_spanned!(site=> (#(#outputs,)*)),
        Kind::TryJoin => quote_spanned!(site=> ::core::result::Result::Ok((#(#outputs,)*))),
    };

    quote_spanned!(site=> {
        #(#pinned)*
        let mut __first: usize = 0;
        ::core::future::poll_fn(|#cx: &mut ::core::task::Context<'_>| {
            let mut __all_done = true;
            #poll_each
            if !__all_done {
                return ::core::task::Poll::Pending;
            }
            ::core::task::Poll::Ready(#done)
        })
        .await
    })
}
