#![deny(warnings)]

/// `flavor = "local"`: the body may spawn `!Send` tasks.
#[rt::main(flavor = "local")]
async fn main() {
    let counter = std::rc::Rc::new(std::cell::Cell::new(1));
    let in_task = counter.clone();
    rt::task::spawn_local(async move { in_task.set(2) })
        .await
        .unwrap();
    assert_eq!(counter.get(), 2);
}
