#![deny(warnings)]

#[rt::main]
async fn main() {
    let value = rt::spawn(async { 1 + 1 }).await.unwrap();
    assert_eq!(value, 2);
}
