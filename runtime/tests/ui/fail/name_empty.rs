#[rt::main(name = " ")]
async fn main() {}
