// Only `main` (the program entry) is refused generics: other
// `#[rt::main]` functions keep theirs (`tests/ui/pass/main_methods.rs`).
#[rt::main]
async fn main<T: Default>() {}
