//! Turning the attributed `async fn` into a plain `fn` that blocks on its
//! body (the shape is in the crate docs).

use crate::body;
use crate::config::{self, Config, Dialect, Flavor};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{AttrStyle, Attribute, Ident, ItemFn, Path, Signature};

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
        // The harness or the program entry could not call it: emit only the
        // signature, without them, so the one error stands alone.
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

/// Arguments and generics on an entry point: a test, or a free `main`. The
/// body could run with them (it is an `async move` block inside the
/// function), but the test harness and the program entry call these
/// functions with no arguments, and rustc's own errors for that do not
/// name the fix. Any other `#[rt::main]` function (a method taking `self`
/// included) keeps its parameters and generics.
fn check_signature(input: &ItemFn, attr: Attr) -> Option<syn::Error> {
    let sig = &input.sig;
    let kind = attr.kind;
    let entry_point = match kind {
        Kind::Test => true,
        Kind::Main => sig.ident == "main" && sig.receiver().is_none(),
    };
    if !entry_point {
        return None;
    }
    let mut errors = None;
    if !sig.inputs.is_empty() {
        let message = match kind {
            Kind::Main => {
                "`main` cannot take arguments: remove them and read the command line with \
                 `std::env::args()`"
            }
            Kind::Test => {
                "a test function cannot take arguments: remove them, and build the inputs \
                 inside the test"
            }
        };
        push_error(&mut errors, syn::Error::new_spanned(&sig.inputs, message));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        let message = match kind {
            Kind::Main => "`main` cannot be generic: remove the type parameters",
            Kind::Test => {
                "a test function cannot be generic: remove the type parameters, and name \
                 the types inside the test"
            }
        };
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
            if is_test_attribute(user_attr.path()) {
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

/// `test`, or the prelude's test attribute by its full path
/// (`::core::prelude::v1::test`, `std::prelude::rust_2024::test`).
fn is_test_attribute(path: &Path) -> bool {
    if path.leading_colon.is_none() && path.is_ident("test") {
        return true;
    }
    let segments: Vec<_> = path.segments.iter().collect();
    match segments.as_slice() {
        [root, prelude, _edition, test] => {
            segments.iter().all(|segment| segment.arguments.is_none())
                && (root.ident == "core" || root.ident == "std")
                && prelude.ident == "prelude"
                && test.ident == "test"
        }
        _ => false,
    }
}

/// The function as a plain `fn` whose body never runs (compilation already
/// failed), so rustc reports no second error about a missing or async
/// `main`, or about a test taking arguments.
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
    let attrs = attrs.into_iter().map(outer);
    quote! {
        #(#attrs)*
        #vis #fn_token #ident() #output {
            ::core::unreachable!("this function has a compile error")
        }
    }
}

/// An inner attribute of the body (`#![allow(..)]`) as an outer attribute
/// of the function: the body becomes an `async` block, which takes none.
fn outer(mut attr: Attribute) -> Attribute {
    attr.style = AttrStyle::Outer;
    attr
}

fn expand_with(input: ItemFn, config: &Config, attr: Attr) -> TokenStream {
    let kind = attr.kind;
    let ItemFn {
        attrs,
        vis,
        mut sig,
        block,
    } = input;
    sig.asyncness = None;
    let body = body::future(&mut sig, &block);

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
    let attrs = attrs.into_iter().map(outer);
    let future = Ident::new("__rt_body", Span::mixed_site());

    quote! {
        #(#attrs)*
        #test_attr
        #vis #sig {
            let #future = #body;
            #builder
                .enable_all()
                #worker_threads
                #start_paused
                #name
                .#build
                .expect("rt: failed to build the runtime")
                .block_on(#future)
        }
    }
}
