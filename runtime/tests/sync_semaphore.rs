//! Semaphore: permits, fairness, closing, cancellation, contention.

mod support;

use support::{CountingWaker, poll_once, runtimes};

use rt::sync::{Semaphore, TryAcquireError};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::task::Poll;

#[test]
fn acquire_release_and_counts() {
    let semaphore = Semaphore::new(3);
    futures::executor::block_on(async {
        let a = semaphore.acquire().await.unwrap();
        let b = semaphore.acquire_many(2).await.unwrap();
        assert_eq!(semaphore.available_permits(), 0);
        assert_eq!(
            semaphore.try_acquire().unwrap_err(),
            TryAcquireError::NoPermits
        );
        drop(b);
        assert_eq!(semaphore.available_permits(), 2);
        a.forget();
        drop(semaphore.acquire_many(2).await.unwrap());
        assert_eq!(semaphore.available_permits(), 2);
        semaphore.add_permits(5);
        assert_eq!(semaphore.available_permits(), 7);
    });
}

#[test]
fn a_large_waiter_is_not_starved_by_small_acquires() {
    let semaphore = Semaphore::new(1);
    let held = semaphore.try_acquire().unwrap();
    let waker = CountingWaker::new();
    let mut big = Box::pin(semaphore.acquire_many(2));
    assert!(waker.poll(&mut big).is_pending());
    drop(held);
    // The freed permit is set aside for the queued waiter for two, which
    // comes first (so it is not available, as in tokio).
    assert_eq!(semaphore.available_permits(), 0);
    assert_eq!(
        semaphore.try_acquire().unwrap_err(),
        TryAcquireError::NoPermits
    );
    let mut small = Box::pin(semaphore.acquire());
    assert!(waker.poll(&mut small).is_pending());
    semaphore.add_permits(1);
    let big_permit = match waker.poll(&mut big) {
        Poll::Ready(permit) => permit.unwrap(),
        Poll::Pending => panic!("the large waiter was not granted"),
    };
    assert!(waker.poll(&mut small).is_pending());
    drop(big_permit);
    assert!(waker.poll(&mut small).is_ready());
}

#[test]
fn waiters_are_served_in_fifo_order() {
    let semaphore = Semaphore::new(0);
    let waker = CountingWaker::new();
    let mut waiters: Vec<_> = (0..5).map(|_| Box::pin(semaphore.acquire())).collect();
    for waiter in &mut waiters {
        assert!(waker.poll(waiter).is_pending());
    }
    for served in 0..5 {
        semaphore.add_permits(1);
        for (i, waiter) in waiters.iter_mut().enumerate().skip(served) {
            let ready = waker.poll(waiter);
            assert_eq!(
                ready.is_ready(),
                i == served,
                "waiter {i} after {served} grants"
            );
            if let Poll::Ready(permit) = ready {
                permit.unwrap().forget();
            }
        }
    }
}

#[test]
fn cancelled_waiter_does_not_block_the_next() {
    let semaphore = Semaphore::new(0);
    let waker = CountingWaker::new();
    let mut first = Box::pin(semaphore.acquire());
    let mut second = Box::pin(semaphore.acquire());
    assert!(waker.poll(&mut first).is_pending());
    assert!(waker.poll(&mut second).is_pending());
    drop(first); // cancelled while queued
    semaphore.add_permits(1);
    assert!(waker.poll(&mut second).is_ready());
}

#[test]
fn cancelled_after_grant_passes_permits_on() {
    let semaphore = Semaphore::new(0);
    let first_waker = CountingWaker::new();
    let second_waker = CountingWaker::new();
    let mut first = Box::pin(semaphore.acquire_many(2));
    let mut second = Box::pin(semaphore.acquire());
    assert!(first_waker.poll(&mut first).is_pending());
    assert!(second_waker.poll(&mut second).is_pending());
    semaphore.add_permits(2); // granted to `first`, which never looks
    assert_eq!(first_waker.count(), 1);
    assert_eq!(semaphore.available_permits(), 0);
    drop(first);
    // The second waiter was woken and got one of the returned permits.
    assert_eq!(second_waker.count(), 1);
    assert!(second_waker.poll(&mut second).is_ready());
    assert_eq!(semaphore.available_permits(), 2);
}

#[test]
fn close_fails_waiters_but_keeps_held_permits() {
    let semaphore = Semaphore::new(1);
    let held = semaphore.try_acquire().unwrap();
    let waker = CountingWaker::new();
    let mut waiter = Box::pin(semaphore.acquire());
    assert!(waker.poll(&mut waiter).is_pending());
    semaphore.close();
    assert_eq!(waker.count(), 1);
    assert!(matches!(waker.poll(&mut waiter), Poll::Ready(Err(_))));
    assert_eq!(
        semaphore.try_acquire().unwrap_err(),
        TryAcquireError::Closed
    );
    drop(held);
    assert_eq!(semaphore.available_permits(), 1);
    assert!(futures::executor::block_on(semaphore.acquire()).is_err());
}

#[test]
fn owned_permits_move_between_tasks() {
    for (_, rt) in runtimes() {
        rt.block_on(async {
            let semaphore = Arc::new(Semaphore::new(2));
            let permit = semaphore.clone().acquire_many_owned(2).await.unwrap();
            let waiter = rt::spawn(semaphore.clone().acquire_owned());
            let releaser = rt::spawn(async move { drop(permit) });
            releaser.await.unwrap();
            let got = waiter.await.unwrap().unwrap();
            assert_eq!(got.num_permits(), 1);
            assert_eq!(semaphore.available_permits(), 1);
        });
    }
}

#[test]
fn contended_acquires_never_exceed_the_limit() {
    const LIMIT: usize = 3;
    const TASKS: usize = 40;
    const ROUNDS: usize = 50;
    for (_, rt) in runtimes() {
        let semaphore = Arc::new(Semaphore::new(LIMIT));
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let total = Arc::new(AtomicUsize::new(0));
        rt.block_on(async {
            let tasks: Vec<_> = (0..TASKS)
                .map(|i| {
                    let (semaphore, inside, most, total) = (
                        semaphore.clone(),
                        inside.clone(),
                        most.clone(),
                        total.clone(),
                    );
                    rt::spawn(async move {
                        for _ in 0..ROUNDS {
                            let _permit = if i % 2 == 0 {
                                semaphore.acquire_many(1).await.unwrap()
                            } else {
                                semaphore.acquire().await.unwrap()
                            };
                            let now = inside.fetch_add(1, SeqCst) + 1;
                            most.fetch_max(now, SeqCst);
                            rt::task::yield_now().await;
                            inside.fetch_sub(1, SeqCst);
                            total.fetch_add(1, SeqCst);
                        }
                    })
                })
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
        });
        assert!(most.load(SeqCst) <= LIMIT);
        assert_eq!(total.load(SeqCst), TASKS * ROUNDS);
        assert_eq!(semaphore.available_permits(), LIMIT);
    }
}

#[test]
fn works_across_plain_threads_without_a_runtime() {
    let semaphore = Arc::new(Semaphore::new(1));
    let count = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (semaphore, count) = (semaphore.clone(), count.clone());
            std::thread::spawn(move || {
                for _ in 0..100 {
                    let _permit = futures::executor::block_on(semaphore.acquire()).unwrap();
                    let seen = count.load(SeqCst);
                    count.store(seen + 1, SeqCst);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(count.load(SeqCst), 400);
}

/// As for the mutex: an acquire out of budget holds its place in line.
#[test]
fn an_acquire_out_of_budget_keeps_its_place_in_line() {
    let rt = rt::runtime::Builder::new_current_thread().build().unwrap();
    let order = rt.block_on(async {
        let semaphore = Arc::new(Semaphore::new(0));
        let order = Arc::new(std::sync::Mutex::new(Vec::new()));
        let acquirers: Vec<_> = (0..2)
            .map(|id| {
                let (semaphore, order) = (semaphore.clone(), order.clone());
                rt::spawn(async move {
                    if id == 0 {
                        while rt::task::coop::has_budget_remaining() {
                            rt::task::coop::consume_budget().await;
                        }
                    }
                    let _permit = semaphore.acquire().await.unwrap();
                    order.lock().unwrap().push(id);
                })
            })
            .collect();
        rt::task::yield_now().await;
        semaphore.add_permits(1);
        for acquirer in acquirers {
            acquirer.await.unwrap();
        }
        Arc::try_unwrap(order).unwrap().into_inner().unwrap()
    });
    assert_eq!(order, [0, 1]);
}

static LIMIT: Semaphore = Semaphore::const_new(2);

#[test]
fn a_const_semaphore_works_as_a_static() {
    let a = LIMIT.try_acquire().unwrap();
    assert_eq!(LIMIT.available_permits(), 1);
    assert!(std::ptr::eq(a.semaphore(), &LIMIT));
    drop(a);
    assert_eq!(LIMIT.available_permits(), 2);
}

#[test]
fn blocking_acquire_waits_on_a_plain_thread() {
    let semaphore = Arc::new(Semaphore::new(0));
    let waiter = {
        let semaphore = semaphore.clone();
        std::thread::spawn(move || {
            semaphore.blocking_acquire_many(2).unwrap().forget();
            semaphore.blocking_acquire().map(drop)
        })
    };
    semaphore.add_permits(2);
    semaphore.add_permits(1);
    assert!(waiter.join().unwrap().is_ok());
    semaphore.close();
    assert!(semaphore.blocking_acquire().is_err());
}

#[test]
fn permits_merge_and_split() {
    let semaphore = Arc::new(Semaphore::new(5));
    let mut permit = semaphore.try_acquire_many(2).unwrap();
    permit.merge(semaphore.try_acquire().unwrap());
    assert_eq!(permit.num_permits(), 3);
    let part = permit.split(2).unwrap();
    assert_eq!((permit.num_permits(), part.num_permits()), (1, 2));
    assert!(
        permit.split(2).is_none(),
        "only one permit is left to split"
    );
    drop(part);
    assert_eq!(semaphore.available_permits(), 4);

    let mut owned = semaphore.clone().try_acquire_many_owned(2).unwrap();
    owned.merge(semaphore.clone().try_acquire_owned().unwrap());
    let owned_part = owned.split(3).unwrap();
    assert_eq!(owned.num_permits(), 0);
    assert!(Arc::ptr_eq(owned_part.semaphore(), &semaphore));
    assert_eq!(semaphore.available_permits(), 1);
    drop((owned, owned_part, permit));
    assert_eq!(semaphore.available_permits(), 5);

    let other = Semaphore::new(1);
    let message = support::expect_panic(|| {
        let mut permit = semaphore.try_acquire().unwrap();
        permit.merge(other.try_acquire().unwrap());
    });
    assert!(message.contains("different semaphore"), "{message}");
}

#[test]
fn forget_permits_takes_what_is_free() {
    let semaphore = Semaphore::new(3);
    let held = semaphore.try_acquire().unwrap();
    assert_eq!(semaphore.forget_permits(5), 2);
    assert_eq!(semaphore.available_permits(), 0);
    drop(held);
    assert_eq!(semaphore.available_permits(), 1);
    assert_eq!(semaphore.forget_permits(0), 0);
}

/// Permits set aside for a queued waiter (it asked for more than were
/// free) stay out of the pool until its future fails on the close, or is
/// dropped, and then come back: a closed-out waiter keeps none.
#[test]
fn a_closed_out_waiter_gives_back_the_permits_set_aside_for_it() {
    for drop_it in [false, true] {
        let semaphore = Semaphore::new(1);
        let mut big = Box::pin(semaphore.acquire_many(3));
        assert!(poll_once(&mut big).is_pending());
        assert_eq!(semaphore.available_permits(), 0, "set aside for `big`");
        semaphore.add_permits(1);
        assert_eq!(semaphore.available_permits(), 0, "set aside for `big`");
        semaphore.close();
        assert_eq!(
            semaphore.available_permits(),
            0,
            "until `big` sees the close"
        );
        if drop_it {
            drop(big);
        } else {
            assert!(matches!(poll_once(&mut big), Poll::Ready(Err(_))));
        }
        assert_eq!(semaphore.available_permits(), 2);
    }
}

/// tokio's `sync_semaphore::merge_many_permits` and
/// `sync_semaphore_owned::merge_many_permits_owned`: two permits of three
/// billion permits each (each fits `acquire_many`'s `u32`) merge into one
/// of six billion, which a permit counts in `usize` (it used to panic at
/// the merge), and dropping it returns them all.
#[cfg(target_pointer_width = "64")]
#[test]
fn permits_merge_past_u32_max() {
    let semaphore = Arc::new(Semaphore::new(6_000_000_000));
    let mut a = semaphore.try_acquire_many(3_000_000_000).unwrap();
    let b = semaphore.try_acquire_many(3_000_000_000).unwrap();
    assert_eq!(
        (a.num_permits(), b.num_permits()),
        (3_000_000_000, 3_000_000_000)
    );
    assert_eq!(semaphore.available_permits(), 0);
    a.merge(b);
    assert_eq!(a.num_permits(), 6_000_000_000);
    assert_eq!(semaphore.available_permits(), 0);
    let mut part = a.split(5_000_000_000).unwrap();
    assert_eq!(
        (a.num_permits(), part.num_permits()),
        (1_000_000_000, 5_000_000_000)
    );
    part.merge(a);
    drop(part);
    assert_eq!(semaphore.available_permits(), 6_000_000_000);

    let mut a = semaphore
        .clone()
        .try_acquire_many_owned(3_000_000_000)
        .unwrap();
    let b = semaphore
        .clone()
        .try_acquire_many_owned(3_000_000_000)
        .unwrap();
    assert_eq!(
        (a.num_permits(), b.num_permits()),
        (3_000_000_000, 3_000_000_000)
    );
    assert_eq!(semaphore.available_permits(), 0);
    a.merge(b);
    assert_eq!(a.num_permits(), 6_000_000_000);
    assert_eq!(semaphore.available_permits(), 0);
    let part = a.split(5_000_000_000).unwrap();
    assert_eq!(
        (a.num_permits(), part.num_permits()),
        (1_000_000_000, 5_000_000_000)
    );
    drop((a, part));
    assert_eq!(semaphore.available_permits(), 6_000_000_000);
}

/// Asking for zero permits needs none, so it is granted at once even while
/// a waiter is queued for more than is free (tokio's batch semaphore: a
/// request for zero is always covered). Queued behind that waiter, a
/// zero-sized request (an empty write through a byte-budget semaphore)
/// would wait for permits it does not need, for ever if the waiter's
/// permits only come back once the request is through.
#[test]
fn zero_permits_are_granted_at_once_even_behind_a_queued_waiter() {
    let semaphore = Semaphore::new(1);
    let mut big = Box::pin(semaphore.acquire_many(3));
    assert!(poll_once(&mut big).is_pending());

    let mut zero = Box::pin(semaphore.acquire_many(0));
    match poll_once(&mut zero) {
        Poll::Ready(Ok(permit)) => assert_eq!(permit.num_permits(), 0),
        other => panic!("acquire_many(0) behind a queued waiter: {other:?}"),
    }
    let permit = semaphore
        .try_acquire_many(0)
        .expect("zero permits are free");
    assert_eq!(permit.num_permits(), 0);
    let arc = Arc::new(Semaphore::new(0));
    let mut queued = Box::pin(arc.clone().acquire_owned());
    assert!(poll_once(&mut queued).is_pending());
    assert!(arc.clone().try_acquire_many_owned(0).is_ok());

    // The queued waiter kept its place and its permit.
    semaphore.add_permits(2);
    assert!(matches!(poll_once(&mut big), Poll::Ready(Ok(p)) if p.num_permits() == 3));

    // Closed, even zero permits are refused.
    semaphore.close();
    assert!(matches!(
        poll_once(&mut Box::pin(semaphore.acquire_many(0))),
        Poll::Ready(Err(_))
    ));
    assert_eq!(
        semaphore.try_acquire_many(0).unwrap_err(),
        TryAcquireError::Closed
    );
}
