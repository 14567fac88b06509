/// Runs several futures concurrently on the current task and waits for
/// all of them: `join!(a, b, c)` evaluates to `(a_output, b_output,
/// c_output)`.
///
/// The futures run in the calling task, interleaved, not in parallel: use
/// [`spawn`](crate::spawn) for parallelism. Any
/// [`IntoFuture`](std::future::IntoFuture) works, `Unpin` or not. Each
/// poll starts one future later than the previous poll did, so a future
/// that is always ready cannot starve the others, and a poll made with the
/// task's cooperative budget spent yields. `join!()` is `()`.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let slow = async {
///     rt::time::sleep(Duration::from_millis(5)).await;
///     "slow"
/// };
/// let fast = async { 1 + 1 };
/// let (a, b) = rt::join!(slow, fast);
/// assert_eq!((a, b), ("slow", 2));
/// # });
/// ```
#[macro_export]
macro_rules! join {
    ($($input:tt)*) => {
        $crate::macros::support::join! { $crate; $($input)* }
    };
}

/// Runs several fallible futures concurrently on the current task:
/// `try_join!(a, b)` is `Ok((a_value, b_value))` when every future returns
/// `Ok`, or the first `Err` as soon as one returns it, dropping (cancelling)
/// the futures that have not finished.
///
/// Every future must return a `Result` with the same error type (convert
/// with `map_err` where they differ). Polling is interleaved as in
/// [`join!`](crate::join!). `try_join!()` is `Ok(())`.
///
/// # Examples
///
/// ```
/// use std::io;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// async fn parse(s: &str) -> Result<u32, std::num::ParseIntError> {
///     s.parse()
/// }
/// assert_eq!(rt::try_join!(parse("1"), parse("2")), Ok((1, 2)));
/// assert!(rt::try_join!(parse("1"), parse("x")).is_err());
///
/// // The error ends the join at once; the pending future is dropped.
/// let never = std::future::pending::<io::Result<()>>();
/// let fail = async { Err::<(), _>(io::Error::other("boom")) };
/// let err = rt::try_join!(never, fail).unwrap_err();
/// assert_eq!(err.to_string(), "boom");
/// # });
/// ```
#[macro_export]
macro_rules! try_join {
    ($($input:tt)*) => {
        $crate::macros::support::try_join! { $crate; $($input)* }
    };
}
