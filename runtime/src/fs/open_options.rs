//! `OpenOptions`: how to open a [`File`].

use crate::fs::File;
use crate::fs::blocking_io::{path_error, run};
use std::io;
use std::path::Path;

/// Options for opening a [`File`], as [`std::fs::OpenOptions`]; `open` runs
/// on the blocking pool.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncWriteExt;
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-options-doc-{}", std::process::id()));
/// let mut file = rt::fs::OpenOptions::new().create(true).append(true).open(&path).await.unwrap();
/// file.write_all(b"appended").await.unwrap();
/// file.flush().await.unwrap();
/// # rt::fs::remove_file(&path).await.unwrap();
/// # });
/// ```
#[derive(Clone, Debug)]
pub struct OpenOptions(std::fs::OpenOptions);

impl OpenOptions {
    /// Options with every flag off (set at least `read` or `write`).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut options = rt::fs::OpenOptions::new();
    /// options.read(true);
    /// ```
    pub fn new() -> OpenOptions {
        OpenOptions(std::fs::OpenOptions::new())
    }

    /// Open for reading.
    ///
    /// # Examples
    ///
    /// ```
    /// rt::fs::OpenOptions::new().read(true);
    /// ```
    pub fn read(&mut self, read: bool) -> &mut OpenOptions {
        self.0.read(read);
        self
    }

    /// Open for writing.
    ///
    /// # Examples
    ///
    /// ```
    /// rt::fs::OpenOptions::new().write(true);
    /// ```
    pub fn write(&mut self, write: bool) -> &mut OpenOptions {
        self.0.write(write);
        self
    }

    /// Every write goes to the end of the file.
    ///
    /// # Examples
    ///
    /// ```
    /// rt::fs::OpenOptions::new().append(true);
    /// ```
    pub fn append(&mut self, append: bool) -> &mut OpenOptions {
        self.0.append(append);
        self
    }

    /// Truncate the file to length 0 when opening it (needs `write`).
    ///
    /// # Examples
    ///
    /// ```
    /// rt::fs::OpenOptions::new().write(true).truncate(true);
    /// ```
    pub fn truncate(&mut self, truncate: bool) -> &mut OpenOptions {
        self.0.truncate(truncate);
        self
    }

    /// Create the file if it does not exist (needs `write` or `append`).
    ///
    /// # Examples
    ///
    /// ```
    /// rt::fs::OpenOptions::new().write(true).create(true);
    /// ```
    pub fn create(&mut self, create: bool) -> &mut OpenOptions {
        self.0.create(create);
        self
    }

    /// Create the file, failing if it already exists.
    ///
    /// # Examples
    ///
    /// ```
    /// rt::fs::OpenOptions::new().write(true).create_new(true);
    /// ```
    pub fn create_new(&mut self, create_new: bool) -> &mut OpenOptions {
        self.0.create_new(create_new);
        self
    }

    /// The permission bits a file created by `open` gets (before the
    /// process's umask); `0o666` unless set.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// use std::os::unix::fs::PermissionsExt;
    /// let path = std::env::temp_dir().join(format!("rt-mode-doc-{}", std::process::id()));
    /// let file = rt::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path).await.unwrap();
    /// assert_eq!(file.metadata().await.unwrap().permissions().mode() & 0o777, 0o600);
    /// # rt::fs::remove_file(&path).await.unwrap();
    /// # });
    /// ```
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        std::os::unix::fs::OpenOptionsExt::mode(&mut self.0, mode);
        self
    }

    /// Extra `open(2)` flags (`libc::O_*`), such as `O_NOFOLLOW`; the
    /// access mode bits are ignored (set them with `read`/`write`).
    ///
    /// # Examples
    ///
    /// ```
    /// rt::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW);
    /// ```
    #[cfg(unix)]
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut self.0, flags);
        self
    }

    /// Opens `path` with these options.
    ///
    /// # Errors
    ///
    /// The error of the `open` call (for example
    /// [`NotFound`](io::ErrorKind::NotFound) or
    /// [`AlreadyExists`](io::ErrorKind::AlreadyExists)), with the path in
    /// its message.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let err = rt::fs::OpenOptions::new().read(true).open("/no/such/file").await.unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    /// assert!(err.to_string().contains("/no/such/file"));
    /// # });
    /// ```
    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let options = self.0.clone();
        let path = path.as_ref().to_owned();
        let std = run("rt::fs::OpenOptions::open", move || {
            options
                .open(&path)
                .map_err(|e| path_error("could not open", &path, e))
        })
        .await?;
        Ok(File::from_std(std))
    }
}

impl From<std::fs::OpenOptions> for OpenOptions {
    /// The same options, opening on the blocking pool.
    fn from(options: std::fs::OpenOptions) -> OpenOptions {
        OpenOptions(options)
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}
