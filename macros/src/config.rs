//! The attribute's arguments: parsing, then checking that they fit together.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{LitBool, LitInt, LitStr, Path};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    MultiThread,
    CurrentThread,
    /// A current-thread runtime built with `build_local`: `!Send` tasks
    /// may be spawned with `spawn_local` from the body.
    Local,
}

/// Which crate's attribute this is: rt's own, or the `tokio` facade's
/// (`compat/tokio`), whose expansion names `::tokio` and calls tokio's
/// `build_local(LocalOptions)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    Rt,
    Tokio {
        /// The facade's `rt-multi-thread` feature is on (tokio's
        /// `#[tokio::main]` refuses the multi-thread flavor without it).
        multi_thread: bool,
    },
}

impl Dialect {
    fn default_crate(self) -> Path {
        match self {
            Dialect::Rt => syn::parse_quote!(::rt),
            Dialect::Tokio { .. } => syn::parse_quote!(::tokio),
        }
    }

    fn crate_name(self) -> &'static str {
        match self {
            Dialect::Rt => "rt",
            Dialect::Tokio { .. } => "tokio",
        }
    }
}

/// The checked settings the expansion builds the runtime from.
pub(crate) struct Config {
    pub(crate) flavor: Flavor,
    pub(crate) worker_threads: Option<usize>,
    pub(crate) start_paused: bool,
    /// The runtime's name (`Builder::name`), if given.
    pub(crate) name: Option<LitStr>,
    /// How the generated code names the `rt` (or `tokio`) crate.
    pub(crate) crate_path: Path,
}

impl Config {
    /// The settings used when the arguments are wrong, so the function is
    /// still expanded next to the error.
    pub(crate) fn fallback(default_flavor: Flavor, dialect: Dialect) -> Config {
        // Without the facade's `rt-multi-thread`, `new_multi_thread` does
        // not exist: a fallback naming it would add a second error.
        let flavor = match dialect {
            Dialect::Tokio {
                multi_thread: false,
            } => Flavor::CurrentThread,
            Dialect::Tokio { multi_thread: true } | Dialect::Rt => default_flavor,
        };
        Config {
            flavor,
            worker_threads: None,
            start_paused: false,
            name: None,
            crate_path: dialect.default_crate(),
        }
    }
}

/// The arguments as written, each with the span of its name.
struct Args {
    dialect: Dialect,
    flavor: Option<(Flavor, Span)>,
    worker_threads: Option<(usize, Span)>,
    start_paused: Option<(bool, Span)>,
    name: Option<LitStr>,
    crate_path: Option<Path>,
}

/// Parses and checks `flavor = .., worker_threads = .., start_paused = ..,
/// name = "..", crate = ".."`.
pub(crate) fn parse(
    args: TokenStream,
    default_flavor: Flavor,
    dialect: Dialect,
) -> syn::Result<Config> {
    let mut parsed = Args {
        dialect,
        flavor: None,
        worker_threads: None,
        start_paused: None,
        name: None,
        crate_path: None,
    };
    let parser = syn::meta::parser(|meta| parsed.parse_one(meta));
    parser.parse2(args)?;
    parsed.check(default_flavor)
}

const FLAVORS: &str =
    "`flavor = \"multi_thread\"`, `flavor = \"current_thread\"` or `flavor = \"local\"`";

impl Args {
    fn parse_one(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        let name_span = meta.path.span();
        if meta.path.is_ident("flavor") {
            reject_duplicate(&meta, self.flavor.is_some(), "flavor")?;
            let lit: LitStr = value(&meta, FLAVORS)?;
            let flavor = match lit.value().as_str() {
                "multi_thread" => Flavor::MultiThread,
                "current_thread" => Flavor::CurrentThread,
                "local" => Flavor::Local,
                other => {
                    return Err(syn::Error::new(
                        lit.span(),
                        format!("unknown runtime flavor `{other}`: use {FLAVORS}"),
                    ));
                }
            };
            self.flavor = Some((flavor, name_span));
        } else if meta.path.is_ident("worker_threads") {
            reject_duplicate(&meta, self.worker_threads.is_some(), "worker_threads")?;
            let lit: LitInt = value(&meta, "an integer: `worker_threads = 4`")?;
            let count: usize = lit.base10_parse()?;
            if count == 0 {
                return Err(syn::Error::new(
                    lit.span(),
                    "`worker_threads` must be at least 1: use `worker_threads = 1` or more, \
                     or remove it to use one worker per CPU",
                ));
            }
            self.worker_threads = Some((count, name_span));
        } else if meta.path.is_ident("start_paused") {
            reject_duplicate(&meta, self.start_paused.is_some(), "start_paused")?;
            let lit: LitBool = value(&meta, "`start_paused = true` or `start_paused = false`")?;
            self.start_paused = Some((lit.value, name_span));
        } else if meta.path.is_ident("name") {
            reject_duplicate(&meta, self.name.is_some(), "name")?;
            let lit: LitStr = value(&meta, "a string: `name = \"my-runtime\"`")?;
            if lit.value().trim().is_empty() {
                return Err(syn::Error::new(
                    lit.span(),
                    "`name` must not be empty: give the runtime a name, or remove `name`",
                ));
            }
            self.name = Some(lit);
        } else if meta.path.is_ident("crate") {
            reject_duplicate(&meta, self.crate_path.is_some(), "crate")?;
            let name = self.dialect.crate_name();
            let lit: LitStr = value(
                &meta,
                &format!("a path in a string: `crate = \"my_{name}\"`"),
            )?;
            let path = lit.parse_with(Path::parse_mod_style).map_err(|_| {
                syn::Error::new(
                    lit.span(),
                    format!(
                        "`crate` must be a path to the `{name}` crate, such as \
                         `crate = \"my_{name}\"` or `crate = \"::{name}\"`"
                    ),
                )
            })?;
            self.crate_path = Some(path);
        } else if meta.path.is_ident("unhandled_panic")
            && matches!(self.dialect, Dialect::Tokio { .. })
        {
            return Err(meta.error(
                "`unhandled_panic` is unstable in tokio (it needs `--cfg tokio_unstable`) and \
                 rt's tokio facade does not offer it: remove it; a panicking task's \
                 `JoinHandle` yields `JoinError::Panic` on rt",
            ));
        } else {
            let name = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_else(|| "this".to_owned());
            let krate = self.dialect.crate_name();
            return Err(meta.error(format!(
                "unknown argument `{name}`: the arguments are `flavor = \"multi_thread\" | \
                 \"current_thread\" | \"local\"`, `worker_threads = N`, \
                 `start_paused = true | false`, `name = \"..\"` and \
                 `crate = \"path::to::{krate}\"`"
            )));
        }
        Ok(())
    }

    fn check(self, default_flavor: Flavor) -> syn::Result<Config> {
        let flavor = self.flavor.map_or(default_flavor, |(flavor, _)| flavor);
        if let (Flavor::CurrentThread | Flavor::Local, Some((_, span))) =
            (flavor, self.worker_threads)
        {
            return Err(syn::Error::new(
                span,
                "`worker_threads` only applies to the multi-thread runtime: remove it, or use \
                 `flavor = \"multi_thread\"`",
            ));
        }
        if let (Flavor::MultiThread, Some((_, span))) = (flavor, self.start_paused) {
            return Err(syn::Error::new(
                span,
                "`start_paused` needs the current-thread runtime: add \
                 `flavor = \"current_thread\"`, or remove `start_paused`",
            ));
        }
        if let (
            Flavor::MultiThread,
            Dialect::Tokio {
                multi_thread: false,
            },
        ) = (flavor, self.dialect)
        {
            let span = self.flavor.map_or_else(Span::call_site, |(_, span)| span);
            let which = if self.flavor.is_some() {
                "the `multi_thread` runtime flavor"
            } else {
                "the default runtime flavor, `multi_thread`,"
            };
            return Err(syn::Error::new(
                span,
                format!(
                    "{which} needs tokio's `rt-multi-thread` feature (rt's tokio facade): \
                     enable it, or use `flavor = \"current_thread\"`"
                ),
            ));
        }
        Ok(Config {
            flavor,
            worker_threads: self.worker_threads.map(|(count, _)| count),
            start_paused: self.start_paused.is_some_and(|(paused, _)| paused),
            name: self.name,
            crate_path: self
                .crate_path
                .unwrap_or_else(|| self.dialect.default_crate()),
        })
    }
}

fn reject_duplicate(meta: &ParseNestedMeta<'_>, seen: bool, name: &str) -> syn::Result<()> {
    if seen {
        return Err(meta.error(format!("`{name}` is given twice: keep one")));
    }
    Ok(())
}

/// Parses the `= value` part, naming the expected form on error.
fn value<T: syn::parse::Parse>(meta: &ParseNestedMeta<'_>, expected: &str) -> syn::Result<T> {
    let name = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    let input = meta.value()?;
    input
        .parse()
        .map_err(|error| syn::Error::new(error.span(), format!("`{name}` expects {expected}")))
}
