//! `#[rt::main]` on functions that take parameters (methods taking `self`
//! by reference, by mutable reference and by value; arguments; generics),
//! on the current-thread and the multi-thread runtime; and the body's `?`
//! and `return` taking the declared return type (`Box<dyn Error>`, an
//! error with `From` conversions, `impl Trait`, `!`).

use rt::runtime::{Handle, RuntimeFlavor};
use rt::task::JoinSet;
use std::error::Error;
use std::fmt::{self, Display};
use std::num::ParseIntError;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;
use std::thread::{self, ThreadId};

fn flavor() -> RuntimeFlavor {
    Handle::current().runtime_flavor()
}

/// A spawned task's thread: the caller's own on a current-thread runtime,
/// a worker on a multi-thread one.
async fn task_thread() -> ThreadId {
    rt::spawn(async { thread::current().id() }).await.unwrap()
}

struct Counter {
    count: u64,
}

impl Counter {
    #[rt::main(flavor = "current_thread")]
    async fn read_on_current_thread(&self) -> (u64, RuntimeFlavor, ThreadId) {
        let count = self.count;
        let doubled = rt::spawn(async move { count * 2 }).await.unwrap();
        (doubled, flavor(), task_thread().await)
    }

    #[rt::main(worker_threads = 2)]
    async fn read_on_multi_thread(&self) -> (u64, RuntimeFlavor, ThreadId) {
        let count = self.count;
        let doubled = rt::spawn(async move { count * 2 }).await.unwrap();
        (doubled, flavor(), task_thread().await)
    }

    #[rt::main(flavor = "current_thread")]
    async fn add_on_current_thread(&mut self, amounts: Vec<u64>) -> RuntimeFlavor {
        for amount in amounts {
            self.count += rt::spawn(async move { amount }).await.unwrap();
        }
        flavor()
    }

    #[rt::main(worker_threads = 2)]
    async fn add_on_multi_thread(&mut self, amounts: Vec<u64>) -> RuntimeFlavor {
        let mut tasks = JoinSet::new();
        for amount in amounts {
            tasks.spawn(async move { amount });
        }
        while let Some(amount) = tasks.join_next().await {
            self.count += amount.unwrap();
        }
        flavor()
    }
}

#[test]
fn methods_taking_self_by_reference() {
    let caller = thread::current().id();
    let counter = Counter { count: 21 };
    assert_eq!(
        counter.read_on_current_thread(),
        (42, RuntimeFlavor::CurrentThread, caller)
    );
    let (doubled, flavor, thread) = counter.read_on_multi_thread();
    assert_eq!((doubled, flavor), (42, RuntimeFlavor::MultiThread));
    assert_ne!(thread, caller);

    let mut counter = Counter { count: 0 };
    assert_eq!(
        counter.add_on_current_thread(vec![1, 2, 3]),
        RuntimeFlavor::CurrentThread
    );
    assert_eq!(counter.count, 6);
    assert_eq!(
        counter.add_on_multi_thread((1..=10).collect()),
        RuntimeFlavor::MultiThread
    );
    assert_eq!(counter.count, 61);
    // Each call built its own runtime and shut it down.
    assert!(Handle::try_current().is_err());
}

/// Reports, when dropped, whether a runtime was current on the dropping
/// thread.
struct DropProbe {
    inside_runtime: mpsc::Sender<bool>,
    value: u32,
}

impl Drop for DropProbe {
    fn drop(&mut self) {
        self.inside_runtime
            .send(Handle::try_current().is_ok())
            .expect("the test keeps the receiver");
    }
}

/// A trait method taking `self` by value, as in tokio's `macros_test.rs`.
trait Consume {
    fn consume(self, extra: u32) -> u32;
}

impl Consume for DropProbe {
    #[rt::main(flavor = "current_thread")]
    async fn consume(self, extra: u32) -> u32 {
        rt::task::yield_now().await;
        self.value + extra
    }
}

struct MultiThreadProbe(DropProbe);

impl Consume for MultiThreadProbe {
    #[rt::main(flavor = "multi_thread", worker_threads = 2)]
    async fn consume(self, extra: u32) -> u32 {
        let value = self.0.value;
        rt::spawn(async move { value + extra }).await.unwrap()
    }
}

/// The parameters move into the body: one taken by value is dropped when
/// the body finishes, while its runtime is still current.
#[test]
fn self_by_value_is_moved_into_the_body_and_dropped_inside_the_runtime() {
    let (tx, rx) = mpsc::channel();
    let probe = DropProbe {
        inside_runtime: tx.clone(),
        value: 40,
    };
    assert_eq!(probe.consume(2), 42);
    assert_eq!(rx.try_recv(), Ok(true));

    let probe = MultiThreadProbe(DropProbe {
        inside_runtime: tx,
        value: 1,
    });
    assert_eq!(probe.consume(1), 2);
    assert_eq!(rx.try_recv(), Ok(true));
}

// Clippy's pedantic underscore-binding lints, denied (checked by the
// workspace's clippy gate): the expansion moves `_unused` into the body
// (`let _unused = _unused;`), which they flagged in the user's code.
// Before, clippy failed here with "used underscore-prefixed binding" at
// `_unused`, and at `empty_bodies::with_a_parameter`'s `_unused: u32` also
// with "binding to `_` prefixed variable with no side-effect".
#[deny(clippy::used_underscore_binding, clippy::no_effect_underscore_binding)]
#[rt::main(flavor = "current_thread")]
async fn keep_probes_on_current_thread(
    _unused: DropProbe,
    _: DropProbe,
    (probe, offset): (DropProbe, u32),
) -> u32 {
    rt::task::yield_now().await;
    probe.value + offset
}

#[deny(clippy::used_underscore_binding, clippy::no_effect_underscore_binding)]
#[rt::main(flavor = "multi_thread", worker_threads = 2)]
async fn keep_probes_on_multi_thread(
    _unused: DropProbe,
    _: DropProbe,
    (probe, offset): (DropProbe, u32),
) -> u32 {
    let value = probe.value;
    rt::spawn(async move { value + offset }).await.unwrap()
}

/// As in an `async fn`, every parameter moves into the body, also one the
/// body never uses, `_`, and a destructured one: all are dropped inside
/// the runtime.
#[test]
fn unused_and_destructured_parameters_are_dropped_inside_the_runtime() {
    let (tx, rx) = mpsc::channel();
    let probe = |value| DropProbe {
        inside_runtime: tx.clone(),
        value,
    };
    assert_eq!(
        keep_probes_on_current_thread(probe(0), probe(0), (probe(5), 1)),
        6
    );
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), [true, true, true]);
    assert_eq!(
        keep_probes_on_multi_thread(probe(0), probe(0), (probe(7), 1)),
        8
    );
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), [true, true, true]);
}

#[rt::main(flavor = "current_thread")]
async fn sum_on_current_thread<T>(values: Vec<T>) -> u64
where
    T: Into<u64> + Send + 'static,
{
    sum(values).await
}

#[rt::main(flavor = "multi_thread", worker_threads = 2)]
async fn sum_on_multi_thread<T>(values: Vec<T>) -> u64
where
    T: Into<u64> + Send + 'static,
{
    sum(values).await
}

async fn sum<T: Into<u64> + Send + 'static>(values: Vec<T>) -> u64 {
    let mut tasks = JoinSet::new();
    for value in values {
        tasks.spawn(async move { value.into() });
    }
    let mut total = 0;
    while let Some(value) = tasks.join_next().await {
        total += value.unwrap();
    }
    total
}

#[rt::main(flavor = "current_thread")]
async fn weighted((a, b): (u64, u64), mut weight: u64) -> u64 {
    weight += rt::spawn(async { 1 }).await.unwrap();
    a * weight + b
}

#[test]
fn functions_with_arguments_and_generics() {
    assert_eq!(sum_on_current_thread(vec![1u8, 2, 3]), 6);
    assert_eq!(sum_on_multi_thread((1u32..=100).collect()), 5050);
    assert_eq!(weighted((2, 3), 4), 13);
}

#[rt::main(flavor = "current_thread")]
async fn parse_doubled(input: &str) -> Result<u32, Box<dyn Error>> {
    if input.is_empty() {
        return Err("empty input".into());
    }
    let parsed: u32 = input.parse()?;
    let doubled = rt::spawn(async move { parsed * 2 }).await?;
    Ok(doubled)
}

#[derive(Debug, PartialEq)]
enum AppError {
    Parse(ParseIntError),
    Task(String),
    TooLarge(u32),
}

impl From<ParseIntError> for AppError {
    fn from(error: ParseIntError) -> Self {
        AppError::Parse(error)
    }
}

impl From<rt::task::JoinError> for AppError {
    fn from(error: rt::task::JoinError) -> Self {
        AppError::Task(error.to_string())
    }
}

#[rt::main(flavor = "multi_thread", worker_threads = 2)]
async fn parse_checked(input: &str, limit: u32) -> Result<u32, AppError> {
    let parsed = input.parse::<u32>()?;
    let value = rt::spawn(async move { parsed + 1 }).await?;
    if value > limit {
        return Err(AppError::TooLarge(value));
    }
    Ok(value)
}

/// `?` converts into the declared error type and `return` takes it, on
/// both schedulers, as in an `async fn` of that signature.
#[test]
fn question_mark_and_return_take_the_declared_type() {
    assert_eq!(parse_doubled("21").unwrap(), 42);
    assert_eq!(parse_doubled("").unwrap_err().to_string(), "empty input");
    assert_eq!(
        parse_doubled("x").unwrap_err().to_string(),
        "x".parse::<u32>().unwrap_err().to_string()
    );

    assert_eq!(parse_checked("9", 100), Ok(10));
    assert_eq!(parse_checked("100", 100), Err(AppError::TooLarge(101)));
    assert_eq!(
        parse_checked("-1", 100),
        Err(AppError::Parse("-1".parse::<u32>().unwrap_err()))
    );
}

struct Report(u32);

impl Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "report {}", self.0)
    }
}

#[rt::main(flavor = "current_thread")]
async fn report_on_current_thread(value: u32) -> impl Display {
    Report(rt::spawn(async move { value }).await.unwrap())
}

#[rt::main(flavor = "multi_thread", worker_threads = 2)]
async fn report_on_multi_thread(value: u32) -> impl Display {
    Report(rt::spawn(async move { value }).await.unwrap())
}

#[test]
fn impl_trait_return_is_inferred_from_the_body() {
    assert_eq!(report_on_current_thread(1).to_string(), "report 1");
    assert_eq!(report_on_multi_thread(2).to_string(), "report 2");
}

#[rt::main(flavor = "current_thread")]
async fn diverge_on_current_thread(message: &'static str) -> ! {
    rt::task::yield_now().await;
    panic!("{message}");
}

#[rt::main(flavor = "multi_thread", worker_threads = 2)]
async fn diverge_on_multi_thread(message: &'static str) -> ! {
    rt::spawn(async {}).await.unwrap();
    panic!("{message}");
}

fn panic_message(run: impl FnOnce()) -> String {
    let payload = panic::catch_unwind(AssertUnwindSafe(run)).expect_err("the function returned");
    payload
        .downcast_ref::<String>()
        .cloned()
        .expect("a formatted panic message")
}

/// `-> !`: the body's panic unwinds out of the function.
#[test]
fn never_returning_function_panics_out_of_the_body() {
    assert_eq!(
        panic_message(|| diverge_on_current_thread("gone on current_thread")),
        "gone on current_thread"
    );
    assert_eq!(
        panic_message(|| diverge_on_multi_thread("gone on multi_thread")),
        "gone on multi_thread"
    );
    assert!(Handle::try_current().is_err());
}

mod imported_by_name {
    // tokio's `test_macro_can_be_used_via_use`: `#[test]` is rt's here.
    use rt::test;

    #[test]
    async fn test_attribute_imported_with_use() {
        let flavor = rt::runtime::Handle::current().runtime_flavor();
        assert_eq!(flavor, rt::runtime::RuntimeFlavor::CurrentThread);
        rt::spawn(async {}).await.unwrap();
    }
}

/// Empty bodies (tokio's macros_test.rs
/// `clippy_semicolon_if_nothing_returned`). The expansion must not trip
/// clippy lints in the user's code; the workspace's clippy gate (`-D
/// warnings`, all targets) checks this module, where clippy's pedantic
/// `semicolon_if_nothing_returned` is denied. It fired here: the statement
/// that fixes the body's output type (an `if let` spanned at the user's
/// `)`) was the tail of an empty body.
mod empty_bodies {
    #![deny(clippy::semicolon_if_nothing_returned)]
    // See `keep_probes_on_current_thread`.
    #![deny(clippy::used_underscore_binding, clippy::no_effect_underscore_binding)]

    #[rt::main]
    pub(super) async fn on_multi_thread() {
        // Only a comment: the lint needs a body that spans lines.
    }

    #[rt::main(flavor = "current_thread")]
    pub(super) async fn with_a_parameter(_unused: u32) {
        // As above, after the parameter is moved into the body.
    }

    #[rt::test]
    async fn test_with_an_empty_body() {
        // Nothing to do.
    }
}

#[test]
fn empty_bodies_run() {
    empty_bodies::on_multi_thread();
    empty_bodies::with_a_parameter(1);
    assert!(Handle::try_current().is_err());
}

/// A `_`-prefixed parameter is still the body's to use, `mut` included.
#[allow(clippy::used_underscore_binding)]
#[rt::main(flavor = "current_thread")]
async fn underscore_parameters_in_use(_first: u32, mut _second: u32) -> u32 {
    _second += 1;
    _first + _second
}

#[test]
fn underscore_parameters_reach_the_body() {
    assert_eq!(underscore_parameters_in_use(1, 2), 4);
}
