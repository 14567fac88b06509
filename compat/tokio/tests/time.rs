//! `tokio::time` on rt's timer wheel: `Sleep::reset` has tokio's pinned
//! receiver, so a pinned projection (tokio-stream's `Timeout` calls
//! `me.deadline.reset(..)` on a non-`mut` `Pin<&mut Sleep>`) compiles and
//! moves the deadline.

use std::time::Duration;
use tokio::time::{Instant, Sleep};

struct Projected<'a> {
    deadline: std::pin::Pin<&'a mut Sleep>,
}

#[tokio::test(start_paused = true)]
async fn reset_through_a_pinned_projection() {
    let start = Instant::now();
    let sleep = std::pin::pin!(tokio::time::sleep(Duration::from_secs(60)));
    let me = Projected { deadline: sleep };
    me.deadline.reset(start + Duration::from_secs(2));
    let sleep_again = std::pin::pin!(tokio::time::sleep(Duration::from_secs(60)));
    let me = Projected {
        deadline: sleep_again,
    };
    assert_eq!(me.deadline.deadline(), start + Duration::from_secs(60));
    let mut deadline = me.deadline;
    deadline.as_mut().reset(start + Duration::from_secs(3));
    deadline.as_mut().await;
    assert_eq!(start.elapsed(), Duration::from_secs(3));
    assert!(deadline.is_elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sleep_converts_to_and_from_rt() {
    let ours: Sleep = tokio::__rt::time::sleep(Duration::from_millis(1)).into();
    ours.await;
    let theirs: tokio::__rt::time::Sleep = tokio::time::sleep(Duration::from_millis(1)).into();
    theirs.await;
}

/// tokio's `time::error` has both `Elapsed` and the timer `Error`.
#[test]
fn time_error_types() {
    use tokio::time::error::{Elapsed, Error};
    let err = Error::shutdown();
    assert!(err.is_shutdown() && !err.is_at_capacity() && !err.is_invalid());
    assert!(Error::invalid().is_invalid());
    fn is_error<E: std::error::Error + Send + Sync + 'static>() {}
    is_error::<Error>();
    is_error::<Elapsed>();
}
