//! `Child`: a spawned process, its pipes, and waiting for its exit.

use crate::process::reap::{OrphanReaper, Reapable, adopt_orphan};
use crate::process::stdio::{ChildStderr, ChildStdin, ChildStdout};
use crate::scheduler;
use crate::task::TaskMeta;
use crate::task::coop::{self, poll_proceed};
use futures_io::AsyncRead;
use futures_util::AsyncReadExt;
use std::fmt;
use std::future::poll_fn;
use std::io;
use std::process::{ExitStatus, Output};
use std::task::{Context, Poll, ready};

/// A child process spawned by [`Command::spawn`](crate::process::Command::spawn).
///
/// The pipes requested with `Stdio::piped()` are in the public `stdin`,
/// `stdout` and `stderr` fields, as in `std` (take them out to use them
/// while waiting). Waiting never blocks a thread: the exit is noticed
/// through the reactor.
///
/// Dropping a `Child` does not kill the process (unless
/// [`kill_on_drop`](crate::process::Command::kill_on_drop) was set) but
/// it is still reaped when it exits, so it never lingers as a zombie,
/// not even after its runtime shut down.
///
/// # Examples
///
/// ```
/// use rt::process::Command;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let mut child = Command::new("sh").args(["-c", "exit 3"]).spawn().unwrap();
///     let status = child.wait().await.unwrap();
///     assert_eq!(status.code(), Some(3));
/// });
/// ```
pub struct Child {
    /// The writing end of the child's stdin, if it was `Stdio::piped()`.
    pub stdin: Option<ChildStdin>,
    /// The reading end of the child's stdout, if it was `Stdio::piped()`.
    pub stdout: Option<ChildStdout>,
    /// The reading end of the child's stderr, if it was `Stdio::piped()`.
    pub stderr: Option<ChildStderr>,
    state: State,
}

enum State {
    Running {
        reapable: Reapable,
        /// The runtime whose reactor watches the child; a dropped child is
        /// reaped by a task there.
        runtime: scheduler::Handle,
        kill_on_drop: bool,
    },
    Exited(ExitStatus),
}

impl Child {
    pub(crate) fn new(
        reapable: Reapable,
        runtime: scheduler::Handle,
        kill_on_drop: bool,
        stdio: (Option<ChildStdin>, Option<ChildStdout>, Option<ChildStderr>),
    ) -> Child {
        Child {
            stdin: stdio.0,
            stdout: stdio.1,
            stderr: stdio.2,
            state: State::Running {
                reapable,
                runtime,
                kill_on_drop,
            },
        }
    }

    /// The OS process id, or `None` once the child was reaped (the id may
    /// belong to another process by then).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::process::Command;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut child = Command::new("true").spawn().unwrap();
    ///     assert!(child.id().is_some());
    ///     child.wait().await.unwrap();
    ///     assert_eq!(child.id(), None);
    /// });
    /// ```
    pub fn id(&self) -> Option<u32> {
        match &self.state {
            State::Running { reapable, .. } => Some(reapable.child.id()),
            State::Exited(_) => None,
        }
    }

    /// Waits for the child to exit and reaps it. Closes the child's stdin
    /// first (if it is still in `self.stdin`), so a child reading its
    /// input to the end cannot deadlock the wait.
    ///
    /// Cancel-safe: dropping the future loses nothing; wait again.
    ///
    /// # Errors
    ///
    /// Returns an error if the runtime shut down while waiting, or the OS
    /// failed to report the status.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::process::Command;
    /// use std::os::unix::process::ExitStatusExt;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut child = Command::new("sh").args(["-c", "kill -TERM $$"]).spawn().unwrap();
    ///     let status = child.wait().await.unwrap();
    ///     assert_eq!(status.signal(), Some(libc::SIGTERM));
    /// });
    /// ```
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        drop(self.stdin.take());
        poll_fn(|cx| self.poll_wait(cx)).await
    }

    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ExitStatus>> {
        let status = match &mut self.state {
            State::Exited(status) => return Poll::Ready(Ok(*status)),
            State::Running { reapable, .. } => {
                // One unit for the reap, as tokio's: the wait for it spends
                // none (not even its exit watch's), and once the budget is
                // spent it yields even if the child already exited.
                let coop = ready!(poll_proceed(cx));
                let exit = ready!(coop::without_budget(|| reapable.poll_exit(cx)));
                coop.made_progress();
                exit?
            }
        };
        self.state = State::Exited(status);
        Poll::Ready(Ok(status))
    }

    /// The exit status if the child has exited (reaping it), `None` if it
    /// still runs. Never waits.
    ///
    /// # Errors
    ///
    /// Returns the OS error of `waitpid`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::process::Command;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut child = Command::new("sleep").arg("10").spawn().unwrap();
    ///     assert_eq!(child.try_wait().unwrap(), None);
    ///     child.kill().await.unwrap();
    ///     assert!(child.try_wait().unwrap().is_some());
    /// });
    /// ```
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        let status = match &mut self.state {
            State::Exited(status) => return Ok(Some(*status)),
            State::Running { reapable, .. } => reapable.child.try_wait()?,
        };
        if let Some(status) = status {
            self.state = State::Exited(status);
        }
        Ok(status)
    }

    /// Sends `SIGKILL` to the child without waiting for it to exit. Does
    /// nothing once the child was reaped.
    ///
    /// # Errors
    ///
    /// Returns the OS error of `kill`.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::process::Command;
    /// use std::os::unix::process::ExitStatusExt;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut child = Command::new("sleep").arg("10").spawn().unwrap();
    ///     child.start_kill().unwrap();
    ///     assert_eq!(child.wait().await.unwrap().signal(), Some(libc::SIGKILL));
    /// });
    /// ```
    pub fn start_kill(&mut self) -> io::Result<()> {
        match &mut self.state {
            State::Exited(_) => Ok(()),
            State::Running { reapable, .. } => reapable.child.kill(),
        }
    }

    /// Kills the child (`SIGKILL`) and waits for it to exit.
    ///
    /// # Errors
    ///
    /// As [`start_kill`](Child::start_kill) and [`wait`](Child::wait).
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::process::Command;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut child = Command::new("sleep").arg("10").spawn().unwrap();
    ///     child.kill().await.unwrap();
    ///     assert!(!child.wait().await.unwrap().success());
    /// });
    /// ```
    pub async fn kill(&mut self) -> io::Result<()> {
        self.start_kill()?;
        self.wait().await.map(drop)
    }

    /// Waits for the child to exit while reading all of its stdout and
    /// stderr (those that are piped), closing its stdin first.
    ///
    /// # Errors
    ///
    /// As [`wait`](Child::wait), and any read error of the pipes.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::process::Command;
    /// use std::process::Stdio;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let child = Command::new("sh")
    ///         .args(["-c", "echo out; echo err >&2"])
    ///         .stdout(Stdio::piped())
    ///         .stderr(Stdio::piped())
    ///         .spawn()
    ///         .unwrap();
    ///     let output = child.wait_with_output().await.unwrap();
    ///     assert_eq!(output.stdout, b"out\n");
    ///     assert_eq!(output.stderr, b"err\n");
    ///     assert!(output.status.success());
    /// });
    /// ```
    pub async fn wait_with_output(mut self) -> io::Result<Output> {
        drop(self.stdin.take());
        let stdout = self.stdout.take();
        let stderr = self.stderr.take();
        let (status, stdout, stderr) =
            futures_util::future::try_join3(self.wait(), read_all(stdout), read_all(stderr))
                .await?;
        Ok(Output {
            status,
            stdout,
            stderr,
        })
    }
}

/// Reads a pipe to its end (nothing if there is no pipe).
async fn read_all<R: AsyncRead + Unpin>(pipe: Option<R>) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if let Some(mut pipe) = pipe {
        pipe.read_to_end(&mut bytes).await?;
    }
    Ok(bytes)
}

impl Drop for Child {
    fn drop(&mut self) {
        let state = std::mem::replace(&mut self.state, State::Exited(ExitStatus::default()));
        let State::Running {
            mut reapable,
            runtime,
            kill_on_drop,
        } = state
        else {
            return;
        };
        if kill_on_drop {
            // A failure means the child is already gone; reaping below
            // covers that too.
            let _ = reapable.child.kill();
        }
        match reapable.child.try_wait() {
            Ok(None) => {
                // Still running: reap it in the background (step 1 of the
                // orphan protocol in `reap.rs`). If the runtime is shutting
                // down the reaper is dropped at once and adopts the child.
                let meta = TaskMeta::named(Some("rt::process orphan reaper"));
                drop(runtime.spawn(OrphanReaper::new(reapable), meta));
            }
            Ok(Some(_)) => {}
            Err(_) => adopt_orphan(reapable.child),
        }
    }
}

impl fmt::Debug for Child {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Child")
            .field("id", &self.id())
            .field("stdin", &self.stdin)
            .field("stdout", &self.stdout)
            .field("stderr", &self.stderr)
            .finish()
    }
}
