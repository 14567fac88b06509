// In a method, an error in the body still points at the user's code, and
// the declared return type is the one it is checked against.
struct Store;

impl Store {
    #[rt::main(flavor = "current_thread")]
    async fn count(&self) -> u32 {
        let _ = self;
        "not a number"
    }
}

fn main() {
    Store.count();
}
