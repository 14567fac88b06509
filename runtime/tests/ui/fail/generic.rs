#[rt::main]
async fn run<T: Default>() {}

fn main() {}
