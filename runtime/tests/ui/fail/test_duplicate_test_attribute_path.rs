// The prelude's `test` attribute by its full path is the same `#[test]`.
#[rt::test]
#[::core::prelude::v1::test]
async fn twice() {}

fn main() {}
