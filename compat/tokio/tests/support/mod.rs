//! Shared helpers: both runtime flavours, built with rt's `Builder` (the
//! facade's own `runtime` module is another helper's).

#![allow(dead_code)]

use std::future::Future;

/// Runs `make()`'s future to completion on a current-thread runtime, then
/// on a multi-thread one.
pub(crate) fn on_both_flavours<F, Fut>(make: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let current = rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    current.block_on(make());
    let multi = rt::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Spawned, so the future runs on a worker, not on the `block_on` thread.
    multi.block_on(async { rt::spawn(make()).await.unwrap() });
}

/// Runs `future` on a current-thread runtime.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}
