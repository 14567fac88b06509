//! `File::set_max_buf_size` / `max_buf_size`: how much one read or write
//! of the `AsyncRead` / `AsyncWrite` impls moves, as in tokio.

use super::File;

impl File {
    /// Sets the most one `poll_read` or `poll_write` moves (default 2 MiB):
    /// a read asks the OS for at most this much (what is read ahead beyond
    /// the caller's buffer is kept for the next read), a write copies at
    /// most this much into the file's buffer and returns that count, so
    /// `write_all` of a larger buffer goes out in pieces of this size. A
    /// larger size means fewer trips to the blocking pool and more memory
    /// per file. [`read_to_end`](File::read_to_end) keeps its own 2 MiB
    /// chunks in one blocking job.
    ///
    /// # Panics
    ///
    /// Panics if `max_buf_size` is 0.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::AsyncWriteExt;
    ///
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-max-buf-doc-{}", std::process::id()));
    /// let mut file = rt::fs::File::create(&path).await.unwrap();
    /// file.set_max_buf_size(4);
    /// assert_eq!(file.max_buf_size(), 4);
    /// // One write takes at most 4 bytes.
    /// assert_eq!(file.write(b"123456").await.unwrap(), 4);
    /// file.write_all(b"56").await.unwrap();
    /// file.flush().await.unwrap();
    /// assert_eq!(std::fs::read(&path).unwrap(), b"123456");
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    #[track_caller]
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        assert!(
            max_buf_size > 0,
            "`File::set_max_buf_size` needs at least 1 byte"
        );
        self.max_buf = max_buf_size;
    }

    /// The most one `poll_read` or `poll_write` moves; see
    /// [`set_max_buf_size`](File::set_max_buf_size).
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let file = rt::fs::File::open("Cargo.toml").await.unwrap();
    /// assert_eq!(file.max_buf_size(), 2 * 1024 * 1024);
    /// # });
    /// ```
    pub fn max_buf_size(&self) -> usize {
        self.max_buf
    }
}
