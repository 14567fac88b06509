//! `select!`, `join!`, `try_join!` and `pin!`, with tokio's syntax and
//! semantics.
//!
//! The macros are exported at the crate root (`rt::select!`); this module
//! holds their definitions and the [`support`] items their expansions
//! name. `select!`, `join!` and `try_join!` are thin `macro_rules!`
//! wrappers that hand their input, prefixed with `$crate`, to the
//! procedural macros of `rt-macros` (which count the branches and name one
//! variable per future); the expansions call only `core` and [`support`].

mod join;
mod pin;
mod select;
pub mod support;
