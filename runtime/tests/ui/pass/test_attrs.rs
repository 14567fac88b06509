#![deny(warnings)]

// Compiled as a binary, not a test harness: the `#[test]` functions the
// macro generates must still compile cleanly (they are cfg'd out here).

#[rt::test]
async fn plain() {
    rt::task::yield_now().await;
}

#[rt::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "only checks that attributes pass through"]
async fn multi() -> Result<(), std::io::Error> {
    Ok(())
}

#[rt::test]
#[should_panic(expected = "boom")]
async fn panics() {
    panic!("boom");
}

fn main() {}
