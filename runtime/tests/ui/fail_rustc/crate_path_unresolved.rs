#[rt::main(crate = "not_the_rt_crate")]
async fn main() {}
