// `#[rt::test]` is current-thread unless told otherwise.
#[rt::test(worker_threads = 2)]
async fn two_workers() {}

fn main() {}
