#![deny(warnings)]

/// Doc comments and other attributes stay on the function.
#[rt::main(flavor = "current_thread", start_paused = true)]
#[allow(clippy::needless_return)]
pub async fn main() {
    let handle = rt::runtime::Handle::current();
    assert_eq!(
        handle.runtime_flavor(),
        rt::runtime::RuntimeFlavor::CurrentThread
    );
    return;
}
