#[rt::test]
async fn takes_input(value: u32) {
    assert_eq!(value, 1);
}

fn main() {}
