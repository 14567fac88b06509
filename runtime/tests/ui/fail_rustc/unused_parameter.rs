// The parameters' lints still point at the user's parameters.
#![deny(unused_variables, unused_mut)]

#[rt::main(flavor = "current_thread")]
async fn run(unused: u32, mut never_mutated: u32) -> u32 {
    never_mutated
}

fn main() {
    run(1, 2);
}
