//! [`OpenOptions`]: rt's, in a newtype whose `open` gives the facade's
//! [`File`].

use super::File;
use std::io;
use std::path::Path;

/// Options for opening a file; `open` gives the facade's [`File`]. A
/// newtype over `rt::fs::OpenOptions`, whose setters it forwards.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let path = std::env::temp_dir().join(format!("facade-opts-{}", std::process::id()));
/// let file = tokio::fs::OpenOptions::new()
///     .write(true)
///     .create(true)
///     .truncate(true)
///     .open(&path)
///     .await
///     .unwrap();
/// # drop(file);
/// tokio::fs::remove_file(&path).await.unwrap();
/// # });
/// ```
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    inner: rt::fs::OpenOptions,
}

impl From<rt::fs::OpenOptions> for OpenOptions {
    fn from(inner: rt::fs::OpenOptions) -> OpenOptions {
        OpenOptions { inner }
    }
}

/// Starts from `std`'s options (with any `OpenOptionsExt` flags set on
/// them), as tokio's `From` does.
impl From<std::fs::OpenOptions> for OpenOptions {
    fn from(options: std::fs::OpenOptions) -> OpenOptions {
        OpenOptions::from(rt::fs::OpenOptions::from(options))
    }
}

impl From<OpenOptions> for rt::fs::OpenOptions {
    fn from(options: OpenOptions) -> rt::fs::OpenOptions {
        options.inner
    }
}

/// Setters that forward to rt's and return `&mut Self`.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {$(
        $(#[$doc])*
        pub fn $name(&mut self, value: $ty) -> &mut OpenOptions {
            self.inner.$name(value);
            self
        }
    )*};
}

impl OpenOptions {
    /// No access, nothing created.
    pub fn new() -> OpenOptions {
        OpenOptions {
            inner: rt::fs::OpenOptions::new(),
        }
    }

    setters! {
        /// Opens for reading.
        read: bool;
        /// Opens for writing.
        write: bool;
        /// Writes go to the end of the file.
        append: bool;
        /// Truncates the file to 0 bytes on opening.
        truncate: bool;
        /// Creates the file if it does not exist.
        create: bool;
        /// Creates the file, failing if it exists.
        create_new: bool;
        /// The permission bits a created file gets (before the umask).
        mode: u32;
        /// Extra `open(2)` flags.
        custom_flags: i32;
    }

    /// Opens `path` with these options.
    ///
    /// # Errors
    ///
    /// The OS error of `open`.
    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        self.inner
            .open(path)
            .await
            .map(File::from)
            .map_err(crate::os_error::os_error)
    }
}
