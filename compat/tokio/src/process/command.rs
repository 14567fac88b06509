//! [`Command`]: rt's, in a newtype whose `spawn` gives the facade's
//! [`Child`].

use super::Child;
use std::ffi::OsStr;
use std::io;
use std::path::Path;
use std::process::{ExitStatus, Output, Stdio};

/// A process builder. A newtype over `rt::process::Command` whose `spawn`
/// gives the facade's [`Child`]; every builder method forwards to rt's.
///
/// # Examples
///
/// ```
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let output = tokio::process::Command::new("sh")
///     .args(["-c", "echo $GREETING"])
///     .env("GREETING", "hello")
///     .output()
///     .await
///     .unwrap();
/// assert_eq!(output.stdout, b"hello\n");
/// # });
/// ```
#[derive(Debug)]
pub struct Command {
    inner: rt::process::Command,
}

impl From<rt::process::Command> for Command {
    fn from(inner: rt::process::Command) -> Command {
        Command { inner }
    }
}

impl From<Command> for rt::process::Command {
    fn from(command: Command) -> rt::process::Command {
        command.inner
    }
}

impl From<std::process::Command> for Command {
    fn from(std: std::process::Command) -> Command {
        Command::from(rt::process::Command::from(std))
    }
}

impl Command {
    /// A command running `program`.
    pub fn new(program: impl AsRef<OsStr>) -> Command {
        Command::from(rt::process::Command::new(program))
    }

    /// Adds an argument.
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Command {
        self.inner.arg(arg);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.inner.args(args);
        self
    }

    /// Sets an environment variable.
    pub fn env(&mut self, key: impl AsRef<OsStr>, val: impl AsRef<OsStr>) -> &mut Command {
        self.inner.env(key, val);
        self
    }

    /// Sets environment variables.
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.inner.envs(vars);
        self
    }

    /// Removes an environment variable.
    pub fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Command {
        self.inner.env_remove(key);
        self
    }

    /// Clears the environment.
    pub fn env_clear(&mut self) -> &mut Command {
        self.inner.env_clear();
        self
    }

    /// Sets the working directory.
    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Command {
        self.inner.current_dir(dir);
        self
    }

    /// Sets the child's standard input.
    pub fn stdin(&mut self, cfg: impl Into<Stdio>) -> &mut Command {
        self.inner.stdin(cfg);
        self
    }

    /// Sets the child's standard output.
    pub fn stdout(&mut self, cfg: impl Into<Stdio>) -> &mut Command {
        self.inner.stdout(cfg);
        self
    }

    /// Sets the child's standard error.
    pub fn stderr(&mut self, cfg: impl Into<Stdio>) -> &mut Command {
        self.inner.stderr(cfg);
        self
    }

    /// Kills the child when its [`Child`] is dropped.
    pub fn kill_on_drop(&mut self, kill_on_drop: bool) -> &mut Command {
        self.inner.kill_on_drop(kill_on_drop);
        self
    }

    /// Whether the child is killed when its [`Child`] is dropped.
    pub fn get_kill_on_drop(&self) -> bool {
        self.inner.get_kill_on_drop()
    }

    /// Sets the child's user id.
    pub fn uid(&mut self, id: u32) -> &mut Command {
        self.inner.uid(id);
        self
    }

    /// Sets the child's group id.
    pub fn gid(&mut self, id: u32) -> &mut Command {
        self.inner.gid(id);
        self
    }

    /// Sets the child's `argv[0]`.
    pub fn arg0(&mut self, arg: impl AsRef<OsStr>) -> &mut Command {
        self.inner.arg0(arg);
        self
    }

    /// Puts the child in process group `pgroup` (0: a new group).
    pub fn process_group(&mut self, pgroup: i32) -> &mut Command {
        self.inner.process_group(pgroup);
        self
    }

    /// Runs `f` in the child between `fork` and `exec`.
    ///
    /// # Safety
    ///
    /// As `std::os::unix::process::CommandExt::pre_exec`: `f` may only do
    /// what is async-signal-safe.
    pub unsafe fn pre_exec<F>(&mut self, f: F) -> &mut Command
    where
        F: FnMut() -> io::Result<()> + Send + Sync + 'static,
    {
        // SAFETY: the caller upholds `pre_exec`'s contract (above).
        unsafe { self.inner.pre_exec(f) };
        self
    }

    /// The std command.
    pub fn as_std(&self) -> &std::process::Command {
        self.inner.as_std()
    }

    /// The std command, mutably.
    pub fn as_std_mut(&mut self) -> &mut std::process::Command {
        self.inner.as_std_mut()
    }

    /// Unwraps the std command.
    pub fn into_std(self) -> std::process::Command {
        self.inner.into_std()
    }

    /// Starts the child.
    ///
    /// # Errors
    ///
    /// The OS error of `fork`/`exec` (e.g. `NotFound`).
    ///
    /// # Panics
    ///
    /// Outside an rt runtime with I/O enabled.
    #[track_caller]
    pub fn spawn(&mut self) -> io::Result<Child> {
        self.inner.spawn().map(Child::from)
    }

    /// Runs the child to completion, collecting its output (standard
    /// output and error piped unless set otherwise).
    ///
    /// # Errors
    ///
    /// The OS error of spawning, reading or waiting.
    pub fn output(&mut self) -> impl Future<Output = io::Result<Output>> + use<> {
        self.inner.output()
    }

    /// Runs the child to completion and returns its exit status.
    ///
    /// # Errors
    ///
    /// The OS error of spawning or waiting.
    pub fn status(&mut self) -> impl Future<Output = io::Result<ExitStatus>> + use<> {
        self.inner.status()
    }
}
