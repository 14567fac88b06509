//! `File::seek`: a seek that is never mistaken for one a dropped future
//! left in flight.
//!
//! `poll_seek` cannot tell a seek future polled again from a new one for
//! the same target, so it takes a seek in flight for the same target as
//! the caller's own. For an absolute target that is harmless; for a
//! relative one (`SeekFrom::Current(5)` after a dropped
//! `SeekFrom::Current(5)`) the new seek would be lost. This future, like
//! tokio's seek (`poll_complete` before `start_seek`), first waits for the
//! operation in flight, so what it starts is its own.

use super::File;
use futures_io::AsyncSeek;
use std::future::poll_fn;
use std::io::{self, SeekFrom};
use std::pin::Pin;

impl File {
    /// Seeks to `pos` after the operation in flight; returns the new
    /// position from the start of the file. Shadows
    /// [`AsyncSeekExt::seek`](crate::io::AsyncSeekExt::seek) on `File`.
    ///
    /// Dropping the future after its seek started does not undo it: the
    /// position moves, and the next operation waits for it. A later
    /// `seek` is a seek of its own, also for the same relative target
    /// (where a bare [`poll_seek`](AsyncSeek::poll_seek) would take the
    /// dropped seek's result for its own).
    ///
    /// # Errors
    ///
    /// The error of a buffered write, or of the `lseek` call (a negative
    /// position, a file that cannot seek).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncReadExt;
    /// use std::io::SeekFrom;
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let mut file = rt::fs::File::open("Cargo.toml").await.unwrap();
    /// assert_eq!(file.seek(SeekFrom::Start(1)).await.unwrap(), 1);
    /// assert_eq!(file.seek(SeekFrom::Current(1)).await.unwrap(), 2);
    /// let mut next = [0; 6];
    /// file.read_exact(&mut next).await.unwrap();
    /// assert_eq!(&next, b"ackage");
    /// # });
    /// ```
    pub async fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.finish_writes().await?;
        poll_fn(|cx| Pin::new(&mut *self).poll_seek(cx, pos)).await
    }
}
