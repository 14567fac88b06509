//! Turning the attributed `async fn` into a plain `fn` that blocks on its
//! body (the shape is in the crate docs).

use crate::config::{self, Config, Dialect, Flavor};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{Ident, ItemFn, Signature, Token};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Main,
    Test,
}

/// The attribute being expanded: `main` or `test`, of rt or of the tokio
/// facade.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Attr {
    pub(crate) kind: Kind,
    pub(crate) dialect: Dialect,
}

impl Attr {
    /// The attribute as the user wrote it, for error messages.
    fn name(self) -> &'static str {
        match (self.dialect, self.kind) {
            (Dialect::Rt, Kind::Main) => "#[rt::main]",
            (Dialect::Rt, Kind::Test) => "#[rt::test]",
            (Dialect::Tokio { .. }, Kind::Main) => "#[tokio::main]",
            (Dialect::Tokio { .. }, Kind::Test) => "#[tokio::test]",
        }
    }
}

impl Kind {
    fn default_flavor(self) -> Flavor {
        match self {
            Kind::Main => Flavor::MultiThread,
            Kind::Test => Flavor::CurrentThread,
        }
    }
}

pub(crate) fn expand(args: TokenStream, item: TokenStream, attr: Attr) -> TokenStream {
    let kind = attr.kind;
    let input: ItemFn = match syn::parse2(item.clone()) {
        Ok(input) => input,
        // Not a function (or not valid Rust): give the tokens back so rustc
        // reports what is wrong with them, next to our error.
        Err(error) => {
            let error = syn::Error::new(
                error.span(),
                format!("{} goes on an `async fn`: {error}", attr.name()),
            );
            let mut out = error.to_compile_error();
            out.extend(item);
            return out;
        }
    };

    let signature_error = check_signature(&input, attr);
    if let Some(error) = signature_error {
        // The body cannot be moved into the nested `async fn` without its
        // arguments; emit only the signature so the one error stands alone.
        let mut out = error.to_compile_error();
        out.extend(signature_only(input));
        return out;
    }

    let mut errors = check_async_and_attributes(&input, attr);
    let config = match config::parse(args, kind.default_flavor(), attr.dialect) {
        Ok(config) => config,
        Err(error) => {
            push_error(&mut errors, error);
            Config::fallback(kind.default_flavor(), attr.dialect)
        }
    };
    let mut out = errors.map(|e| e.to_compile_error()).unwrap_or_default();
    out.extend(expand_with(input, &config, attr));
    out
}

fn push_error(errors: &mut Option<syn::Error>, error: syn::Error) {
    match errors {
        Some(existing) => existing.combine(error),
        None => *errors = Some(error),
    }
}

/// Arguments and generics: the nested `async fn` could not receive them.
fn check_signature(input: &ItemFn, attr: Attr) -> Option<syn::Error> {
    let sig = &input.sig;
    let kind = attr.kind;
    let mut errors = None;
    if !sig.inputs.is_empty() {
        let message = match (kind, sig.ident == "main") {
            (Kind::Main, true) => {
                "`main` cannot take arguments: remove them and read the command line with \
                 `std::env::args()`"
                    .to_owned()
            }
            (Kind::Main, false) => format!(
                "a `{}` function cannot take arguments: remove them from `{}`",
                attr.name(),
                sig.ident
            ),
            (Kind::Test, _) => "a test function cannot take arguments: remove them, and build \
                                the inputs inside the test"
                .to_owned(),
        };
        push_error(&mut errors, syn::Error::new_spanned(&sig.inputs, message));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        let message = format!(
            "a `{}` function cannot be generic: remove the type parameters",
            attr.name()
        );
        push_error(&mut errors, syn::Error::new_spanned(&sig.generics, message));
    }
    errors
}

fn check_async_and_attributes(input: &ItemFn, attr: Attr) -> Option<syn::Error> {
    let mut errors = None;
    if input.sig.asyncness.is_none() {
        let message = format!(
            "the `async` keyword is missing: `{}` runs an `async fn`, write `async fn {}()`",
            attr.name(),
            input.sig.ident
        );
        push_error(
            &mut errors,
            syn::Error::new(input.sig.fn_token.span, message),
        );
    }
    if attr.kind == Kind::Test {
        for user_attr in &input.attrs {
            if user_attr.path().is_ident("test") {
                push_error(
                    &mut errors,
                    syn::Error::new_spanned(
                        user_attr,
                        format!(
                            "`{}` already adds `#[test]`: remove this attribute",
                            attr.name()
                        ),
                    ),
                );
            }
        }
    }
    errors
}

/// The function as a plain `fn` whose body never runs (compilation already
/// failed), so rustc reports no second error about a missing or async
/// `main`.
fn signature_only(input: ItemFn) -> TokenStream {
    let ItemFn {
        attrs, vis, sig, ..
    } = input;
    let Signature {
        fn_token,
        ident,
        output,
        ..
    } = sig;
    quote! {
        #(#attrs)*
        #vis #fn_token #ident() #output {
            ::core::unreachable!("this function has a compile error")
        }
    }
}

fn expand_with(input: ItemFn, config: &Config, attr: Attr) -> TokenStream {
    let kind = attr.kind;
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
    } = input;

    // The body keeps the user's own tokens (and spans) in a nested
    // `async fn` with the user's return type.
    let body_fn = Ident::new("__rt_body", Span::call_site());
    let mut inner_sig = sig.clone();
    inner_sig.ident = body_fn.clone();
    inner_sig.asyncness = Some(Token![async](sig.fn_token.span));
    inner_sig.constness = None;

    let mut outer_sig = sig;
    outer_sig.asyncness = None;

    let krate = &config.crate_path;
    let builder = match config.flavor {
        Flavor::MultiThread => quote!(#krate::runtime::Builder::new_multi_thread()),
        Flavor::CurrentThread | Flavor::Local => {
            quote!(#krate::runtime::Builder::new_current_thread())
        }
    };
    // rt's `build_local` takes no options; tokio's takes `LocalOptions`.
    let build = match (config.flavor, attr.dialect) {
        (Flavor::Local, Dialect::Rt) => quote!(build_local()),
        (Flavor::Local, Dialect::Tokio { .. }) => {
            quote!(build_local(#krate::runtime::LocalOptions::default()))
        }
        (Flavor::MultiThread | Flavor::CurrentThread, _) => quote!(build()),
    };
    let worker_threads = config.worker_threads.map(|n| quote!(.worker_threads(#n)));
    let start_paused = config.start_paused.then(|| quote!(.start_paused(true)));
    let name = config.name.as_ref().map(|name| quote!(.name(#name)));
    let test_attr = (kind == Kind::Test).then(|| quote!(#[::core::prelude::v1::test]));

    let mut out = TokenStream::new();
    for attr in &attrs {
        attr.to_tokens(&mut out);
    }
    out.extend(quote! {
        #test_attr
        #vis #outer_sig {
            #inner_sig #block
            #builder
                .enable_all()
                #worker_threads
                #start_paused
                #name
                .#build
                .expect("rt: failed to build the runtime")
                .block_on(#body_fn())
        }
    });
    out
}
