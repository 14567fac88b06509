#[rt::test]
async fn generic<T: Default>() {
    let _ = T::default();
}

fn main() {}
