//! rt's path functions with the OS's errors, as tokio returns them
//! (`crate::os_error`).

use crate::os_error::os_error;
use std::fs::{Metadata, Permissions};
use std::io;
use std::path::{Path, PathBuf};

/// Each function forwards to rt's of the same name.
macro_rules! with_os_errors {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $output:ty;)*) => {$(
        #[doc = concat!("[`rt::fs::", stringify!($name), "`], with the OS's error as tokio returns it.")]
        pub async fn $name($($arg: $ty),*) -> io::Result<$output> {
            rt::fs::$name($($arg),*).await.map_err(os_error)
        }
    )*};
}

with_os_errors! {
    canonicalize(path: impl AsRef<Path>) -> PathBuf;
    copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> u64;
    create_dir(path: impl AsRef<Path>) -> ();
    create_dir_all(path: impl AsRef<Path>) -> ();
    hard_link(original: impl AsRef<Path>, link: impl AsRef<Path>) -> ();
    metadata(path: impl AsRef<Path>) -> Metadata;
    read(path: impl AsRef<Path>) -> Vec<u8>;
    read_dir(path: impl AsRef<Path>) -> rt::fs::ReadDir;
    read_link(path: impl AsRef<Path>) -> PathBuf;
    read_to_string(path: impl AsRef<Path>) -> String;
    remove_dir(path: impl AsRef<Path>) -> ();
    remove_dir_all(path: impl AsRef<Path>) -> ();
    remove_file(path: impl AsRef<Path>) -> ();
    rename(from: impl AsRef<Path>, to: impl AsRef<Path>) -> ();
    set_permissions(path: impl AsRef<Path>, permissions: Permissions) -> ();
    symlink(original: impl AsRef<Path>, link: impl AsRef<Path>) -> ();
    symlink_metadata(path: impl AsRef<Path>) -> Metadata;
    try_exists(path: impl AsRef<Path>) -> bool;
    write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> ();
}
