// Without a return type the body is checked against `()`, at its tail.
#[rt::main(flavor = "current_thread")]
async fn returns_nothing() {
    rt::task::yield_now().await;
    5
}

fn main() {
    returns_nothing();
}
