//! Compile-time behaviour of `#[rt::main]`, `#[rt::test]` and `rt::select!`
//! (with `join!`, `try_join!`, `pin!`): the pass
//! cases compile without warnings (they `#![deny(warnings)]`) and run; the
//! fail cases are rejected with the messages checked in next to them.
//!
//! `tests/ui/fail/` holds the macros' own errors, and a type error in the
//! body that must point at the user's code (rustc's `E0308` wording has
//! been stable for years), checked on any compiler. `tests/ui/fail_rustc/`
//! holds cases whose whole message is rustc's, which it rewords between
//! releases (the unresolved-crate error did in 1.9x): they are checked only
//! on the release they were recorded with, `RECORDED_WITH`, as reported by
//! the `rustc` that cargo's environment resolves (the rustup proxy picks
//! the same toolchain for it as for the cargo that trybuild runs).
//!
//! Regenerate the expected messages after a deliberate change (or a
//! compiler upgrade, then also update `RECORDED_WITH`) with
//! `TRYBUILD=overwrite cargo test -p rt --test macros_ui`, then review the
//! diff of `tests/ui/fail*/*.stderr`.

use std::process::Command;

/// The rustc release (`major.minor`) that wrote `tests/ui/fail_rustc/`.
const RECORDED_WITH: &str = "1.95";

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
    let release = rustc_release();
    if release == RECORDED_WITH {
        cases.compile_fail("tests/ui/fail_rustc/*.rs");
    } else {
        eprintln!(
            "note: tests/ui/fail_rustc/ not checked: its messages are rustc {RECORDED_WITH}'s, \
             this is rustc {release} (see this file's docs to re-record them)"
        );
    }
}

/// `major.minor` of the rustc that cargo builds with.
fn rustc_release() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let output = Command::new(&rustc)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("running `{rustc} --version`: {e}"));
    let version = String::from_utf8_lossy(&output.stdout);
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let full = version
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("unexpected `{rustc} --version` output: {version}"));
    full.splitn(3, '.').take(2).collect::<Vec<_>>().join(".")
}
