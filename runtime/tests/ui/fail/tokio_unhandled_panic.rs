// The tokio facade's `#[tokio::main]` (`rt_macros::tokio_main`, which
// `compat/tokio` re-exports as `main`) refuses tokio's unstable
// `unhandled_panic`. `tokio` is rt here, so the fallback expansion
// resolves.
extern crate rt as tokio;

#[rt_macros::tokio_main(flavor = "current_thread", unhandled_panic = "shutdown_runtime")]
async fn main() {}
