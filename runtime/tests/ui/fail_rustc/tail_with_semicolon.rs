// A body whose tail ends in `;` is reported against the declared type.
#[rt::main(flavor = "current_thread")]
async fn answer() -> u32 {
    rt::task::yield_now().await;
    42;
}

fn main() {
    answer();
}
