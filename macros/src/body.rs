//! The attributed function's body as the future the runtime blocks on:
//! `async move { <parameters> <output> <the user's statements> }`.
//!
//! The block keeps the user's tokens and spans (its braces included), so
//! errors in the body point at the user's code. Two prefixes give it the
//! semantics of an `async fn`'s body, which a bare `async move` block
//! lacks:
//!
//! 1. Parameters. An `async move` block captures only the places its body
//!    uses (`self.id` rather than `self`, nothing of an unused parameter),
//!    so the rest would be dropped after `block_on` returns, when the
//!    runtime has shut down. An `async fn` moves every parameter into its
//!    future and drops them when the body ends. So each parameter is moved
//!    in whole: `let x = x;` for a plain binding (its `mut` moves from the
//!    signature to this `let`), `let <pattern> = __rt_argN;` for a
//!    destructuring pattern or `_` (the signature then names the argument
//!    `__rt_argN`, hygienic), and a use of `self` as a whole for a
//!    receiver.
//! 2. Output. A never-taken `return` of a value of the declared return type
//!    (`if let Some(v) = None::<Output> { return v; }`) fixes the block's
//!    output type before the body is type-checked, as an `async fn`'s
//!    signature does: `?` converts into the declared error type, `return`
//!    and the tail are checked against it, and a mismatch is reported at
//!    the user's expression. It is left out where the return type cannot
//!    be written in an expression: `!` (unstable outside a return type)
//!    and types containing `impl Trait`; there the output is inferred from
//!    the body, and the function's return type checks it. It is also left
//!    out of an empty body returning `()`, whose output it cannot change.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Block, FnArg, Ident, Pat, PatIdent, ReturnType, Signature, Type};

/// The body's future. Rewrites `sig`'s parameters where the body takes
/// over their patterns: a binding's `mut`, a destructuring pattern (see
/// the module docs).
pub(crate) fn future(sig: &mut Signature, block: &Block) -> TokenStream {
    let mut statements = move_parameters(sig);
    // An empty body's output is `()` whatever is declared (a declared
    // non-unit type is then an error either way); there the `if let` would
    // be the block's tail, which clippy's `semicolon_if_nothing_returned`
    // flags at the user's span.
    if !(block.stmts.is_empty() && returns_unit(&sig.output)) {
        statements.extend(fix_output(sig));
    }
    for statement in &block.stmts {
        statement.to_tokens(&mut statements);
    }
    // The user's statements go straight into the `async` block, under the
    // user's braces: a block nested in it would be linted as unnecessary
    // braces when it holds one expression.
    let mut braces = Group::new(Delimiter::Brace, statements);
    braces.set_span(block.brace_token.span.join());
    quote!(async move #braces)
}

fn move_parameters(sig: &mut Signature) -> TokenStream {
    let mut moves = TokenStream::new();
    for (index, input) in sig.inputs.iter_mut().enumerate() {
        let param = match input {
            FnArg::Receiver(_) => {
                moves.extend(quote!(let _ = &self;));
                continue;
            }
            FnArg::Typed(param) => param,
        };
        let attrs = &param.attrs;
        match &mut *param.pat {
            Pat::Ident(binding) if binding.by_ref.is_none() && binding.subpat.is_none() => {
                let mutability = binding.mutability.take();
                let mut name = binding.ident.clone();
                if name.to_string().starts_with('_') {
                    // Clippy's pedantic underscore-binding lints would flag
                    // `let _x = _x;` at the user's span (a use of `_x`, and
                    // a binding with no effect); they skip macro code. The
                    // call site's hygiene still names the user's `_x`.
                    name.set_span(Span::call_site());
                }
                moves.extend(quote!(#(#attrs)* let #mutability #name = #name;));
            }
            pattern => {
                let argument = format_ident!("__rt_arg{}", index, span = Span::mixed_site());
                let named = Pat::Ident(PatIdent {
                    attrs: Vec::new(),
                    by_ref: None,
                    mutability: None,
                    ident: argument.clone(),
                    subpat: None,
                });
                let pattern = std::mem::replace(pattern, named);
                // `let _ = arg;` would not move `arg`: keep it whole.
                let pattern = match pattern {
                    Pat::Wild(_) => argument.to_token_stream(),
                    pattern => pattern.into_token_stream(),
                };
                moves.extend(quote!(#(#attrs)* let #pattern = #argument;));
            }
        }
    }
    moves
}

/// The `return` carries the span of the declared return type (of the
/// parameter list's `)` when there is none), which is where rustc's "return
/// type inferred to be `T` here" then points.
fn fix_output(sig: &Signature) -> Option<TokenStream> {
    let (declared, span) = match &sig.output {
        ReturnType::Default => (quote!(()), sig.paren_token.span.close()),
        ReturnType::Type(_, ty) if nameable_in_expression(ty) => (ty.to_token_stream(), ty.span()),
        ReturnType::Type(..) => return None,
    };
    let value = Ident::new("__rt_output", Span::mixed_site().located_at(span));
    Some(quote_spanned! {span=>
        if let ::core::option::Option::Some(#value) = ::core::option::Option::<#declared>::None {
            return #value;
        }
    })
}

/// Whether the declared return type is `()`, written or not.
fn returns_unit(output: &ReturnType) -> bool {
    match output {
        ReturnType::Default => true,
        ReturnType::Type(_, ty) => matches!(&**ty, Type::Tuple(tuple) if tuple.elems.is_empty()),
    }
}

/// Whether the return type may appear as a turbofish argument: not `!`,
/// and no `impl Trait` anywhere inside it.
fn nameable_in_expression(ty: &Type) -> bool {
    fn mentions_impl(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            TokenTree::Ident(ident) => ident == "impl",
            TokenTree::Group(group) => mentions_impl(group.stream()),
            TokenTree::Punct(_) | TokenTree::Literal(_) => false,
        })
    }
    !matches!(ty, Type::Never(_)) && !mentions_impl(ty.to_token_stream())
}
