#[rt::main(flavor = "local", worker_threads = 2)]
async fn main() {}
