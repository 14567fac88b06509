//! `#[rt::main]` and `#[rt::test]`: run an `async fn` on an `rt` runtime.
//!
//! Use them through the `rt` crate (`rt::main`, `rt::test`); this crate is
//! an implementation detail and its items are documented there.
//!
//! Expansion: the attributed function keeps its name, visibility,
//! attributes and return type, loses `async`, and becomes
//!
//! ```text
//! fn name() -> Output {
//!     async fn name() -> Output { <the original body> }
//!     <runtime builder>.build().expect(..).block_on(name())
//! }
//! ```
//!
//! The body moves into a nested `async fn` with the user's own signature
//! tokens, so `?` and `return` infer their types from the declared return
//! type and every error in the body points at the user's code. The nested
//! function cannot take arguments or generics, which is why the attributes
//! reject them.
//!
//! Argument errors are reported with the span of the offending token. The
//! function is still expanded (with the default settings) next to the
//! error, so one mistake does not cascade into "`main` function not found"
//! or "`main` cannot be async".

mod config;
mod expand;

use proc_macro::TokenStream;

/// Expanded by the `rt-macros` crate; use it through `rt`.
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(args.into(), item.into(), expand::Kind::Main).into()
}

/// Expanded by the `rt-macros` crate; use it through `rt`.
#[proc_macro_attribute]
pub fn test(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(args.into(), item.into(), expand::Kind::Test).into()
}
