//! Child processes: newtypes over rt's `Command`, `Child` and the child's
//! pipes, so the pipes have tokio's I/O traits (reads straight into a
//! `ReadBuf`'s uninitialised part).

mod child;
mod command;
mod stdio;

pub use child::Child;
pub use command::Command;
pub use stdio::{ChildStderr, ChildStdin, ChildStdout};
