//! `stdin`, `stdout`, `stderr`: the process's standard streams, read and
//! written on the blocking pool (as tokio does: a terminal or pipe cannot
//! be registered with the reactor portably, and a regular file never
//! reports "not ready").
//!
//! Each handle owns a buffer and runs one operation at a time on the pool:
//!
//! 1. a read asks the pool for up to `dst.len()` bytes (at most
//!    [`MAX_CHUNK`]) into the buffer, waits, and copies out what came; the
//!    rest stays for the next reads;
//! 2. a write copies the bytes (at most `MAX_CHUNK`) into the buffer,
//!    starts writing them on the pool and returns at once; the next write
//!    (or a flush) waits for that one, and reports its error if it failed;
//! 3. a flush waits for the write in flight; each write flushes std's own
//!    buffer as it finishes, so nothing is left behind in the process;
//! 4. a write accepted at step 2 is made even if the runtime shuts down
//!    before a pool thread takes it (tokio runs these writes as
//!    "mandatory" blocking jobs): its job is a mandatory one
//!    (`blocking/mandatory.rs`), made as the pool drops it, on the thread
//!    shutting the pool down (even in `shutdown_background`, which then
//!    waits for that write), and the next write or flush reports its
//!    result. A job the pool refused (it had already shut down) writes
//!    nothing, and the write fails with the shutdown error. Reads are not
//!    mandatory: one still queued at shutdown is dropped.
//!
//! The cooperative budget is spent only by the handle of the operation in
//! flight, one unit when it yields the result (as tokio's): a read served
//! from the buffer and a write that starts at once spend none.

use crate::blocking::{IoJob, spawn_mandatory};
use crate::runtime::context;
use crate::scheduler;
use crate::task::TaskMeta;
use crate::task::coop::without_budget;
use futures_io::{AsyncRead, AsyncWrite};
use std::fmt;
use std::future::Future;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The most bytes one operation on the pool reads or writes.
const MAX_CHUNK: usize = 2 * 1024 * 1024;

/// Which standard stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stream {
    Stdin,
    Stdout,
    Stderr,
}

impl Stream {
    /// The name of its blocking jobs (stdin is only read, the others only
    /// written), for the watchdog's report.
    fn job_name(self) -> &'static str {
        match self {
            Stream::Stdin => "rt::io::stdin read",
            Stream::Stdout => "rt::io::stdout write",
            Stream::Stderr => "rt::io::stderr write",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Stream::Stdin => "stdin",
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

#[derive(Default)]
struct Buf {
    data: Vec<u8>,
    /// How much of `data` reads have handed out.
    pos: usize,
}

enum Outcome {
    Read(io::Result<usize>),
    Write(io::Result<()>),
}

enum State {
    Idle(Buf),
    Busy(IoJob<(Buf, Outcome)>),
}

/// A standard stream driven through the blocking pool (the protocol is in
/// the module docs).
struct Blocking {
    stream: Stream,
    state: State,
}

impl Blocking {
    fn new(stream: Stream) -> Blocking {
        Blocking {
            stream,
            state: State::Idle(Buf::default()),
        }
    }

    /// Starts writing `buf` (step 2) as a mandatory job, made even if the
    /// runtime shuts down (step 4).
    ///
    /// # Errors
    ///
    /// The shutdown error if the pool, shut down, refused the job, or the
    /// OS error if it had no thread and could not start one: the bytes
    /// are dropped unwritten.
    fn start_write(&mut self, mut buf: Buf) -> io::Result<()> {
        let stream = self.stream;
        let job = self.on_runtime(stream.job_name(), |rt, meta| {
            let write = move || {
                let outcome = write_out(stream, &mut buf);
                (buf, outcome)
            };
            spawn_mandatory(rt, write, meta)
        })?;
        self.state = State::Busy(IoJob::Mandatory(job));
        Ok(())
    }

    /// Starts reading into `buf`, cancelled if still queued at shutdown.
    ///
    /// # Errors
    ///
    /// The OS error if the pool had no thread and could not start one;
    /// `Unsupported` inside a simulation.
    fn start_read(&mut self, mut buf: Buf) -> io::Result<()> {
        #[cfg(feature = "sim")]
        refuse_in_sim()?;
        let stream = self.stream;
        let handle = self.on_runtime(stream.job_name(), |rt, meta| {
            let read = move || {
                let outcome = read_into(stream, &mut buf);
                (buf, outcome)
            };
            rt.try_spawn_blocking(read, meta)
        })?;
        self.state = State::Busy(IoJob::Cancellable(handle));
        Ok(())
    }

    /// Calls `spawn` with the current runtime, whose pool runs the job
    /// named `name`.
    fn on_runtime<T>(
        &self,
        name: &'static str,
        spawn: impl FnOnce(&scheduler::Handle, TaskMeta) -> T,
    ) -> T {
        let mut meta = TaskMeta::new();
        match context::with_current(|rt| {
            meta.name_rt_job(rt, name);
            spawn(rt, meta)
        }) {
            Some(spawned) => spawned,
            None => panic!(
                "`rt::io::{}` used outside a runtime: it runs on the runtime's blocking pool, \
                 so use it in a task or inside `Runtime::block_on`",
                self.stream.name()
            ),
        }
    }

    /// Waits for the operation in flight; the handle is then idle.
    fn poll_complete(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Outcome>> {
        let State::Busy(job) = &mut self.state else {
            return Poll::Ready(Ok(Outcome::Write(Ok(()))));
        };
        let result = ready!(Pin::new(job).poll(cx));
        Poll::Ready(match result {
            Ok((buf, outcome)) => {
                self.state = State::Idle(buf);
                Ok(outcome)
            }
            Err(e) => {
                // The job panicked, or the pool shut down under us and
                // dropped a read unrun: its bytes are lost. (An accepted
                // write was made then, and yields its outcome.)
                self.state = State::Idle(Buf::default());
                Err(e)
            }
        })
    }

    /// Copies buffered bytes into `dst`, which may be uninitialised.
    fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        dst: &mut [std::mem::MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        if dst.is_empty() {
            return Poll::Ready(Ok(0));
        }
        loop {
            match &mut self.state {
                State::Idle(buf) if buf.pos < buf.data.len() => {
                    let n = dst.len().min(buf.data.len() - buf.pos);
                    let src = &buf.data[buf.pos..buf.pos + n];
                    // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and a
                    // shared slice cannot de-initialise anything.
                    let src = unsafe {
                        &*(std::ptr::from_ref::<[u8]>(src) as *const [std::mem::MaybeUninit<u8>])
                    };
                    dst[..n].copy_from_slice(src);
                    buf.pos += n;
                    return Poll::Ready(Ok(n));
                }
                State::Idle(buf) => {
                    let mut buf = std::mem::take(buf);
                    buf.data.resize(dst.len().min(MAX_CHUNK), 0);
                    if let Err(e) = self.start_read(buf) {
                        return Poll::Ready(Err(e));
                    }
                }
                State::Busy(_) => {
                    if let Outcome::Read(Err(e)) = ready!(self.poll_complete(cx))? {
                        return Poll::Ready(Err(e));
                    }
                    let State::Idle(buf) = &self.state else {
                        unreachable!("rt: a completed operation leaves the handle idle");
                    };
                    if buf.data.is_empty() {
                        return Poll::Ready(Ok(0));
                    }
                }
            }
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, src: &[u8]) -> Poll<io::Result<usize>> {
        if let Outcome::Write(Err(e)) = ready!(self.poll_complete(cx))? {
            return Poll::Ready(Err(e));
        }
        if src.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let State::Idle(buf) = &mut self.state else {
            unreachable!("rt: a completed operation leaves the handle idle");
        };
        let mut buf = std::mem::take(buf);
        let n = src.len().min(MAX_CHUNK);
        buf.data.clear();
        buf.pos = 0;
        buf.data.extend_from_slice(&src[..n]);
        let started = self.start_write(buf);
        // The pool had shut down: it dropped the job, and the bytes with
        // it (step 4), so this write fails now. The handle stays idle.
        started?;
        // A job that already ended (it failed, or the runtime shut down
        // and the bytes were written as it was dropped) is reported here.
        if matches!(&self.state, State::Busy(job) if job.is_finished()) {
            // A look, not a wait: it spends no budget (nor yields when
            // the budget is spent).
            match without_budget(|| self.poll_complete(cx)) {
                Poll::Ready(Err(e)) | Poll::Ready(Ok(Outcome::Write(Err(e)))) => {
                    return Poll::Ready(Err(e));
                }
                _ => {}
            }
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match ready!(self.poll_complete(cx))? {
            Outcome::Write(result) => Poll::Ready(result),
            Outcome::Read(_) => Poll::Ready(Ok(())),
        }
    }
}

/// `Unsupported` inside a simulation: a simulation runs its blocking jobs
/// inline, so the whole run would wait on the read (a hang, on a
/// terminal), for input from outside it, which a seed cannot replay.
/// (Writes stay allowed: what a node prints changes nothing in the run.)
#[cfg(feature = "sim")]
fn refuse_in_sim() -> io::Result<()> {
    if !crate::sim::is_current() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "reading `rt::io::stdin` is not supported inside a simulation (`rt::sim`): the run \
         would wait for input from outside it, which a seed cannot replay. Give the node its \
         input another way: a channel (`rt::sync::mpsc`) from a client, or the simulated \
         network",
    ))
}

/// On the pool: one read from stdin into `buf.data` (sized by the caller).
fn read_into(stream: Stream, buf: &mut Buf) -> Outcome {
    debug_assert_eq!(stream, Stream::Stdin);
    buf.pos = 0;
    let result = loop {
        match io::stdin().read(&mut buf.data) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            result => break result,
        }
    };
    buf.data.truncate(*result.as_ref().unwrap_or(&0));
    Outcome::Read(result)
}

/// On the pool: all of `buf.data` to stdout or stderr, then flushed.
fn write_out(stream: Stream, buf: &mut Buf) -> Outcome {
    let result = match stream {
        Stream::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(&buf.data).and_then(|()| out.flush())
        }
        Stream::Stderr => io::stderr().lock().write_all(&buf.data),
        Stream::Stdin => unreachable!("rt: a write to stdin"),
    };
    buf.data.clear();
    Outcome::Write(result)
}

/// The process's standard input, read on the runtime's blocking pool: see
/// [`stdin`].
pub struct Stdin {
    io: Blocking,
    /// std's handle of the same stream: what `AsFd` lends.
    std: io::Stdin,
}

/// The process's standard output, written on the runtime's blocking pool:
/// see [`stdout`].
pub struct Stdout {
    io: Blocking,
    /// std's handle of the same stream: what `AsFd` lends.
    std: io::Stdout,
}

/// The process's standard error, written on the runtime's blocking pool:
/// see [`stderr`].
pub struct Stderr {
    io: Blocking,
    /// std's handle of the same stream: what `AsFd` lends.
    std: io::Stderr,
}

/// A handle to the process's standard input, implementing
/// [`AsyncRead`]: each read runs on the runtime's blocking pool.
///
/// A read waiting for input (an interactive terminal) occupies a pool
/// thread until input comes, and a runtime shutting down waits for running
/// blocking work: end such a program with
/// [`Runtime::shutdown_background`](crate::runtime::Runtime::shutdown_background)
/// or a `shutdown_timeout`. Reading stdin from several handles at once
/// interleaves unpredictably. Inside a simulation (`rt::sim`), a read
/// fails with `Unsupported`: the seed cannot replay input from outside.
///
/// # Panics
///
/// Reading panics outside a runtime.
///
/// # Examples
///
/// ```no_run
/// use rt::io::{AsyncBufReadExt, BufReader};
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut lines = BufReader::new(rt::io::stdin()).lines();
/// while let Some(line) = lines.next_line().await.unwrap() {
///     println!("got {line}");
/// }
/// # });
/// ```
pub fn stdin() -> Stdin {
    Stdin {
        io: Blocking::new(Stream::Stdin),
        std: io::stdin(),
    }
}

/// A handle to the process's standard output, implementing
/// [`AsyncWrite`]: a write copies the bytes and returns at once while the
/// blocking pool writes them; the next write, `flush` or `shutdown` waits
/// for that and reports its error.
///
/// A write is made even if the runtime shuts down before the pool got to
/// it, as tokio's; `flush().await` waits for it and reports its error
/// (and is needed before `std::process::exit`). Writes from several
/// handles (or from `println!`) interleave at the granularity of one
/// write call.
///
/// Like the other two handles, it lends its descriptor (`AsFd`,
/// `AsRawFd`), e.g. to ask whether it is a terminal:
///
/// ```
/// use std::os::fd::AsRawFd;
/// assert_eq!(rt::io::stdout().as_raw_fd(), libc::STDOUT_FILENO);
/// ```
///
/// # Panics
///
/// Writing panics outside a runtime.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncWriteExt;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut out = rt::io::stdout();
/// out.write_all(b"hello from rt\n").await.unwrap();
/// out.flush().await.unwrap();
/// # });
/// ```
pub fn stdout() -> Stdout {
    Stdout {
        io: Blocking::new(Stream::Stdout),
        std: io::stdout(),
    }
}

/// A handle to the process's standard error, implementing [`AsyncWrite`]:
/// as [`stdout`], for stderr.
///
/// # Panics
///
/// Writing panics outside a runtime.
///
/// # Examples
///
/// ```
/// use rt::io::AsyncWriteExt;
///
/// # let rt = rt::runtime::Runtime::new().unwrap();
/// # rt.block_on(async {
/// let mut err = rt::io::stderr();
/// err.write_all(b"warning: nothing to do\n").await.unwrap();
/// err.flush().await.unwrap();
/// # });
/// ```
pub fn stderr() -> Stderr {
    Stderr {
        io: Blocking::new(Stream::Stderr),
        std: io::stderr(),
    }
}

impl Stdin {
    /// Reads like `AsyncRead::poll_read` into memory that may be
    /// uninitialised (a tokio `ReadBuf`'s unfilled part): the bytes the
    /// blocking read got are copied straight into the front of `buf`,
    /// nothing is zeroed first; returns how many (`0`: end of input, or an
    /// empty `buf`).
    ///
    /// # Errors
    ///
    /// The OS error of the read; `Unsupported` inside a simulation
    /// (`rt::sim`), whose seed cannot replay input from outside it.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use std::future::poll_fn;
    /// use std::mem::MaybeUninit;
    ///
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// rt.block_on(async {
    ///     let mut stdin = rt::io::stdin();
    ///     let mut buf = [MaybeUninit::<u8>::uninit(); 64];
    ///     let n = poll_fn(|cx| stdin.poll_read_uninit(cx, &mut buf)).await.unwrap();
    ///     println!("read {n} bytes");
    /// });
    /// ```
    pub fn poll_read_uninit(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut [std::mem::MaybeUninit<u8>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_read(cx, buf)
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .io
            .poll_read(cx, crate::io::sys::as_uninit(buf))
    }
}

macro_rules! writer {
    ($($ty:ident),*) => {$(
        impl AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.get_mut().io.poll_write(cx, buf)
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().io.poll_flush(cx)
            }

            fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().io.poll_flush(cx)
            }
        }
    )*};
}

writer!(Stdout, Stderr);

macro_rules! debug {
    ($($ty:ident),*) => {$(
        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("busy", &matches!(self.io.state, State::Busy(_)))
                    .finish()
            }
        }
    )*};
}

debug!(Stdin, Stdout, Stderr);

// The handles lend the process's descriptor 0, 1 or 2, as tokio's do (to
// ask whether it is a terminal, say), through std's handle of the same
// stream.
macro_rules! descriptor {
    ($($ty:ident),*) => {$(
        impl AsFd for $ty {
            fn as_fd(&self) -> BorrowedFd<'_> {
                self.std.as_fd()
            }
        }

        impl AsRawFd for $ty {
            fn as_raw_fd(&self) -> RawFd {
                self.std.as_raw_fd()
            }
        }
    )*};
}

descriptor!(Stdin, Stdout, Stderr);
