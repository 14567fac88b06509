//! End-to-end loom models of the rt runtime live in `tests/`; build with `RUSTFLAGS="--cfg loom"`.
