//! [`Child`]: rt's child with its pipes as the facade's types.

use super::{ChildStderr, ChildStdin, ChildStdout};
use std::io;
use std::process::{ExitStatus, Output};

/// A spawned child process. Its pipes (when piped) are in the public
/// fields, as in tokio; the process itself is rt's `Child`.
///
/// # Examples
///
/// ```
/// use tokio::io::AsyncReadExt;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut child = tokio::process::Command::new("echo")
///     .arg("hi")
///     .stdout(std::process::Stdio::piped())
///     .spawn()
///     .unwrap();
/// let mut out = String::new();
/// child.stdout.take().unwrap().read_to_string(&mut out).await.unwrap();
/// assert_eq!(out, "hi\n");
/// assert!(child.wait().await.unwrap().success());
/// # });
/// ```
#[derive(Debug)]
pub struct Child {
    /// The child's standard input, if piped.
    pub stdin: Option<ChildStdin>,
    /// The child's standard output, if piped.
    pub stdout: Option<ChildStdout>,
    /// The child's standard error, if piped.
    pub stderr: Option<ChildStderr>,
    inner: rt::process::Child,
}

impl From<rt::process::Child> for Child {
    fn from(mut inner: rt::process::Child) -> Child {
        Child {
            stdin: inner.stdin.take().map(ChildStdin::from),
            stdout: inner.stdout.take().map(ChildStdout::from),
            stderr: inner.stderr.take().map(ChildStderr::from),
            inner,
        }
    }
}

impl From<Child> for rt::process::Child {
    fn from(child: Child) -> rt::process::Child {
        let mut inner = child.inner;
        inner.stdin = child.stdin.map(Into::into);
        inner.stdout = child.stdout.map(Into::into);
        inner.stderr = child.stderr.map(Into::into);
        inner
    }
}

impl Child {
    /// The child's process id, until it has been reaped.
    pub fn id(&self) -> Option<u32> {
        self.inner.id()
    }

    /// Sends `SIGKILL`, without waiting.
    ///
    /// # Errors
    ///
    /// The OS error of `kill`.
    pub fn start_kill(&mut self) -> io::Result<()> {
        self.inner.start_kill()
    }

    /// Kills the child and waits for it.
    ///
    /// # Errors
    ///
    /// The OS error of `kill` or `wait`.
    pub async fn kill(&mut self) -> io::Result<()> {
        self.inner.kill().await
    }

    /// Waits for the child to exit. Closes its standard input first, as
    /// tokio does, so a child reading it is not left waiting.
    ///
    /// # Errors
    ///
    /// The OS error of `wait`.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        drop(self.stdin.take());
        self.inner.wait().await
    }

    /// The exit status if the child has exited, without waiting.
    ///
    /// # Errors
    ///
    /// The OS error of `waitpid`.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.inner.try_wait()
    }

    /// Waits for the child while collecting its piped output.
    ///
    /// # Errors
    ///
    /// The OS error of a read or of `wait`.
    pub async fn wait_with_output(self) -> io::Result<Output> {
        rt::process::Child::from(self).wait_with_output().await
    }
}
