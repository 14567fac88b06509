/// Pins values on the stack, in tokio's statement form: `rt::pin!(fut);`
/// moves `fut` into place and shadows it with a `Pin<&mut _>` to it, so it
/// can be polled by reference (`(&mut fut).await`, or `&mut fut` as a
/// [`select!`](crate::select!) branch that lives across loop iterations).
///
/// Several names at once: `rt::pin!(a, b);`. The declaration form pins
/// the values of expressions: `rt::pin! { let a = make_a(); let b = make_b(); }`.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let slow = rt::time::sleep(Duration::from_secs(60));
/// rt::pin!(slow);
/// for i in 0..3 {
///     // The same sleep is polled on every iteration, not a new one.
///     rt::select! {
///         _ = &mut slow => unreachable!("a minute went by"),
///         v = async { i } => assert_eq!(v, i),
///     }
/// }
///
/// rt::pin! {
///     let answer = async { 42 };
/// }
/// assert_eq!(answer.as_mut().await, 42);
/// # });
/// ```
#[macro_export]
macro_rules! pin {
    ($($name:ident),+ $(,)?) => {
        $(
            #[allow(unused_mut)]
            let mut $name = ::core::pin::pin!($name);
        )+
    };
    ($(let $name:ident = $init:expr;)+) => {
        $(
            #[allow(unused_mut)]
            let mut $name = ::core::pin::pin!($init);
        )+
    };
}
