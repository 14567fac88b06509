//! `#[rt::main]` and `#[rt::test]` (work in progress).
