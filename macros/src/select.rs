//! `rt::select!`: parsing the branches and expanding them into one
//! `poll_fn` over pinned futures.
//!
//! The input is `<path to rt>; [biased;] branch, branch, ... [else => handler]`
//! where a branch is `<pattern> = <future> [, if <precondition>] => <handler>`.
//! A `select!` of only an `else` is that handler (as in tokio).
//! `rt`'s `select!` (a `macro_rules!` wrapper) passes its own `$crate` as the
//! path, so the expansion names rt's support items however rt is imported.
//!
//! Expansion, in the order tokio documents for its `select!`:
//!
//! 1. evaluate every precondition; a false one disables its branch;
//! 2. evaluate every future expression (disabled ones too, never polled)
//!    into one tuple (so a temporary an expression borrows lives until the
//!    `select!` is done), and pin them all on the stack in one
//!    `support::Cons` list, which the poll function reaches through one
//!    pointer and splits into a pinned future per branch;
//! 3. poll the enabled futures, starting at a random branch (or the first,
//!    when `biased;`), until one is ready; a ready value is checked against
//!    a copy of its branch's pattern with every binding made by-reference
//!    (so the check moves nothing); a mismatch disables the branch and
//!    polling goes on; when every branch is disabled the result is
//!    "disabled";
//! 4. leave the block holding the futures: every other branch's future is
//!    dropped here, before any handler runs;
//! 5. match the result: the ready branch's pattern binds the value by move
//!    and its handler runs in the caller's own context (so `?`, `return`,
//!    `break` and `continue` in a handler act on the caller's function and
//!    loops); "disabled" runs the `else` handler, or panics without one.
//!
//! Every name the expansion introduces has a mixed-site span, so it cannot
//! clash with the caller's names.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Expr, Pat, Token};

/// At most this many branches (the enabled set is one `u64` mask).
const MAX_BRANCHES: usize = 64;

struct Branch {
    pattern: Pat,
    future: Expr,
    precondition: Option<Expr>,
    handler: Expr,
}

struct Select {
    krate: TokenStream,
    biased: bool,
    branches: Vec<Branch>,
    otherwise: Option<Expr>,
}

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    match parse.parse2(input) {
        Ok(select) => expand_select(select),
        Err(error) => error.to_compile_error(),
    }
}

/// The tokens before the first top-level `;`: the wrapper's `$crate`.
pub(crate) fn parse_crate_path(input: ParseStream<'_>) -> syn::Result<TokenStream> {
    let mut krate = TokenStream::new();
    while !input.peek(Token![;]) {
        krate.extend([input.parse::<TokenTree>()?]);
    }
    input.parse::<Token![;]>()?;
    Ok(krate)
}

/// An optional `biased;` (an identifier followed by `;`, so a variable
/// named `biased` is still an expression); `true` if it was there.
pub(crate) fn parse_biased(input: ParseStream<'_>) -> syn::Result<bool> {
    let biased = input.peek2(Token![;])
        && input
            .fork()
            .parse::<syn::Ident>()
            .is_ok_and(|ident| ident == "biased");
    if biased {
        input.parse::<syn::Ident>()?;
        input.parse::<Token![;]>()?;
    }
    Ok(biased)
}

fn parse(input: ParseStream<'_>) -> syn::Result<Select> {
    let krate = parse_crate_path(input)?;
    let biased = parse_biased(input)?;
    let mut branches = Vec::new();
    let mut otherwise = None;
    while !input.is_empty() {
        if input.peek(Token![else]) {
            let keyword = input.parse::<Token![else]>()?;
            if otherwise.is_some() {
                return Err(syn::Error::new(
                    keyword.span,
                    "`select!` takes at most one `else` branch",
                ));
            }
            input.parse::<Token![=>]>()?;
            otherwise = Some(parse_handler(input)?);
            continue;
        }
        let pattern = Pat::parse_multi_with_leading_vert(input)?;
        input.parse::<Token![=]>()?;
        let future: Expr = input.parse()?;
        let precondition = if input.peek(Token![,]) && input.peek2(Token![if]) {
            input.parse::<Token![,]>()?;
            input.parse::<Token![if]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        input.parse::<Token![=>]>().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected `=>` (a branch is `<pattern> = <future> [, if <condition>] => <handler>`)",
            )
        })?;
        let handler = parse_handler(input)?;
        branches.push(Branch {
            pattern,
            future,
            precondition,
            handler,
        });
    }
    if branches.is_empty() && otherwise.is_none() {
        return Err(syn::Error::new(
            Span::call_site(),
            "`select!` needs at least one `<pattern> = <future> => <handler>` branch \
             or an `else => <handler>` branch",
        ));
    }
    if branches.len() > MAX_BRANCHES {
        return Err(syn::Error::new(
            branches[MAX_BRANCHES].pattern.span(),
            format!(
                "`select!` takes at most {MAX_BRANCHES} branches: group the others in a \
                 nested `select!` awaited by one branch, or poll them as one stream \
                 (`futures::stream::select_all`, `FuturesUnordered`)"
            ),
        ));
    }
    Ok(Select {
        krate,
        biased,
        branches,
        otherwise,
    })
}

/// A handler ends like a `match` arm's body: a block-like expression needs
/// no comma, anything else needs one unless it is the last.
fn parse_handler(input: ParseStream<'_>) -> syn::Result<Expr> {
    let handler = Expr::parse_with_earlier_boundary_rule(input)?;
    let block_like = matches!(
        handler,
        Expr::Block(_)
            | Expr::If(_)
            | Expr::Match(_)
            | Expr::Loop(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
            | Expr::Unsafe(_)
            | Expr::TryBlock(_)
            | Expr::Const(_)
    );
    if input.peek(Token![,]) {
        input.parse::<Token![,]>()?;
    } else if !block_like && !input.is_empty() {
        return Err(input.error("expected `,` after this `select!` handler"));
    }
    Ok(handler)
}

fn expand_select(select: Select) -> TokenStream {
    let Select {
        krate,
        biased,
        branches,
        otherwise,
    } = select;
    let site = Span::mixed_site();
    let count = branches.len();
    if count == 0 {
        // Only an `else`: nothing to wait for, every branch is disabled.
        let handler = otherwise.expect("`parse` refuses a `select!` without branches or `else`");
        return quote!({ #handler });
    }
    let output = quote_spanned!(site=> __SelectOutput);
    let disabled = quote_spanned!(site=> __disabled);
    let cx = quote_spanned!(site=> __cx);
    let variants: Vec<_> = (0..count)
        .map(|i| format_ident!("Branch{}", i, span = site))
        .collect();
    let futures: Vec<_> = (0..count)
        .map(|i| format_ident!("__future{}", i, span = site))
        .collect();
    let value = quote_spanned!(site=> __value);

    let preconditions = branches.iter().enumerate().map(|(i, branch)| {
        branch
            .precondition
            .as_ref()
            .map(|condition| quote_spanned!(site=> if !(#condition) { #disabled |= 1u64 << #i; }))
    });
    // The future expressions are evaluated into one tuple first: there a
    // temporary they borrow (`&mut std::future::ready(())`) lives as long
    // as the tuple, that is until the `select!` is done, as in tokio.
    let init_exprs = branches.iter().map(|branch| &branch.future);
    let into_futures: Vec<_> = (0..count)
        .map(|i| {
            let field = syn::Index::from(i);
            quote_spanned!(site=> ::core::future::IntoFuture::into_future(__init.#field))
        })
        .collect();
    let (list, project) = pinned_list(&krate, &into_futures, &futures);
    let poll_arms = branches
        .iter()
        .enumerate()
        .map(|(i, branch)| {
            let name = &futures[i];
            let variant = &variants[i];
            let check = by_reference(branch.pattern.clone());
            quote_spanned!(site=>
                // A future of an uninhabited output type makes the rest
                // of its arm unreachable.
                #[allow(unreachable_code)]
                #i => {
                    if #disabled & (1u64 << #i) != 0 {
                        continue;
                    }
                    // A `match` with a diverging arm, as in tokio's
                    // expansion: an output type nothing else names (a
                    // future that only panics) then falls back as a
                    // diverging type does, instead of being ambiguous.
                    let #value = match ::core::future::Future::poll(#name.as_mut(), #cx) {
                        ::core::task::Poll::Ready(#value) => #value,
                        ::core::task::Poll::Pending => {
                            __any_pending = true;
                            continue;
                        }
                    };
                    #disabled |= 1u64 << #i;
                    #[allow(unused_variables, unreachable_patterns)]
                    match &#value {
                        #check => {}
                        _ => continue,
                    }
                    return ::core::task::Poll::Ready(#output::#variant(#value));
                }
            )
        })
        .collect::<Vec<_>>();
    let start = if biased {
        quote_spanned!(site=> 0usize)
    } else {
        quote_spanned!(site=> #krate::macros::support::random_start(#count))
    };
    let handler_arms = branches.iter().zip(&variants).map(|(branch, variant)| {
        let pattern = &branch.pattern;
        let handler = &branch.handler;
        quote!(#output::#variant(#pattern) => #handler,)
    });
    let otherwise = match otherwise {
        Some(handler) => quote!(#handler),
        None => quote_spanned!(site=>
            ::core::panic!("`select!`: every branch is disabled and there is no `else` branch")
        ),
    };
    let poll_each = poll_in_turn(&krate, start, &poll_arms);
    let generics: Vec<_> = (0..count)
        .map(|i| format_ident!("T{}", i, span = site))
        .collect();

    // The poll function owns (moves in) the pin of the futures and the
    // mask of disabled branches: the `select!` costs its futures plus two
    // words, as tokio's does.
    quote_spanned!(site=> {
        enum #output<#(#generics,)*> {
            #(#variants(#generics),)*
            Disabled,
        }
        let mut #disabled: u64 = 0;
        #(#preconditions)*
        // `mut` for a handler pattern that binds by `ref mut`.
        #[allow(unused_mut)]
        let mut __select_output = {
            let __init = (#(#init_exprs,)*);
            let mut __futures = ::core::pin::pin!(#list);
            ::core::future::poll_fn(move |#cx: &mut ::core::task::Context<'_>| {
                #project
                let mut __any_pending = false;
                #poll_each
                if __any_pending {
                    ::core::task::Poll::Pending
                } else {
                    ::core::task::Poll::Ready(#output::Disabled)
                }
            })
            .await
        };
        match __select_output {
            #(#handler_arms)*
            #output::Disabled => #otherwise,
            #[allow(unreachable_patterns)]
            _ => ::core::unreachable!("`select!` returned a branch whose pattern did not match"),
        }
    })
}

/// The futures `items` (expressions) as one `support::Cons` list to pin,
/// and the statements that, in the poll function, split the pinned list
/// `__futures` into one pinned future per name of `names`.
pub(crate) fn pinned_list(
    krate: &TokenStream,
    items: &[TokenStream],
    names: &[proc_macro2::Ident],
) -> (TokenStream, TokenStream) {
    let site = Span::mixed_site();
    let support = quote_spanned!(site=> #krate::macros::support);
    let list = items.iter().rev().fold(
        quote_spanned!(site=> ()),
        |tail, item| quote_spanned!(site=> #support::Cons::new(#item, #tail)),
    );
    let last = names.len() - 1;
    let splits = names.iter().enumerate().map(|(i, name)| {
        let rest = if i == last {
            quote_spanned!(site=> _)
        } else {
            quote_spanned!(site=> __rest)
        };
        quote_spanned!(site=> let (mut #name, #rest) = #support::Cons::split(__rest);)
    });
    let project = quote_spanned!(site=>
        let __rest = __futures.as_mut();
        #(#splits)*
    );
    (list, project)
}

/// The body shared by `select!` and `join!` polls: yield if the task's
/// budget is spent, then poll the branches (`arms`, one `match` arm per
/// index) once each, starting at index `start` and wrapping around.
/// Names `__cx` for the poll's context.
pub(crate) fn poll_in_turn(
    krate: &TokenStream,
    start: TokenStream,
    arms: &[TokenStream],
) -> TokenStream {
    let site = Span::mixed_site();
    let count = arms.len();
    quote_spanned!(site=>
        if #krate::macros::support::poll_budget_available(__cx).is_pending() {
            return ::core::task::Poll::Pending;
        }
        let __start: usize = #start;
        for __offset in 0..#count {
            let mut __branch = __start + __offset;
            if __branch >= #count {
                __branch -= #count;
            }
            match __branch {
                #(#arms)*
                _ => ::core::unreachable!("only {} branches", #count),
            }
        }
    )
}

/// The pattern with every binding by reference and every `&` pattern
/// dropped, for testing a value through a shared reference without moving
/// it: under the default binding mode a `mut`, `ref` or `&` written
/// inside a pattern matched through a reference is an error (edition 2024),
/// and the bindings are never used anyway.
fn by_reference(pattern: Pat) -> Pat {
    match pattern {
        Pat::Ident(mut ident) => {
            ident.by_ref = None;
            ident.mutability = None;
            ident.subpat = ident
                .subpat
                .map(|(at, sub)| (at, Box::new(by_reference(*sub))));
            Pat::Ident(ident)
        }
        Pat::Reference(reference) => by_reference(*reference.pat),
        Pat::Or(mut or) => {
            or.cases = or.cases.into_iter().map(by_reference).collect();
            Pat::Or(or)
        }
        Pat::Paren(mut paren) => {
            paren.pat = Box::new(by_reference(*paren.pat));
            Pat::Paren(paren)
        }
        Pat::Slice(mut slice) => {
            slice.elems = slice.elems.into_iter().map(by_reference).collect();
            Pat::Slice(slice)
        }
        Pat::Struct(mut strukt) => {
            for field in &mut strukt.fields {
                let pat = std::mem::replace(&mut *field.pat, Pat::Verbatim(TokenStream::new()));
                *field.pat = by_reference(pat);
            }
            Pat::Struct(strukt)
        }
        Pat::Tuple(mut tuple) => {
            tuple.elems = tuple.elems.into_iter().map(by_reference).collect();
            Pat::Tuple(tuple)
        }
        Pat::TupleStruct(mut tuple) => {
            tuple.elems = tuple.elems.into_iter().map(by_reference).collect();
            Pat::TupleStruct(tuple)
        }
        other => other,
    }
}
