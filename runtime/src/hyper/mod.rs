//! hyper on rt (feature `hyper`): the I/O, executor and timer traits hyper
//! 1.x asks of a runtime, so hyper, hyper-util and everything built on them
//! (axum, tonic's transport, ...) serve and connect on rt.
//!
//! - [`Io`] wraps rt's own streams ([`TcpStream`](crate::net::TcpStream),
//!   [`UnixStream`](crate::net::UnixStream)): reads go straight from the
//!   kernel into hyper's uninitialised read buffer, and hyper's vectored
//!   writes (a response's head and body) go out as one `writev`.
//! - [`Compat`] wraps any other `futures-io` stream (a TLS stream, a test
//!   double), at the cost of zeroing hyper's read buffer before each read.
//! - [`Executor`] spawns hyper's background tasks (HTTP/2 streams, the
//!   connection tasks of hyper-util's builders) on the current runtime.
//! - [`Timer`] runs hyper's timeouts (header read timeout, keep-alive
//!   pings) on rt's timer wheel, and follows rt's paused test clock.
//!
//! axum's own `axum::serve` needs tokio's listener; on rt, accept with
//! [`TcpListener`](crate::net::TcpListener) and serve each connection with
//! hyper-util's `server::conn::auto::Builder` (or hyper's `http1`/`http2`
//! builders), passing the router as the service (see
//! `runtime/examples/axum_app.rs`).
//!
//! # Examples
//!
//! An HTTP/1.1 server and client on one runtime:
//!
//! ```
//! use http_body_util::{BodyExt, Empty, Full};
//! use hyper::body::Bytes;
//! use hyper::service::service_fn;
//! use rt::hyper::{Io, Timer};
//!
//! let rt = rt::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
//!     let addr = listener.local_addr().unwrap();
//!     rt::spawn(async move {
//!         let (stream, _) = listener.accept().await.unwrap();
//!         let hello = service_fn(|_request| async {
//!             Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(Bytes::from("hello"))))
//!         });
//!         hyper::server::conn::http1::Builder::new()
//!             .timer(Timer::new())
//!             .serve_connection(Io::new(stream), hello)
//!             .await
//!             .unwrap();
//!     });
//!
//!     let stream = rt::net::TcpStream::connect(addr).await.unwrap();
//!     let (mut sender, connection) = hyper::client::conn::http1::handshake(Io::new(stream)).await.unwrap();
//!     rt::spawn(connection);
//!     let request = hyper::Request::get("/").body(Empty::<Bytes>::new()).unwrap();
//!     let response = sender.send_request(request).await.unwrap();
//!     let body = response.into_body().collect().await.unwrap().to_bytes();
//!     assert_eq!(body, "hello");
//! });
//! ```

mod compat;
mod executor;
mod io;
mod timer;

pub use compat::Compat;
pub use executor::Executor;
pub use io::{Io, Socket};
pub use timer::Timer;
