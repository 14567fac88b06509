//! `Executor`: hyper's background tasks as rt tasks.

use std::future::Future;

/// Runs the futures hyper hands off (HTTP/2 stream tasks, the connection
/// tasks of hyper-util's builders and client pool) as tasks on the current
/// rt runtime, as [`rt::spawn`](crate::spawn) does.
///
/// The runtime is the one current where hyper calls it, which is where the
/// connection is polled: an rt task, or `block_on`.
///
/// # Panics
///
/// hyper's call panics outside an rt runtime (see
/// [`rt::spawn`](crate::spawn)).
///
/// # Examples
///
/// An HTTP/2 connection needs an executor on both sides:
///
/// ```
/// use http_body_util::{BodyExt, Empty, Full};
/// use hyper::body::Bytes;
/// use hyper::service::service_fn;
/// use rt::hyper::{Executor, Io};
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let (client, server) = rt::net::UnixStream::pair().unwrap();
///     rt::spawn(async move {
///         let hello = service_fn(|_request| async {
///             Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(Bytes::from("h2"))))
///         });
///         hyper::server::conn::http2::Builder::new(Executor::new())
///             .serve_connection(Io::new(server), hello)
///             .await
///             .unwrap();
///     });
///     let (mut sender, connection) =
///         hyper::client::conn::http2::handshake(Executor::new(), Io::new(client)).await.unwrap();
///     rt::spawn(connection);
///     let request = hyper::Request::get("http://localhost/").body(Empty::<Bytes>::new()).unwrap();
///     let response = sender.send_request(request).await.unwrap();
///     assert_eq!(response.version(), hyper::Version::HTTP_2);
///     assert_eq!(response.into_body().collect().await.unwrap().to_bytes(), "h2");
/// });
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Executor {
    _private: (),
}

impl Executor {
    /// An executor spawning on whichever rt runtime is current when hyper
    /// hands it a future.
    ///
    /// # Examples
    ///
    /// ```
    /// let _builder = hyper::server::conn::http2::Builder::new(rt::hyper::Executor::new());
    /// ```
    pub fn new() -> Executor {
        Executor { _private: () }
    }
}

impl<F> ::hyper::rt::Executor<F> for Executor
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    #[track_caller]
    fn execute(&self, future: F) {
        // Detached: hyper tracks the task's end through its own channels.
        drop(crate::spawn(future));
    }
}
