// Without the facade's `rt-multi-thread` feature (`tokio_main_rt`), the
// default multi-thread flavor is refused, as tokio refuses it.
extern crate rt as tokio;

#[rt_macros::tokio_main_rt]
async fn main() {}
