//! Asynchronous child processes, shaped like `std::process` (and tokio's
//! `process` module).
//!
//! [`Command`] is `std`'s builder plus [`kill_on_drop`](Command::kill_on_drop);
//! [`Command::spawn`] returns a [`Child`] whose piped standard streams are
//! `futures-io` streams ([`ChildStdin`], [`ChildStdout`], [`ChildStderr`])
//! and whose exit is awaited without blocking a thread.
//!
//! How exits are noticed and zombies avoided (a pidfd per child registered
//! with the reactor, or a `SIGCHLD` listener where pidfds are refused; a
//! dropped child reaped in the background) is described step by step in
//! `process/reap.rs`.
//!
//! Spawning needs a runtime with I/O enabled (the pipes and the exit watch
//! register with its reactor).
//!
//! # Examples
//!
//! ```
//! use rt::process::Command;
//!
//! let rt = rt::runtime::Runtime::new().unwrap();
//! rt.block_on(async {
//!     let output = Command::new("echo").arg("hello").output().await.unwrap();
//!     assert!(output.status.success());
//!     assert_eq!(output.stdout, b"hello\n");
//! });
//! ```

mod child;
mod reap;
mod stdio;

pub use child::Child;
pub use stdio::{ChildStderr, ChildStdin, ChildStdout};

use crate::runtime::context;
use reap::{ExitWatch, Reapable, WatchKind};
use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{ExitStatus, Output, Stdio};

/// A process builder: `std::process::Command`'s methods, spawning a
/// [`Child`] that is awaited asynchronously.
///
/// # Examples
///
/// ```
/// use rt::process::Command;
///
/// let rt = rt::runtime::Runtime::new().unwrap();
/// rt.block_on(async {
///     let status = Command::new("sh")
///         .arg("-c")
///         .arg("test \"$GREETING\" = hi")
///         .env("GREETING", "hi")
///         .status()
///         .await
///         .unwrap();
///     assert!(status.success());
/// });
/// ```
pub struct Command {
    std: std::process::Command,
    kill_on_drop: bool,
    /// Whether `stdin` was chosen: `output` gives the child an empty
    /// stdin otherwise (as `std` does), not the parent's.
    stdin_set: bool,
}

impl Command {
    /// A command running `program` (looked up in `PATH` when it has no
    /// slash), with no arguments, the parent's environment and working
    /// directory, and (for `spawn` and `status`) the parent's standard
    /// streams.
    ///
    /// # Examples
    ///
    /// ```
    /// let command = rt::process::Command::new("ls");
    /// assert_eq!(command.as_std().get_program(), "ls");
    /// ```
    pub fn new(program: impl AsRef<OsStr>) -> Command {
        Command::from(std::process::Command::new(program))
    }

    /// Adds an argument.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("ls");
    /// command.arg("-l").arg("/");
    /// assert_eq!(command.as_std().get_args().count(), 2);
    /// ```
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Command {
        self.std.arg(arg);
        self
    }

    /// Adds several arguments.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("ls");
    /// command.args(["-l", "-a"]);
    /// assert_eq!(command.as_std().get_args().count(), 2);
    /// ```
    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.std.args(args);
        self
    }

    /// Sets an environment variable for the child.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("env");
    /// command.env("LANG", "C");
    /// assert_eq!(command.as_std().get_envs().count(), 1);
    /// ```
    pub fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Command {
        self.std.env(key, value);
        self
    }

    /// Sets several environment variables for the child.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("env");
    /// command.envs([("A", "1"), ("B", "2")]);
    /// assert_eq!(command.as_std().get_envs().count(), 2);
    /// ```
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.std.envs(vars);
        self
    }

    /// Removes an environment variable from the child's environment.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("env");
    /// command.env_remove("HOME");
    /// ```
    pub fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Command {
        self.std.env_remove(key);
        self
    }

    /// Starts the child with an empty environment (plus what `env` adds).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("env");
    /// command.env_clear().env("ONLY", "this");
    /// ```
    pub fn env_clear(&mut self) -> &mut Command {
        self.std.env_clear();
        self
    }

    /// Sets the child's working directory.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let out = rt::process::Command::new("pwd").current_dir("/").output().await.unwrap();
    ///     assert_eq!(out.stdout, b"/\n");
    /// });
    /// ```
    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Command {
        self.std.current_dir(dir);
        self
    }

    /// Sets the child's standard input: `Stdio::piped()` makes
    /// [`Child::stdin`] a [`ChildStdin`]; a piped stream of another child
    /// (`ChildStdout::try_into()`) chains the two.
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::process::Command;
    /// use std::process::Stdio;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     // echo hi | tr a-z A-Z
    ///     let mut echo = Command::new("echo").arg("hi").stdout(Stdio::piped()).spawn().unwrap();
    ///     let piped: Stdio = echo.stdout.take().unwrap().try_into().unwrap();
    ///     let upper = Command::new("tr").args(["a-z", "A-Z"]).stdin(piped).output().await.unwrap();
    ///     assert_eq!(upper.stdout, b"HI\n");
    ///     echo.wait().await.unwrap();
    /// });
    /// ```
    pub fn stdin(&mut self, cfg: impl Into<Stdio>) -> &mut Command {
        self.std.stdin(cfg);
        self.stdin_set = true;
        self
    }

    /// Sets the child's standard output: `Stdio::piped()` makes
    /// [`Child::stdout`] a [`ChildStdout`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::process::Stdio;
    /// let mut command = rt::process::Command::new("ls");
    /// command.stdout(Stdio::null());
    /// ```
    pub fn stdout(&mut self, cfg: impl Into<Stdio>) -> &mut Command {
        self.std.stdout(cfg);
        self
    }

    /// Sets the child's standard error: `Stdio::piped()` makes
    /// [`Child::stderr`] a [`ChildStderr`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::process::Stdio;
    /// let mut command = rt::process::Command::new("ls");
    /// command.stderr(Stdio::null());
    /// ```
    pub fn stderr(&mut self, cfg: impl Into<Stdio>) -> &mut Command {
        self.std.stderr(cfg);
        self
    }

    /// Whether dropping the [`Child`] (or the future of [`output`] or
    /// [`status`]) before it exited kills it with `SIGKILL`. Off by
    /// default: the child runs on, and is reaped when it exits.
    ///
    /// [`output`]: Command::output
    /// [`status`]: Command::status
    ///
    /// # Examples
    ///
    /// ```
    /// use rt::process::Command;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let child = Command::new("sleep").arg("100").kill_on_drop(true).spawn().unwrap();
    ///     drop(child); // killed now, reaped in the background
    /// });
    /// ```
    pub fn kill_on_drop(&mut self, kill_on_drop: bool) -> &mut Command {
        self.kill_on_drop = kill_on_drop;
        self
    }

    /// Whether [`kill_on_drop`](Command::kill_on_drop) is set.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("true");
    /// assert!(!command.get_kill_on_drop());
    /// assert!(command.kill_on_drop(true).get_kill_on_drop());
    /// ```
    pub fn get_kill_on_drop(&self) -> bool {
        self.kill_on_drop
    }

    /// Runs the child as user `id` (`setuid`).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("id");
    /// command.uid(65534);
    /// ```
    pub fn uid(&mut self, id: u32) -> &mut Command {
        self.std.uid(id);
        self
    }

    /// Runs the child with group `id` (`setgid`).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("id");
    /// command.gid(65534);
    /// ```
    pub fn gid(&mut self, id: u32) -> &mut Command {
        self.std.gid(id);
        self
    }

    /// Sets the child's `argv[0]` (the name it sees itself run as).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let out = rt::process::Command::new("sh")
    ///         .arg0("custom")
    ///         .args(["-c", "echo $0"])
    ///         .output()
    ///         .await
    ///         .unwrap();
    ///     assert_eq!(out.stdout, b"custom\n");
    /// });
    /// ```
    pub fn arg0(&mut self, arg: impl AsRef<OsStr>) -> &mut Command {
        self.std.arg0(arg);
        self
    }

    /// Puts the child in process group `pgroup` (`0`: a new group led by
    /// the child), e.g. so a terminal's Ctrl-C does not reach it.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("sleep");
    /// command.arg("1").process_group(0);
    /// ```
    pub fn process_group(&mut self, pgroup: i32) -> &mut Command {
        self.std.process_group(pgroup);
        self
    }

    /// Runs `f` in the child after `fork` and before `exec`, as
    /// `std::os::unix::process::CommandExt::pre_exec`.
    ///
    /// # Safety
    ///
    /// As for `std`'s `pre_exec`: `f` runs in a copy of the process with a
    /// single thread, and may only do what is async-signal-safe there (no
    /// allocation, no locks another thread may have held at the fork).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("true");
    /// // SAFETY: the closure does nothing.
    /// unsafe { command.pre_exec(|| Ok(())) };
    /// ```
    pub unsafe fn pre_exec<F>(&mut self, f: F) -> &mut Command
    where
        F: FnMut() -> io::Result<()> + Send + Sync + 'static,
    {
        // SAFETY: the caller upholds `pre_exec`'s contract (above).
        unsafe { self.std.pre_exec(f) };
        self
    }

    /// The `std` command this wraps.
    ///
    /// # Examples
    ///
    /// ```
    /// let command = rt::process::Command::new("true");
    /// assert_eq!(command.as_std().get_program(), "true");
    /// ```
    pub fn as_std(&self) -> &std::process::Command {
        &self.std
    }

    /// The `std` command this wraps, mutably (for options only `std` has).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("true");
    /// command.as_std_mut().arg("ignored");
    /// ```
    pub fn as_std_mut(&mut self) -> &mut std::process::Command {
        &mut self.std
    }

    /// The `std` command this wraps, by value. rt's own settings
    /// ([`kill_on_drop`](Command::kill_on_drop)) do not carry over.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut command = rt::process::Command::new("echo");
    /// command.arg("hi");
    /// let output = command.into_std().output().unwrap();
    /// assert_eq!(output.stdout, b"hi\n");
    /// ```
    pub fn into_std(self) -> std::process::Command {
        self.std
    }

    /// Starts the child.
    ///
    /// # Errors
    ///
    /// The OS error of starting the child, as std's and tokio's: a missing
    /// program (or working directory) is `NotFound` with its
    /// `raw_os_error()` (`ENOENT`); permissions, descriptor limits, ...
    /// likewise.
    ///
    /// # Panics
    ///
    /// Panics outside a runtime with I/O enabled, naming the fix.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut child = rt::process::Command::new("true").spawn().unwrap();
    ///     assert!(child.wait().await.unwrap().success());
    /// });
    /// ```
    #[track_caller]
    pub fn spawn(&mut self) -> io::Result<Child> {
        self.spawn_watched(WatchKind::Best)
    }

    #[track_caller]
    pub(crate) fn spawn_watched(&mut self, watch: WatchKind) -> io::Result<Child> {
        // Checked first: failing here must not leave a child behind.
        let runtime = current_runtime();
        reap::sweep_orphans();
        // std's error as it is: a message naming the program would need a
        // custom error, which loses `raw_os_error()`.
        let mut child = self.std.spawn()?;
        match Self::adopt(&mut child, watch) {
            Ok((watch, stdio)) => Ok(Child::new(
                Reapable::new(child, watch),
                runtime,
                self.kill_on_drop,
                stdio,
            )),
            Err(e) => {
                // Without a watch nobody would wait for it.
                let _ = child.kill();
                reap::adopt_orphan(child);
                Err(e)
            }
        }
    }

    /// Takes the child's pipes and starts watching its exit.
    #[track_caller]
    #[allow(clippy::type_complexity)]
    fn adopt(
        child: &mut std::process::Child,
        watch: WatchKind,
    ) -> io::Result<(
        ExitWatch,
        (Option<ChildStdin>, Option<ChildStdout>, Option<ChildStderr>),
    )> {
        let stdin = child.stdin.take().map(ChildStdin::from_std).transpose()?;
        let stdout = child.stdout.take().map(ChildStdout::from_std).transpose()?;
        let stderr = child.stderr.take().map(ChildStderr::from_std).transpose()?;
        let watch = ExitWatch::new(child.id(), watch)?;
        Ok((watch, (stdin, stdout, stderr)))
    }

    /// Runs the child to its exit, collecting its stdout and stderr (both
    /// piped, whatever was set); its stdin is empty unless
    /// [`stdin`](Command::stdin) was set.
    ///
    /// As tokio's, this changes the builder: later spawns from it keep
    /// stdout and stderr piped (and stdin empty, if it was not set). The
    /// child is spawned when this is called, not when the future is first
    /// polled.
    ///
    /// # Errors
    ///
    /// As [`spawn`](Command::spawn) and [`Child::wait_with_output`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let error = rt::process::Command::new("no-such-program-here").output().await.unwrap_err();
    ///     assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    /// });
    /// ```
    #[track_caller]
    pub fn output(&mut self) -> impl Future<Output = io::Result<Output>> + use<> {
        if !self.stdin_set {
            self.std.stdin(Stdio::null());
        }
        self.std.stdout(Stdio::piped());
        self.std.stderr(Stdio::piped());
        let child = self.spawn();
        async move { child?.wait_with_output().await }
    }

    /// Runs the child to its exit with the standard streams as set
    /// (inherited by default), and returns its status. Pipes requested
    /// with `Stdio::piped()` are closed at once, so the child cannot block
    /// on them. The child is spawned when this is called.
    ///
    /// # Errors
    ///
    /// As [`spawn`](Command::spawn) and [`Child::wait`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let status = rt::process::Command::new("false").status().await.unwrap();
    ///     assert_eq!(status.code(), Some(1));
    /// });
    /// ```
    #[track_caller]
    pub fn status(&mut self) -> impl Future<Output = io::Result<ExitStatus>> + use<> {
        let child = self.spawn();
        async move {
            let mut child = child?;
            // Not read here: closed so the child cannot block on them.
            drop(child.stdout.take());
            drop(child.stderr.take());
            child.wait().await
        }
    }
}

/// The runtime this thread is in, which must have an I/O driver.
///
/// # Panics
///
/// Panics otherwise, naming the fix.
#[track_caller]
fn current_runtime() -> crate::scheduler::Handle {
    crate::io::registered::current_reactor();
    context::with_current(Clone::clone).expect("`current_reactor` found a runtime")
}

impl From<std::process::Command> for Command {
    fn from(std: std::process::Command) -> Command {
        Command {
            std,
            kill_on_drop: false,
            stdin_set: false,
        }
    }
}

impl fmt::Debug for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.std, f)
    }
}

// Miri cannot spawn processes (posix_spawn is a foreign function there).
#[cfg(all(test, not(miri)))]
mod fallback_tests;
