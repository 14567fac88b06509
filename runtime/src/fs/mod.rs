//! Asynchronous file-system operations.
//!
//! The operating system offers no portable non-blocking file I/O, so each
//! operation runs on the runtime's blocking pool (see
//! [`spawn_blocking`](crate::task::spawn_blocking)) and the calling task
//! waits without blocking its worker. Large transfers are split into
//! chunks of at most 2 MiB, one blocking call each, so a 1 GiB read does
//! not hold a pool thread for its whole length and stops soon after its
//! future is dropped.
//!
//! Errors are the `std::io::Error`s of the underlying calls, with the same
//! [`ErrorKind`](std::io::ErrorKind); those of path-based operations carry
//! the path in their message (the original error is their
//! [`source`](std::error::Error::source)).
//!
//! These functions must run inside a runtime (in a task or `block_on`).
//!
//! # Examples
//!
//! ```
//! let rt = rt::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let dir = std::env::temp_dir().join(format!("rt-fs-doc-{}", std::process::id()));
//!     rt::fs::create_dir_all(&dir).await.unwrap();
//!     let path = dir.join("hello.txt");
//!     rt::fs::write(&path, "hello").await.unwrap();
//!     assert_eq!(rt::fs::read_to_string(&path).await.unwrap(), "hello");
//!     rt::fs::remove_dir_all(&dir).await.unwrap();
//! });
//! ```

mod blocking_io;
mod dir_builder;
mod file;
mod links;
mod open_options;
mod ops;
mod read_dir;

pub use dir_builder::DirBuilder;
pub use file::File;
#[cfg(unix)]
pub use links::symlink;
pub use links::{hard_link, read_link, symlink_metadata};
pub use open_options::OpenOptions;
pub use ops::{
    canonicalize, copy, create_dir, create_dir_all, metadata, read, read_to_string, remove_dir,
    remove_dir_all, remove_file, rename, set_permissions, try_exists, write,
};
pub use read_dir::{DirEntry, ReadDir, read_dir};
/// The times [`File::set_times`] sets: `std`'s type (`new`,
/// `set_accessed`, `set_modified`), which is the shape of tokio's
/// `fs::FileTimes`.
pub use std::fs::FileTimes;
