//! Files and the file system: rt's functions (which run on the blocking
//! pool) with tokio's errors, rt's directory types re-exported, and a
//! [`File`] newtype for tokio's I/O traits and `&self` methods.

mod file;
mod open_options;
mod path_ops;

pub use file::File;
pub use open_options::OpenOptions;
pub use path_ops::{
    canonicalize, copy, create_dir, create_dir_all, hard_link, metadata, read, read_dir, read_link,
    read_to_string, remove_dir, remove_dir_all, remove_file, rename, set_permissions, symlink,
    symlink_metadata, try_exists, write,
};
pub use rt::fs::{DirBuilder, DirEntry, FileTimes, ReadDir};
