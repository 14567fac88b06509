//! `rt::join!` and `rt::try_join!`: every future in a `MaybeDone`, all of
//! them in one pinned list, polled from one `poll_fn`.
//!
//! The input is `<path to rt>; [biased;] future, future, ...` (the
//! `macro_rules!` wrappers pass their `$crate`). Each poll starts one
//! branch later than the previous poll did, so no future is always polled
//! first (a future that wakes itself at once cannot keep the others from
//! their turn); with `biased;` every poll goes in the order written. A
//! poll with the task's cooperative budget spent yields instead.
//! `try_join!` returns the first `Err` as soon as it is seen; leaving the
//! block then drops every unfinished future.
//!
//! The futures sit in one `support::Cons` list pinned on the caller's
//! stack, and the poll function owns the pin and the rotation counter:
//! the future a `join!` makes holds its futures plus two words (one when
//! biased), as tokio's does.

use crate::select::{parse_biased, parse_crate_path, pinned_list, poll_in_turn};
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
        let biased = parse_biased(input)?;
        let futures = Punctuated::<Expr, Token![,]>::parse_terminated(input)?;
        Ok((krate, biased, futures))
    };
    match parse.parse2(input) {
        Ok((krate, biased, futures)) => {
            expand_join(&krate, biased, futures.into_iter().collect(), kind)
        }
        Err(error) => error.to_compile_error(),
    }
}

fn expand_join(krate: &TokenStream, biased: bool, futures: Vec<Expr>, kind: Kind) -> TokenStream {
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

    let wrapped: Vec<_> = futures
        .iter()
        .map(|future| {
            quote_spanned!(site=>
                #support::MaybeDone::Future(::core::future::IntoFuture::into_future(#future))
            )
        })
        .collect();
    let (list, project) = pinned_list(krate, &wrapped, &names);
    let poll_arms = names.iter().enumerate().map(|(i, name)| {
        let on_ready = match kind {
            Kind::Join => quote_spanned!(site=> {}),
            Kind::TryJoin => quote_spanned!(site=> {
                if #support::is_err(#name.as_mut().output_mut()) {
                    return ::core::task::Poll::Ready(#support::take_err(#name.as_mut().take_output()));
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
    // The rotation counter lives in the poll function (moved in), so the
    // join costs one `u32` for it; `biased;` needs none.
    let (counter, start) = if biased {
        (TokenStream::new(), quote_spanned!(site=> 0usize))
    } else {
        (
            quote_spanned!(site=> let mut __next: u32 = 0;),
            quote_spanned!(site=> {
                let __this = __next;
                __next = if __next as usize + 1 == #count { 0 } else { __next + 1 };
                __this as usize
            }),
        )
    };
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
        let mut __futures = ::core::pin::pin!(#list);
        #counter
        ::core::future::poll_fn(move |#cx: &mut ::core::task::Context<'_>| {
            #project
            let mut __all_done = true;
            #poll_each
            if !__all_done {
                return ::core::task::Poll::Pending;
            }
            // An uninhabited output type makes the tuple unreachable.
            #[allow(unreachable_code)]
            {
                ::core::task::Poll::Ready(#done)
            }
        })
        .await
    })
}
