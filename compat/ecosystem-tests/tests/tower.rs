//! tower's timeout layer on rt's timer wheel, on a paused clock: a slow
//! service times out at its virtual deadline, a fast one answers.

use rt_ecosystem_tests::assert_rt_runs;
use std::time::Duration;
use tokio::time::Instant;
use tower::{BoxError, Service, ServiceBuilder, ServiceExt};

async fn slow_echo(delay_secs: u64) -> Result<u64, BoxError> {
    tokio::time::sleep(Duration::from_secs(delay_secs)).await;
    Ok(delay_secs)
}

#[tokio::test(start_paused = true)]
async fn timeout_layer() {
    let mut service = ServiceBuilder::new()
        .timeout(Duration::from_secs(5))
        .service_fn(slow_echo);

    let start = Instant::now();
    let fast = service.ready().await.unwrap().call(2).await.unwrap();
    assert_eq!(fast, 2);
    assert_eq!(start.elapsed(), Duration::from_secs(2));

    let start = Instant::now();
    let err = service.ready().await.unwrap().call(60).await.unwrap_err();
    assert!(err.is::<tower::timeout::error::Elapsed>(), "{err}");
    assert_eq!(start.elapsed(), Duration::from_secs(5));

    // Served from a spawned task too: an rt task.
    let task = tokio::spawn(service.oneshot(1));
    assert_rt_runs(task.id());
    assert_eq!(task.await.unwrap().unwrap(), 1);
}
