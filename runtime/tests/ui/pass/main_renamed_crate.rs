#![deny(warnings)]

extern crate rt as renamed_rt;

#[renamed_rt::main(crate = "renamed_rt", worker_threads = 1)]
async fn main() {
    let handle = renamed_rt::runtime::Handle::current();
    assert_eq!(handle.metrics().num_workers(), 1);
}
