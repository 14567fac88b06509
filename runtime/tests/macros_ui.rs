//! Compile-time behaviour of `#[rt::main]` and `#[rt::test]`: the pass
//! cases compile without warnings (they `#![deny(warnings)]`) and run; the
//! fail cases are rejected with the messages checked in next to them.
//!
//! Regenerate the expected messages after a deliberate change with
//! `TRYBUILD=overwrite cargo test -p rt --test macros_ui`, then review the
//! diff of `tests/ui/fail/*.stderr`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
