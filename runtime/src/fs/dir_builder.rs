//! `DirBuilder`: `create_dir` with options (parents too, permission bits),
//! run on the blocking pool like the rest of `rt::fs`.

use crate::fs::blocking_io::{path_error, run};
use std::io;
use std::path::Path;

/// Creates directories with options: [`recursive`](DirBuilder::recursive)
/// to create missing parents, [`mode`](DirBuilder::mode) for the
/// permission bits. [`create_dir`](crate::fs::create_dir) and
/// [`create_dir_all`](crate::fs::create_dir_all) are its two common cases.
///
/// # Examples
///
/// ```
/// use std::os::unix::fs::PermissionsExt;
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let dir = std::env::temp_dir().join(format!("rt-dir-builder-doc-{}", std::process::id()));
/// rt::fs::DirBuilder::new()
///     .recursive(true)
///     .mode(0o700)
///     .create(dir.join("a/b"))
///     .await
///     .unwrap();
/// let mode = rt::fs::metadata(dir.join("a/b")).await.unwrap().permissions().mode();
/// assert_eq!(mode & 0o777, 0o700);
/// # rt::fs::remove_dir_all(&dir).await.unwrap();
/// # });
/// ```
#[derive(Debug, Default, Clone)]
pub struct DirBuilder {
    recursive: bool,
    mode: Option<u32>,
}

impl DirBuilder {
    /// A builder that creates one directory (its parent must exist) with
    /// the default permission bits (`0o777` before the umask).
    ///
    /// # Examples
    ///
    /// See [`DirBuilder`].
    ///
    /// ```
    /// let builder = rt::fs::DirBuilder::new();
    /// # drop(builder);
    /// ```
    pub fn new() -> DirBuilder {
        DirBuilder::default()
    }

    /// Whether to create the missing parents too; an existing directory
    /// at the path is then not an error.
    ///
    /// # Examples
    ///
    /// See [`DirBuilder`].
    ///
    /// ```
    /// rt::fs::DirBuilder::new().recursive(true);
    /// ```
    pub fn recursive(&mut self, recursive: bool) -> &mut DirBuilder {
        self.recursive = recursive;
        self
    }

    /// The permission bits of the directories created (before the
    /// process's umask).
    ///
    /// # Examples
    ///
    /// See [`DirBuilder`].
    ///
    /// ```
    /// rt::fs::DirBuilder::new().mode(0o750);
    /// ```
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut DirBuilder {
        self.mode = Some(mode);
        self
    }

    /// Creates the directory at `path` with these options.
    ///
    /// # Errors
    ///
    /// The error of creating a directory, with `path` in its message:
    /// [`AlreadyExists`](io::ErrorKind::AlreadyExists) if it exists and
    /// the builder is not recursive, [`NotFound`](io::ErrorKind::NotFound)
    /// for a missing parent.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = rt::runtime::Runtime::new().unwrap();
    /// # rt.block_on(async {
    /// let dir = std::env::temp_dir().join(format!("rt-dir-builder-create-doc-{}", std::process::id()));
    /// let err = rt::fs::DirBuilder::new().create(dir.join("x/y")).await.unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    /// # });
    /// ```
    pub async fn create(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref().to_owned();
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(self.recursive);
        #[cfg(unix)]
        if let Some(mode) = self.mode {
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, mode);
        }
        run("rt::fs::DirBuilder::create", move || {
            builder
                .create(&path)
                .map_err(|e| path_error("could not create directory", &path, e))
        })
        .await
    }
}
