// An error in the body points at the user's code, not at the attribute.
#[rt::main]
async fn main() {
    let count: u32 = "not a number";
    let _ = count;
}
