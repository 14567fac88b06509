//! OpenTelemetry on rt through the facade, as a service exports its
//! telemetry: opentelemetry_sdk's async-runtime batch span processor and
//! periodic metric reader (`runtime::Tokio`: their loops are facade tasks
//! and timers) export through opentelemetry-otlp's gRPC (tonic) exporters
//! to a collector served in the test (opentelemetry-proto's generated
//! tonic services) over loopback. The spans and the counter's values
//! arrive; `force_flush` and `shutdown` return Ok (they block until the
//! processor's task answers, so they are called from `spawn_blocking`, as
//! on tokio); the periodic reader also exports on its own interval. Both
//! schedulers.

use opentelemetry::KeyValue;
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::{Tracer as _, TracerProvider as _};
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server::{
    MetricsService, MetricsServiceServer,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::metrics::periodic_reader_with_async_runtime::PeriodicReader;
use opentelemetry_sdk::runtime;
use opentelemetry_sdk::trace::span_processor_with_async_runtime::BatchSpanProcessor;
use opentelemetry_sdk::trace::{BatchConfigBuilder, SdkTracerProvider};
use rt_ecosystem_tests::{assert_rt_runs, bounded};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::TcpListenerStream;

const COUNTER: &str = "rt.requests";

/// The collector's side: every span name received, and each metrics
/// export as the value of `COUNTER` in it (`None` when it is absent).
#[derive(Clone)]
struct Collector {
    spans: Arc<Mutex<Vec<String>>>,
    metric_exports: mpsc::UnboundedSender<Option<i64>>,
}

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let mut spans = self.spans.lock().unwrap();
        for resource in request.into_inner().resource_spans {
            for scope in resource.scope_spans {
                spans.extend(scope.spans.into_iter().map(|span| span.name));
            }
        }
        Ok(tonic::Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

#[tonic::async_trait]
impl MetricsService for Collector {
    async fn export(
        &self,
        request: tonic::Request<ExportMetricsServiceRequest>,
    ) -> Result<tonic::Response<ExportMetricsServiceResponse>, tonic::Status> {
        let value = request
            .into_inner()
            .resource_metrics
            .into_iter()
            .flat_map(|resource| resource.scope_metrics)
            .flat_map(|scope| scope.metrics)
            .filter(|metric| metric.name == COUNTER)
            .find_map(|metric| match metric.data {
                Some(Data::Sum(sum)) => {
                    sum.data_points.first().and_then(|point| match point.value {
                        Some(Value::AsInt(value)) => Some(value),
                        _ => None,
                    })
                }
                _ => None,
            });
        // The test may have stopped listening (an export at shutdown).
        let _ = self.metric_exports.send(value);
        Ok(tonic::Response::new(ExportMetricsServiceResponse {
            partial_success: None,
        }))
    }
}

struct Running {
    endpoint: String,
    spans: Arc<Mutex<Vec<String>>>,
    metric_exports: mpsc::UnboundedReceiver<Option<i64>>,
    stop: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<Result<(), tonic::transport::Error>>,
}

impl Running {
    async fn stop(self) {
        self.stop.send(()).unwrap();
        bounded("collector shutdown", self.server)
            .await
            .unwrap()
            .unwrap();
    }
}

async fn collector() -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (exports_tx, exports_rx) = mpsc::unbounded_channel();
    let collector = Collector {
        spans: Arc::default(),
        metric_exports: exports_tx,
    };
    let spans = collector.spans.clone();
    let (stop, stop_rx) = oneshot::channel::<()>();
    let server = tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(collector.clone()))
            .add_service(MetricsServiceServer::new(collector))
            .serve_with_incoming_shutdown(TcpListenerStream::new(listener), async {
                let _ = stop_rx.await;
            }),
    );
    assert_rt_runs(server.id());
    Running {
        endpoint: format!("http://{addr}"),
        spans,
        metric_exports: exports_rx,
        stop,
        server,
    }
}

/// Calls a blocking `force_flush` or `shutdown` off the runtime's threads.
async fn blocking<T: Send + 'static>(what: &str, call: impl FnOnce() -> T + Send + 'static) -> T {
    bounded(what, tokio::task::spawn_blocking(call))
        .await
        .unwrap()
}

fn span_names(range: std::ops::Range<usize>) -> Vec<String> {
    let mut names: Vec<String> = range.map(|i| format!("span {i}")).collect();
    names.sort();
    names
}

fn received(spans: &Mutex<Vec<String>>) -> Vec<String> {
    let mut names = spans.lock().unwrap().clone();
    names.sort();
    names
}

async fn batch_spans() {
    let collector = collector().await;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(&collector.endpoint)
        .build()
        .unwrap();
    // Small batches: several exports per flush.
    let processor = BatchSpanProcessor::builder(exporter, runtime::Tokio)
        .with_batch_config(
            BatchConfigBuilder::default()
                .with_max_export_batch_size(16)
                .build(),
        )
        .build();
    let provider = SdkTracerProvider::builder()
        .with_span_processor(processor)
        .build();

    // Spans ended on several rt tasks.
    let mut tasks = tokio::task::JoinSet::new();
    for task in 0..4 {
        let tracer = provider.tracer("rt-ecosystem-tests");
        tasks.spawn(async move {
            for i in task * 25..(task + 1) * 25 {
                tracer.in_span(format!("span {i}"), |_| {});
                tokio::task::yield_now().await;
            }
        });
    }
    while let Some(result) = tasks.join_next().await {
        result.unwrap();
    }
    let flushing = provider.clone();
    blocking("force_flush", move || flushing.force_flush())
        .await
        .unwrap();
    assert_eq!(received(&collector.spans), span_names(0..100));

    // Shutdown exports what is still queued.
    let tracer = provider.tracer("rt-ecosystem-tests");
    for i in 100..110 {
        tracer.in_span(format!("span {i}"), |_| {});
    }
    blocking("shutdown", move || provider.shutdown())
        .await
        .unwrap();
    assert_eq!(received(&collector.spans), span_names(0..110));
    collector.stop().await;
}

/// The last export the collector has answered: `force_flush` and
/// `shutdown` return after their export's response, and the reader's
/// first interval tick may have exported before them.
fn latest(exports: &mut mpsc::UnboundedReceiver<Option<i64>>) -> Option<i64> {
    let mut latest = None;
    while let Ok(value) = exports.try_recv() {
        latest = Some(value);
    }
    latest.expect("no metrics export arrived")
}

fn meter_provider(endpoint: &str, interval: Duration) -> SdkMeterProvider {
    let exporter = opentelemetry_otlp::MetricExporter::builder()
        .with_tonic()
        .with_endpoint(endpoint)
        .build()
        .unwrap();
    let reader = PeriodicReader::builder(exporter, runtime::Tokio)
        .with_interval(interval)
        .build();
    SdkMeterProvider::builder().with_reader(reader).build()
}

/// `force_flush` and `shutdown` each export the counter's cumulative sum
/// (the interval is an hour: its only tick comes at the start).
async fn metrics_on_flush() {
    let mut collector = collector().await;
    let provider = meter_provider(&collector.endpoint, Duration::from_secs(3600));
    let counter = provider
        .meter("rt-ecosystem-tests")
        .u64_counter(COUNTER)
        .build();
    counter.add(1, &[KeyValue::new("route", "/")]);
    counter.add(2, &[KeyValue::new("route", "/")]);
    let flushing = provider.clone();
    blocking("force_flush", move || flushing.force_flush())
        .await
        .unwrap();
    assert_eq!(latest(&mut collector.metric_exports), Some(3));

    counter.add(4, &[KeyValue::new("route", "/")]);
    blocking("shutdown", move || provider.shutdown())
        .await
        .unwrap();
    assert_eq!(latest(&mut collector.metric_exports), Some(7));
    collector.stop().await;
}

/// The reader's own timer: an export arrives with no flush. (A real
/// clock: the export is real network I/O, which a paused clock's
/// auto-advance would race with the exporter's timeout.)
async fn metrics_on_interval() {
    let mut collector = collector().await;
    let provider = meter_provider(&collector.endpoint, Duration::from_millis(50));
    let counter = provider
        .meter("rt-ecosystem-tests")
        .u64_counter(COUNTER)
        .build();
    counter.add(5, &[]);
    let exported = bounded("an export on the interval", async {
        loop {
            if let Some(value) = collector.metric_exports.recv().await.unwrap() {
                return value;
            }
        }
    })
    .await;
    assert_eq!(exported, 5);
    blocking("shutdown", move || provider.shutdown())
        .await
        .unwrap();
    collector.stop().await;
}

#[tokio::test]
async fn batch_spans_current_thread() {
    batch_spans().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_spans_multi_thread() {
    batch_spans().await;
}

#[tokio::test]
async fn metrics_on_flush_current_thread() {
    metrics_on_flush().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_on_flush_multi_thread() {
    metrics_on_flush().await;
}

#[tokio::test]
async fn metrics_on_interval_current_thread() {
    metrics_on_interval().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_on_interval_multi_thread() {
    metrics_on_interval().await;
}
