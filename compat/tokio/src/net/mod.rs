//! TCP, UDP and Unix-domain sockets: newtypes over rt's, for tokio's I/O
//! traits and `ReadBuf`-taking `poll_*` methods.
//!
//! Each type has `From` both ways to rt's, and inherent methods (so
//! tokio's path syntax, `TcpStream::peek(&s, buf)`, works) forwarding to
//! rt's whose shape is already tokio's (addresses, options, readiness,
//! `try_*`, `async_io`, ...). Reads go straight into a `ReadBuf`'s
//! uninitialised part: nothing is zeroed or copied first. The types
//! implement tokio's traits only, not futures-io's.
//!
//! # Examples
//!
//! ```
//! use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//! use tokio::net::{TcpListener, TcpStream};
//!
//! # let rt = rt::runtime::Runtime::new().unwrap();
//! # rt.block_on(async {
//! let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
//! let addr = listener.local_addr().unwrap();
//! let server = rt::spawn(async move {
//!     let (stream, _) = listener.accept().await.unwrap();
//!     let (read, mut write) = stream.into_split();
//!     let mut lines = BufReader::new(read).lines();
//!     while let Some(line) = lines.next_line().await.unwrap() {
//!         write.write_all(format!("{line}!\n").as_bytes()).await.unwrap();
//!     }
//! });
//! let mut client = BufReader::new(TcpStream::connect(addr).await.unwrap());
//! client.get_mut().write_all(b"hi\n").await.unwrap();
//! let mut reply = String::new();
//! client.read_line(&mut reply).await.unwrap();
//! assert_eq!(reply, "hi!\n");
//! drop(client);
//! server.await.unwrap();
//! # });
//! ```

mod halves;
mod newtype;
pub mod tcp;
mod udp;
pub mod unix;

pub use rt::net::{ToSocketAddrs, lookup_host};
pub use tcp::{TcpListener, TcpSocket, TcpStream};
pub use udp::UdpSocket;
pub use unix::{UnixDatagram, UnixListener, UnixSocket, UnixStream};
