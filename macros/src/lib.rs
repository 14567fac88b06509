//! `#[rt::main]` and `#[rt::test]`: run an `async fn` on an `rt` runtime;
//! and the expansions behind `rt::select!`, `rt::join!` and `rt::try_join!`
//! (`select.rs`, `join.rs`).
//!
//! Use them through the `rt` crate (`rt::main`, `rt::test`, `rt::select!`,
//! ...); this crate is an implementation detail and its items are
//! documented there.
//!
//! Expansion: the attributed function keeps its name, visibility,
//! attributes, parameters, generics and return type, loses `async`, and
//! becomes
//!
//! ```text
//! fn name(params) -> Output {
//!     let body = async move {
//!         <each parameter moved in whole>
//!         <a never-taken `return` of an `Output` value>
//!         <the original body>
//!     };
//!     <runtime builder>.build().expect(..).block_on(body)
//! }
//! ```
//!
//! The body keeps the user's tokens, so every error in it points at the
//! user's code, and it sees the parameters, `self` included: the attribute
//! works on methods and on functions with arguments or generics (a test or
//! a free `main` still may not take any: the harness and the program entry
//! call them with none). The two prefixes (`body.rs`) give the block an
//! `async fn`'s semantics: the parameters are dropped when the body ends,
//! inside the runtime, and `?` and `return` infer from the declared return
//! type.
//!
//! The `tokio_*` entry points are the same attributes for rt's tokio facade
//! (`compat/tokio`): they name `::tokio` by default, call tokio's
//! `build_local(LocalOptions)` for `flavor = "local"`, and reject tokio's
//! unstable `unhandled_panic` with a message saying why.
//!
//! Argument errors are reported with the span of the offending token. The
//! function is still expanded (with the default settings) next to the
//! error, so one mistake does not cascade into "`main` function not found"
//! or "`main` cannot be async".

mod body;
mod config;
mod expand;
mod join;
mod select;

use config::Dialect;
use expand::{Attr, Kind};
use proc_macro::TokenStream;

fn attribute(args: TokenStream, item: TokenStream, kind: Kind, dialect: Dialect) -> TokenStream {
    expand::expand(args.into(), item.into(), Attr { kind, dialect }).into()
}

/// Expanded by the `rt-macros` crate; use it through `rt`.
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    attribute(args, item, Kind::Main, Dialect::Rt)
}

/// Expanded by the `rt-macros` crate; use it through `rt`.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    attribute(args, item, Kind::Test, Dialect::Rt)
}

/// `#[tokio::main]` of rt's tokio facade (`compat/tokio`, which re-exports
/// it as `main` when its `rt-multi-thread` feature is on): names
/// `::tokio` and builds a local runtime with tokio's
/// `build_local(LocalOptions)`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_main(args: TokenStream, item: TokenStream) -> TokenStream {
    attribute(
        args,
        item,
        Kind::Main,
        Dialect::Tokio { multi_thread: true },
    )
}

/// `#[tokio::test]` of rt's tokio facade, with `rt-multi-thread` on.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_test(args: TokenStream, item: TokenStream) -> TokenStream {
    attribute(
        args,
        item,
        Kind::Test,
        Dialect::Tokio { multi_thread: true },
    )
}

/// `#[tokio::main]` of rt's tokio facade without its `rt-multi-thread`
/// feature: the multi-thread flavor (`main`'s default) is refused, as
/// tokio refuses it.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_main_rt(args: TokenStream, item: TokenStream) -> TokenStream {
    attribute(
        args,
        item,
        Kind::Main,
        Dialect::Tokio {
            multi_thread: false,
        },
    )
}

/// `#[tokio::test]` of rt's tokio facade without `rt-multi-thread`.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_test_rt(args: TokenStream, item: TokenStream) -> TokenStream {
    attribute(
        args,
        item,
        Kind::Test,
        Dialect::Tokio {
            multi_thread: false,
        },
    )
}

/// Expanded by the `rt-macros` crate; use it through `rt::select!`.
#[doc(hidden)]
#[proc_macro]
pub fn select(input: TokenStream) -> TokenStream {
    select::expand(input.into()).into()
}

/// Expanded by the `rt-macros` crate; use it through `rt::join!`.
#[doc(hidden)]
#[proc_macro]
pub fn join(input: TokenStream) -> TokenStream {
    join::expand(input.into(), join::Kind::Join).into()
}

/// Expanded by the `rt-macros` crate; use it through `rt::try_join!`.
#[doc(hidden)]
#[proc_macro]
pub fn try_join(input: TokenStream) -> TokenStream {
    join::expand(input.into(), join::Kind::TryJoin).into()
}

/// `#[tokio::main]` of rt's tokio facade without its `rt` feature: a
/// compile error naming the feature, as tokio gives.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_main_fail(_args: TokenStream, item: TokenStream) -> TokenStream {
    needs_rt_feature("#[tokio::main]", item)
}

/// `#[tokio::test]` of rt's tokio facade without its `rt` feature.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn tokio_test_fail(_args: TokenStream, item: TokenStream) -> TokenStream {
    needs_rt_feature("#[tokio::test]", item)
}

/// The error, followed by the function without `async` so that rustc
/// reports nothing else about it (no "`main` cannot be async").
fn needs_rt_feature(attribute: &str, item: TokenStream) -> TokenStream {
    let message = format!(
        "{attribute} needs tokio's `rt` feature (rt's tokio facade): add `features = [\"rt\"]` \
         (or `\"rt-multi-thread\"`) to the `tokio` dependency"
    );
    let mut out: proc_macro2::TokenStream =
        syn::Error::new(proc_macro2::Span::call_site(), message).to_compile_error();
    match syn::parse::<syn::ItemFn>(item.clone()) {
        Ok(mut function) => {
            function.sig.asyncness = None;
            function.block = Box::new(syn::parse_quote!({
                ::core::unreachable!("this function has a compile error")
            }));
            out.extend(quote::ToTokens::into_token_stream(function));
        }
        Err(_) => out.extend(proc_macro2::TokenStream::from(item)),
    }
    out.into()
}
