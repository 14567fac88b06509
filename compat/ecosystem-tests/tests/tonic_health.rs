//! tonic on rt through the facade: tonic-health's gRPC service (its code
//! is generated into the crate: no protoc) served on the facade's
//! listener, called over a tonic `Channel`: a unary `Check` and a
//! server-streaming `Watch` that sees status changes. Both schedulers.

use rt_ecosystem_tests::{assert_rt_runs, bounded, rt_task_count};
use tokio_stream::wrappers::TcpListenerStream;
use tonic_health::ServingStatus;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus as Wire;
use tonic_health::pb::health_client::HealthClient;

const SERVICE: &str = "rt.eco.Greeter";

async fn check_and_watch() {
    let (reporter, health) = tonic_health::server::health_reporter();
    reporter
        .set_service_status(SERVICE, ServingStatus::Serving)
        .await;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(health)
            .serve_with_incoming_shutdown(TcpListenerStream::new(listener), async {
                let _ = stop_rx.await;
            }),
    );
    assert_rt_runs(server.id());
    let before = rt_task_count();

    let channel = bounded(
        "connect",
        tonic::transport::Channel::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect(),
    )
    .await
    .unwrap();
    let mut client = HealthClient::new(channel);
    // tonic's channel (its buffer worker) and the server's connection
    // tasks are rt tasks: rt's dump grew.
    assert!(rt_task_count() > before, "no new tasks in rt's dump");

    let unary = bounded(
        "Check",
        client.check(HealthCheckRequest {
            service: SERVICE.to_owned(),
        }),
    )
    .await
    .unwrap();
    assert_eq!(unary.get_ref().status(), Wire::Serving);
    let unknown = bounded(
        "Check unknown",
        client.check(HealthCheckRequest {
            service: "no.such.Service".to_owned(),
        }),
    )
    .await
    .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);

    let mut watch = bounded(
        "Watch",
        client.watch(HealthCheckRequest {
            service: SERVICE.to_owned(),
        }),
    )
    .await
    .unwrap()
    .into_inner();
    let first = bounded("first update", watch.message())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.status(), Wire::Serving);
    reporter
        .set_service_status(SERVICE, ServingStatus::NotServing)
        .await;
    let second = bounded("second update", watch.message())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(second.status(), Wire::NotServing);
    reporter
        .set_service_status(SERVICE, ServingStatus::Serving)
        .await;
    let third = bounded("third update", watch.message())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(third.status(), Wire::Serving);

    drop(watch);
    drop(client);
    stop_tx.send(()).unwrap();
    bounded("server shutdown", server).await.unwrap().unwrap();
}

#[tokio::test]
async fn health_current_thread() {
    check_and_watch().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_multi_thread() {
    check_and_watch().await;
}
