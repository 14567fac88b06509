/// Waits on several futures at once and runs the handler of the first one
/// to finish whose output matches its pattern; the other futures are
/// dropped (cancelled) before that handler runs.
///
/// ```text
/// rt::select! {
///     [biased;]
///     <pattern> = <future> [, if <precondition>] => <handler>,
///     ...
///     [else => <handler>]
/// }
/// ```
///
/// The syntax and the semantics are tokio's:
///
/// 1. Every `<precondition>` is evaluated first; a false one disables its
///    branch for this `select!`.
/// 2. Every `<future>` is evaluated (disabled branches' too, though they
///    are never polled) and pinned in place. A branch may be any
///    [`IntoFuture`](std::future::IntoFuture): no `.fuse()`, no
///    `Unpin` bound. To keep a future across loop iterations, pin it
///    outside the loop with [`pin!`](crate::pin!) and give `&mut fut`.
/// 3. The enabled futures are polled, starting at a random branch each
///    time (so no branch starves the others), or in the order written
///    when the first token is `biased;`.
/// 4. When a future finishes, its output is matched against its
///    `<pattern>`. A mismatch disables the branch and the others go on.
///    A match drops every other future, then binds the pattern and
///    evaluates `<handler>`: the value of `select!` is the handler's.
///    Handlers run in the enclosing function, so `?`, `return`, `break`
///    and `continue` in a handler act there.
/// 5. When every branch is disabled, the `else` handler runs; without an
///    `else`, `select!` panics.
///
/// At most 64 branches. Each poll checks the task's cooperative budget
/// first, so a loop of `select!`s over futures that are always ready still
/// lets other tasks run.
///
/// # Cancellation
///
/// A branch that loses is dropped in the middle of whatever it was doing.
/// That is harmless for futures that are *cancel safe* (nothing is lost if
/// they are dropped before finishing): [`Sleep`](crate::time::Sleep), a
/// [`JoinHandle`](crate::task::JoinHandle) (dropping it detaches the
/// task), [`Notified`](crate::sync::Notified), `mpsc` `recv()`, a
/// socket's `accept()`/`read()`/`recv_from()`. It is not harmless for a
/// future that has consumed input it has not handed back yet, such as
/// `read_exact` or `read_line` halfway through (the bytes read so far are
/// lost): keep those out of a loop of `select!`s, or pin them outside it.
///
/// # Panics
///
/// Panics when every branch is disabled and there is no `else` branch.
///
/// # Examples
///
/// The first of two channels to deliver wins; the other `recv()` is
/// dropped:
///
/// ```
/// use rt::sync::mpsc;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (tx1, mut rx1) = mpsc::channel::<u32>(1);
/// let (_tx2, mut rx2) = mpsc::channel::<u32>(1);
/// tx1.send(7).await.unwrap();
/// let got = rt::select! {
///     Some(v) = rx1.recv() => v,
///     Some(v) = rx2.recv() => v + 100,
/// };
/// assert_eq!(got, 7);
/// # });
/// ```
///
/// A loop over two channels that skips a closed one (its `None` does not
/// match `Some(v)`, or its precondition turns false) and ends with `else`
/// once both are done; `biased;` polls the numbers first:
///
/// ```
/// use rt::sync::mpsc;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let (tx, mut numbers) = mpsc::channel(8);
/// let (words_tx, mut words) = mpsc::channel::<String>(8);
/// drop(words_tx);
/// rt::spawn(async move {
///     for i in 0..3 {
///         tx.send(i).await.unwrap();
///     }
/// });
/// let mut sum = 0;
/// let mut numbers_open = true;
/// loop {
///     rt::select! {
///         biased;
///         n = numbers.recv(), if numbers_open => match n {
///             Some(n) => sum += n,
///             None => numbers_open = false,
///         },
///         Some(word) = words.recv() => println!("{word}"),
///         else => break,
///     }
/// }
/// assert_eq!(sum, 3);
/// # });
/// ```
#[macro_export]
macro_rules! select {
    ($($input:tt)*) => {
        $crate::macros::support::select! { $crate; $($input)* }
    };
}
