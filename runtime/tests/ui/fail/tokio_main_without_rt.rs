// Without the facade's `rt` feature, `#[tokio::main]` (`tokio_main_fail`)
// is a compile error naming the feature, as in tokio.
#[rt_macros::tokio_main_fail]
async fn main() {}
