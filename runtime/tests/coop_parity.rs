//! Which futures spend the cooperative budget, and when, as in tokio: a
//! resource future spends one unit for each poll that returns a result,
//! none for a poll that returns `Pending`, and yields (woken at once)
//! instead of returning a result once the budget is spent.

use rt::runtime::Builder;
use rt::task::coop::poll_proceed;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::{Context, Poll};

/// A task's budget at the start of a poll.
const BUDGET: usize = 128;

/// Runs `body` as a task on a current-thread runtime.
fn in_a_task(body: impl Future<Output = ()> + Send + 'static) {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async { rt::spawn(body).await.unwrap() });
}

/// Within one poll: how many units are left, found by spending them all
/// (so the task yields once this poll ends).
fn units_left(cx: &mut Context<'_>) -> usize {
    let mut units = 0;
    while let Poll::Ready(coop) = poll_proceed(cx) {
        coop.made_progress();
        units += 1;
        assert!(units <= BUDGET, "the budget never ran out");
    }
    units
}

/// Polls once, at the start of a fresh task poll, with `poll`, and
/// returns what it returned and the units of budget that poll spent.
async fn units_spent_by<T>(mut poll: impl FnMut(&mut Context<'_>) -> Poll<T>) -> (Poll<T>, usize) {
    // The task runs again with a fresh budget.
    rt::task::yield_now().await;
    poll_fn(|cx| {
        let polled = poll(cx);
        Poll::Ready((polled, BUDGET - units_left(cx)))
    })
    .await
}

/// Polls `operation` until it returns, each poll at the start of a task
/// poll, and checks that the polls that wait spend nothing and the one
/// that returns spends one unit.
async fn spends_one_unit<F: Future>(what: &str, operation: F) -> F::Output {
    let mut operation = pin!(operation);
    loop {
        let (polled, spent) = units_spent_by(|cx| operation.as_mut().poll(cx)).await;
        let Poll::Ready(output) = polled else {
            assert_eq!(spent, 0, "{what}: a poll that waits spent budget");
            continue;
        };
        assert_eq!(spent, 1, "{what}: a result costs one unit");
        return output;
    }
}

/// tokio's `Recv` spends a unit only for a value: a receive that waits
/// for one spends none (rt's used to spend one before looking).
#[test]
fn broadcast_recv_spends_budget_only_when_ready() {
    in_a_task(async {
        let (tx, mut rx) = rt::sync::broadcast::channel(4);
        let mut recv = pin!(rx.recv());
        let (polled, spent) = units_spent_by(|cx| recv.as_mut().poll(cx)).await;
        assert!(polled.is_pending());
        assert_eq!(spent, 0, "a receive that waits spent budget");
        tx.send(7).unwrap();
        let (polled, spent) = units_spent_by(|cx| recv.as_mut().poll(cx)).await;
        assert_eq!(polled, Poll::Ready(Ok(7)));
        assert_eq!(spent, 1, "a received value costs one unit");
    });
}

/// Blocks until the child `pid` has exited, leaving it unreaped: a zombie
/// whose status its `Child` collects.
fn block_until_exited(pid: u32) {
    let mut info = std::mem::MaybeUninit::<libc::siginfo_t>::zeroed();
    let (id_type, id, options) = (
        libc::P_PID,
        pid as libc::id_t,
        libc::WEXITED | libc::WNOWAIT,
    );
    // SAFETY: `info` is valid for writes of the `siginfo_t` that `waitid`
    // writes, and is never read.
    let rc = unsafe { libc::waitid(id_type, id, info.as_mut_ptr(), options) };
    assert_eq!(rc, 0, "waitid: {}", std::io::Error::last_os_error());
}

/// tokio's `Child::wait` spends a unit when it reaps the child, and
/// yields instead once the budget is spent (rt's spent none when the
/// child had already exited, so a loop reaping exited children never
/// yielded).
#[test]
#[cfg_attr(miri, ignore = "spawns a process")]
fn child_wait_spends_budget_when_it_reaps() {
    in_a_task(async {
        let mut child = rt::process::Command::new("true").spawn().unwrap();
        block_until_exited(child.id().unwrap());
        let mut wait = pin!(child.wait());
        poll_fn(|cx| {
            units_left(cx);
            assert!(
                wait.as_mut().poll(cx).is_pending(),
                "reaped on a spent budget"
            );
            Poll::Ready(())
        })
        .await;
        let (polled, spent) = units_spent_by(|cx| wait.as_mut().poll(cx)).await;
        assert!(matches!(polled, Poll::Ready(Ok(status)) if status.success()));
        assert_eq!(spent, 1, "a reap costs one unit");
    });
}

/// Polls `wait` once before `release`, then once after it: the wait
/// spends nothing, the result `units`.
async fn released_spends<F: Future>(what: &str, units: usize, wait: F, release: impl FnOnce()) {
    let mut wait = pin!(wait);
    let (polled, spent) = units_spent_by(|cx| wait.as_mut().poll(cx)).await;
    assert!(polled.is_pending(), "{what}: returned before the release");
    assert_eq!(spent, 0, "{what}: a poll that waits spent budget");
    release();
    let (polled, spent) = units_spent_by(|cx| wait.as_mut().poll(cx)).await;
    assert!(polled.is_ready(), "{what}: still waiting after the release");
    assert_eq!(spent, units, "{what}: the units of its result");
}

/// Polls `ready` once, expecting its result: the units that poll spent.
async fn units_spent_by_ready<F: Future>(what: &str, ready: F) -> usize {
    let mut ready = pin!(ready);
    let (polled, spent) = units_spent_by(|cx| ready.as_mut().poll(cx)).await;
    assert!(polled.is_ready(), "{what}: not ready");
    spent
}

/// tokio's `watch` and `oneshot` senders' `closed` spend one unit when
/// they return; its `mpsc` (both kinds) and `broadcast` senders' spend
/// none, since they only wait on a `Notify` (rt's spent one for each).
#[test]
fn closed_spends_what_tokio_s_spends() {
    in_a_task(async {
        let (tx, rx) = rt::sync::mpsc::channel::<u8>(1);
        released_spends("mpsc closed", 0, tx.closed(), || drop(rx)).await;
        assert_eq!(units_spent_by_ready("mpsc closed", tx.closed()).await, 0);
        let (tx, rx) = rt::sync::mpsc::unbounded_channel::<u8>();
        released_spends("unbounded closed", 0, tx.closed(), || drop(rx)).await;
        assert_eq!(
            units_spent_by_ready("unbounded closed", tx.closed()).await,
            0
        );
        let (tx, rx) = rt::sync::broadcast::channel::<u8>(1);
        released_spends("broadcast closed", 0, tx.closed(), || drop(rx)).await;
        assert_eq!(
            units_spent_by_ready("broadcast closed", tx.closed()).await,
            0
        );
        let (tx, rx) = rt::sync::watch::channel(0);
        released_spends("watch closed", 1, tx.closed(), || drop(rx)).await;
        assert_eq!(units_spent_by_ready("watch closed", tx.closed()).await, 1);
        let (mut tx, rx) = rt::sync::oneshot::channel::<u8>();
        released_spends("oneshot closed", 1, tx.closed(), || drop(rx)).await;
        assert_eq!(units_spent_by_ready("oneshot closed", tx.closed()).await, 1);
    });
}

/// tokio's `Notified` spends no budget, whether it takes a stored permit
/// or was woken by `notify_one` or `notify_waiters` (rt's spent one unit).
#[test]
fn notified_spends_no_budget() {
    in_a_task(async {
        let notify = std::sync::Arc::new(rt::sync::Notify::new());
        notify.notify_one();
        assert_eq!(units_spent_by_ready("permit", notify.notified()).await, 0);
        notify.notify_one();
        let owned = notify.clone().notified_owned();
        assert_eq!(units_spent_by_ready("owned permit", owned).await, 0);
        released_spends("notify_one", 0, notify.notified(), || notify.notify_one()).await;
        let waiters = || notify.notify_waiters();
        released_spends("notify_waiters", 0, notify.notified(), waiters).await;
    });
}

/// tokio's `Barrier::wait` spends none for the leader and one unit for a
/// waiter it releases (rt's spent one for the leader, and the waiter's
/// unit was its `Notified`'s).
#[test]
fn barrier_spends_one_unit_for_a_released_waiter_only() {
    in_a_task(async {
        let barrier = rt::sync::Barrier::new(1);
        assert_eq!(units_spent_by_ready("leader", barrier.wait()).await, 0);
        let barrier = std::sync::Arc::new(rt::sync::Barrier::new(2));
        let leader = barrier.clone();
        let lead = move || {
            let led = futures::FutureExt::now_or_never(leader.wait()).unwrap();
            assert!(led.is_leader());
        };
        released_spends("waiter", 1, barrier.wait(), lead).await;
    });
}

/// tokio's `JoinSet` spends what the joined handle's poll spends: one
/// unit per task joined, none for `None` from an empty set (rt's spent a
/// unit of its own on top, so two per task, and one for `None`).
#[test]
fn join_set_spends_one_unit_per_joined_task() {
    in_a_task(async {
        let mut set = rt::task::JoinSet::new();
        set.spawn(async { 3 });
        let joined = spends_one_unit("join", poll_fn(|cx| set.poll_join_next(cx))).await;
        assert_eq!(joined.unwrap().unwrap(), 3);
        let (polled, spent) = units_spent_by(|cx| set.poll_join_next(cx)).await;
        assert!(matches!(polled, Poll::Ready(None)));
        assert_eq!(spent, 0, "an empty set spent budget");
    });
}

/// tokio runs a `spawn_blocking` closure without a budget. rt's ran it
/// under the budget of the blocking task's only poll, which nothing
/// refills on that thread: a closure driving futures itself
/// (`futures::executor::block_on`) spun forever once it had spent 128
/// units.
#[test]
fn spawn_blocking_runs_its_closure_without_a_budget() {
    in_a_task(async {
        let results = rt::task::spawn_blocking(|| {
            let consume = || futures::FutureExt::now_or_never(rt::task::consume_budget());
            (0..1000).filter(|_| consume().is_some()).count()
        })
        .await
        .unwrap();
        assert_eq!(results, 1000, "the closure ran out of budget");
    });
}

/// tokio's file operations spend what the handle of their blocking job
/// spends: one unit for a result they waited for, none for one ready at
/// once (a write handed to the pool, an entry already fetched). rt's
/// charged a unit per result (and, before that, two after a wait).
#[test]
fn file_operations_spend_one_unit_only_when_they_wait_for_their_job() {
    use rt::io::{AsyncReadExt, AsyncWriteExt};
    in_a_task(async {
        let dir = std::env::temp_dir().join(format!("rt-coop-parity-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("file");
        std::fs::write(&path, b"0123456789").unwrap();
        let mut file = rt::fs::File::open(&path).await.unwrap();
        let mut buf = [0; 4];
        let n = spends_one_unit("read", file.read(&mut buf)).await.unwrap();
        assert_eq!(&buf[..n], &b"0123"[..n]);
        let mut file = rt::fs::File::create(&path).await.unwrap();
        let first = units_spent_by_ready("first write", file.write(b"abc")).await;
        assert_eq!(first, 0, "a write handed to the pool at once spent budget");
        // Waits for the first write's job.
        spends_one_unit("second write", file.write(b"def"))
            .await
            .unwrap();
        file.flush().await.unwrap();
        // More entries than one fetch (32): the first fetch comes with
        // the open, the 33rd entry waits for the second.
        for i in 0..40 {
            std::fs::write(dir.join(format!("entry-{i}")), b"").unwrap();
        }
        let mut entries = rt::fs::read_dir(&dir).await.unwrap();
        for _ in 0..32 {
            let ready = units_spent_by_ready("fetched entry", entries.next_entry()).await;
            assert_eq!(ready, 0, "an entry already fetched spent budget");
        }
        let entry = spends_one_unit("entry of a new fetch", entries.next_entry()).await;
        assert!(entry.unwrap().is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

/// tokio's file read served from bytes a dropped read fetched spends no
/// budget (rt's spent a unit): only the handle of a job spends.
#[test]
fn a_file_read_served_from_the_buffer_spends_no_budget() {
    use rt::io::AsyncReadExt;
    // One pool thread, held by `blocker` until the dropped read below has
    // queued its job: that read cannot complete on its one poll.
    let rt = Builder::new_current_thread()
        .max_blocking_threads(1)
        .build()
        .unwrap();
    rt.block_on(async {
        rt::spawn(async {
            let dir = std::env::temp_dir().join(format!("rt-coop-buffer-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("file");
            std::fs::write(&path, b"0123456789").unwrap();
            let mut file = rt::fs::File::open(&path).await.unwrap();
            let (release, held) = std::sync::mpsc::channel::<()>();
            let blocker = rt::task::spawn_blocking(move || held.recv().unwrap());
            let mut eight = [0; 8];
            {
                let mut read = pin!(file.read(&mut eight));
                let (polled, _) = units_spent_by(|cx| read.as_mut().poll(cx)).await;
                assert!(polled.is_pending(), "read with the pool's one thread held");
            }
            release.send(()).unwrap();
            blocker.await.unwrap();
            // Collects the dropped read's 8 bytes, keeps 6.
            let mut two = [0; 2];
            let n = spends_one_unit("read after the dropped one", file.read(&mut two)).await;
            assert_eq!(&two[..n.unwrap()], b"01");
            let mut four = [0; 4];
            let mut read = pin!(file.read(&mut four));
            let (polled, spent) = units_spent_by(|cx| read.as_mut().poll(cx)).await;
            assert!(matches!(polled, Poll::Ready(Ok(4))));
            assert_eq!(spent, 0, "a read served from the buffer spent budget");
            assert_eq!(&four, b"2345");
            std::fs::remove_dir_all(&dir).unwrap();
        })
        .await
        .unwrap()
    });
}
