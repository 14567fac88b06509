//! How many bytes one `poll_read` or `poll_write` of a [`File`] moves
//! through the blocking pool: tokio's `set_max_buf_size`/`max_buf_size`.

use super::File;

impl File {
    /// The most one read or write moves (2 MiB unless set): a read asks
    /// the OS for at most this many bytes, a write takes at most this many
    /// of its buffer.
    ///
    /// # Examples
    ///
    /// ```
    /// let std = std::fs::File::open("Cargo.toml").unwrap();
    /// let file = rt::fs::File::from_std(std);
    /// assert_eq!(file.max_buf_size(), 2 * 1024 * 1024);
    /// ```
    pub fn max_buf_size(&self) -> usize {
        self.max_buf_size
    }

    /// Sets the most one read or write moves.
    ///
    /// # Panics
    ///
    /// If `max_buf_size` is 0: no read or write could move anything.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::io::{AsyncReadExt, AsyncWriteExt};
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let path = std::env::temp_dir().join(format!("rt-buf-size-{}", std::process::id()));
    ///     let mut file = rt::fs::File::create(&path).await.unwrap();
    ///     file.set_max_buf_size(2);
    ///     // One write takes at most two bytes.
    ///     assert_eq!(file.write(b"abc").await.unwrap(), 2);
    ///     file.flush().await.unwrap();
    ///     let mut file = rt::fs::File::open(&path).await.unwrap();
    ///     file.set_max_buf_size(1);
    ///     assert_eq!(file.read(&mut [0; 8]).await.unwrap(), 1);
    ///     rt::fs::remove_file(&path).await.unwrap();
    /// });
    /// ```
    #[track_caller]
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        assert!(
            max_buf_size > 0,
            "rt: File::set_max_buf_size(0) would let no read or write move a byte; give at least 1"
        );
        self.max_buf_size = max_buf_size;
    }
}
