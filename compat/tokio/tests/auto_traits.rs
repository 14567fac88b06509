//! The futures and guards whose auto traits tokio's `async_send_sync.rs`
//! pins down have tokio's here too: code written for the facade must
//! compile against tokio, so nothing may be `Unpin`, `Send` or `Sync`
//! where tokio's is not (and nothing less where tokio's is).
//!
//! Everything here is checked at compile time; the test bodies only build
//! the values.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

fn send<T: Send>(_: &T) {}
fn sync<T: Sync>(_: &T) {}

/// `not_unpin` resolves only for a `!Unpin` type: for an `Unpin` one both
/// impls apply and the call is ambiguous (a compile error).
trait NotUnpin<Which> {
    fn not_unpin(&self) {}
}
impl<T: ?Sized> NotUnpin<()> for T {}
impl<T: ?Sized + Unpin> NotUnpin<u8> for T {}

/// As [`NotUnpin`], for `!Send`.
trait NotSend<Which> {
    fn not_send(&self) {}
}
impl<T: ?Sized> NotSend<()> for T {}
impl<T: ?Sized + Send> NotSend<u8> for T {}

/// As [`NotUnpin`], for `!Sync`.
trait NotSync<Which> {
    fn not_sync(&self) {}
}
impl<T: ?Sized> NotSync<()> for T {}
impl<T: ?Sized + Sync> NotSync<u8> for T {}

type SyncFuture = Pin<Box<dyn Future<Output = ()> + Send + Sync>>;

tokio::task_local! {
    static KEY: u32;
}

#[test]
fn timer_futures_are_send_sync_and_not_unpin() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let _guard = rt.enter();
    let sleep = tokio::time::sleep(Duration::from_secs(1));
    send(&sleep);
    sync(&sleep);
    NotUnpin::not_unpin(&sleep);
    let until = tokio::time::sleep_until(tokio::time::Instant::now());
    NotUnpin::not_unpin(&until);

    let limited = tokio::time::timeout(Duration::from_secs(1), Box::pin(async {}) as SyncFuture);
    send(&limited);
    sync(&limited);
    NotUnpin::not_unpin(&limited);
    let at = tokio::time::timeout_at(tokio::time::Instant::now(), std::future::ready(()));
    NotUnpin::not_unpin(&at);
    // `timeout` takes tokio's `IntoFuture`.
    struct Deferred;
    impl std::future::IntoFuture for Deferred {
        type Output = u8;
        type IntoFuture = std::future::Ready<u8>;
        fn into_future(self) -> std::future::Ready<u8> {
            std::future::ready(3)
        }
    }
    let limited: tokio::time::Timeout<std::future::Ready<u8>> =
        tokio::time::timeout(Duration::from_secs(1), Deferred);
    assert_eq!(rt.block_on(limited), Ok(3));
}

#[test]
fn notify_futures_are_send_sync_and_not_unpin() {
    let notify = Arc::new(tokio::sync::Notify::new());
    let notified = notify.notified();
    send(&notified);
    sync(&notified);
    NotUnpin::not_unpin(&notified);
    let owned: tokio::sync::futures::OwnedNotified = notify.clone().notified_owned();
    send(&owned);
    sync(&owned);
    NotUnpin::not_unpin(&owned);
}

#[test]
fn task_local_scope_and_run_until_are_not_unpin() {
    let scoped = KEY.scope(1, std::future::ready(()));
    send(&scoped);
    sync(&scoped);
    NotUnpin::not_unpin(&scoped);

    let local = tokio::task::LocalSet::new();
    let run = local.run_until(std::future::ready(()));
    NotUnpin::not_unpin(&run);
    NotSend::not_send(&run);
    NotSync::not_sync(&run);
}

#[test]
fn enter_guard_is_sync_but_not_send() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let guard = rt.enter();
    sync(&guard);
    NotSend::not_send(&guard);
}

#[test]
fn mapped_guards_have_tokios_bounds() {
    // `T: Send + !Sync`: the owned mapped guard is `Send`, not `Sync`.
    let mutex = Arc::new(tokio::sync::Mutex::new((Cell::new(0u8), 0u8)));
    let guard = tokio::sync::OwnedMutexGuard::map(mutex.try_lock_owned().unwrap(), |t| &mut t.1);
    send(&guard);
    NotSync::not_sync(&guard);

    // A mapped write guard of a `!Sync` value is not `Send`.
    let lock = tokio::sync::RwLock::new(Cell::new(0u8));
    let guard = tokio::sync::RwLockWriteGuard::map(lock.try_write().unwrap(), |cell| cell);
    NotSend::not_send(&guard);
    NotSync::not_sync(&guard);
}

#[test]
fn broadcast_recv_is_sync_for_send_only_values() {
    let (_tx, mut rx) = tokio::sync::broadcast::channel::<Cell<u8>>(1);
    let recv = rx.recv();
    send(&recv);
    sync(&recv);
    NotUnpin::not_unpin(&recv);

    let (_tx, mut rx) = tokio::sync::broadcast::channel::<Rc<u8>>(1);
    let recv = rx.recv();
    NotSend::not_send(&recv);
}
