//! What every `rt::fs` operation shares: running a closure on the blocking
//! pool, the chunk size, and errors that name their path.

use crate::blocking::{MandatoryJob, spawn_mandatory};
use crate::io::context_error::context_error;
use crate::io::sys;
use crate::runtime::context;
use crate::scheduler;
use crate::task::{JoinHandle, TaskMeta};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The most bytes one blocking call reads or writes.
pub(crate) const MAX_CHUNK: usize = 2 * 1024 * 1024;

/// Spare capacity below this is read without pre-faulting it: the saving
/// is a few traps, less than the `madvise` call costs.
const PREFAULT_MIN: usize = 256 * 1024;

/// Runs `f` on the current runtime's blocking pool; `name` is the
/// operation (`"rt::fs::read"`), for the watchdog's report.
///
/// # Errors
///
/// The OS error if the pool has no thread and the OS refused to start
/// one: `f` never runs.
///
/// # Panics
///
/// Panics outside a runtime.
#[track_caller]
pub(crate) fn spawn_fs<F, R>(name: &'static str, f: F) -> io::Result<JoinHandle<R>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    on_runtime(name, |rt, meta| rt.try_spawn_blocking(f, meta))
}

/// Runs `f` on the current runtime's blocking pool as a mandatory job
/// (see `blocking/mandatory.rs`): once this returns `Ok`, `f` runs, even
/// if the runtime shuts down first. For writes.
///
/// # Errors
///
/// The shutdown error if the pool has shut down, or the OS error if the
/// pool has no thread and the OS refused to start one: `f` never runs.
///
/// # Panics
///
/// Panics outside a runtime.
#[track_caller]
pub(crate) fn spawn_fs_mandatory<F, R>(name: &'static str, f: F) -> io::Result<MandatoryJob<R>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    on_runtime(name, |rt, meta| spawn_mandatory(rt, f, meta))
}

/// Calls `spawn` with the current runtime, whose pool runs the job named
/// `name`.
#[track_caller]
fn on_runtime<T>(name: &'static str, spawn: impl FnOnce(&scheduler::Handle, TaskMeta) -> T) -> T {
    let mut meta = TaskMeta::new();
    #[cfg(feature = "sim")]
    if let Err(refused) = crate::sim::refuse("rt::fs") {
        // A `File` opened outside the simulation and moved in: no error
        // to return from here.
        panic!("{refused}");
    }
    match context::with_current(|rt| {
        meta.name_rt_job(rt, name);
        spawn(rt, meta)
    }) {
        Some(spawned) => spawned,
        None => panic!(
            "`rt::fs` used outside a runtime: file operations run on the runtime's blocking \
             pool, so await them in a task or inside `Runtime::block_on`"
        ),
    }
}

/// Runs `f`, the operation `name`, on the blocking pool and waits for its
/// result.
pub(crate) async fn run<F, T>(name: &'static str, f: F) -> io::Result<T>
where
    F: FnOnce() -> io::Result<T> + Send + 'static,
    T: Send + 'static,
{
    #[cfg(feature = "sim")]
    crate::sim::refuse("rt::fs")?;
    crate::blocking::join_job(spawn_fs(name, f)?).await
}

/// Runs `op`, the operation `name`, on `path` on the blocking pool; its
/// error names the path after `what` ("could not remove").
pub(crate) async fn on_path<T: Send + 'static>(
    path: &Path,
    name: &'static str,
    what: &'static str,
    op: fn(&Path) -> io::Result<T>,
) -> io::Result<T> {
    let path = path.to_owned();
    run(name, move || {
        op(&path).map_err(|e| path_error(what, &path, e))
    })
    .await
}

/// Runs `op`, the operation `name`, on `from` and `to` on the blocking
/// pool; its error names both paths after `what` ("could not rename").
pub(crate) async fn on_two_paths<T: Send + 'static>(
    from: &Path,
    to: &Path,
    name: &'static str,
    what: &'static str,
    op: fn(&Path, &Path) -> io::Result<T>,
) -> io::Result<T> {
    let (from, to) = (from.to_owned(), to.to_owned());
    run(name, move || {
        op(&from, &to).map_err(|e| {
            let what = format!("{what} `{}` to `{}`", from.display(), to.display());
            context_error(what, e)
        })
    })
    .await
}

/// `error` with `what` and `path` prefixed to its message; same kind.
pub(crate) fn path_error(what: &str, path: &Path, error: io::Error) -> io::Error {
    context_error(format!("{what} `{}`", path.display()), error)
}

/// Appends chunks of up to `MAX_CHUNK` bytes from `file` to `dst` until
/// the end of the file (`Ok(true)`) or until `stop` is set, which is
/// checked after each chunk (`Ok(false)`). On error the bytes read before
/// it stay in `dst`.
pub(crate) fn read_chunks(file: &File, dst: &mut Vec<u8>, stop: &AtomicBool) -> io::Result<bool> {
    loop {
        // A buffer sized for a large file is fresh memory: letting `read`
        // fault it in a page at a time costs a trap per 4 KiB, about a
        // sixth of a 64 MiB read from the page cache. One `madvise` per
        // chunk backs the chunk's pages first, without the traps.
        let spare = dst.capacity() - dst.len();
        if spare >= PREFAULT_MIN {
            sys::prefault_spare(dst, MAX_CHUNK);
        }
        // `read_chunk` stops short of the limit only at the end of the file.
        if read_chunk(file, dst)? < MAX_CHUNK {
            return Ok(true);
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
    }
}

/// Appends up to `MAX_CHUNK` bytes from `file` to `dst`, fewer only at the
/// end of the file; returns how many. Each `read` asks for all the room
/// left in `dst` (up to the chunk), so a buffer sized from the file's
/// length is filled with one system call per chunk.
fn read_chunk(file: &File, dst: &mut Vec<u8>) -> io::Result<usize> {
    let mut total = 0;
    while total < MAX_CHUNK {
        let result = if dst.len() == dst.capacity() {
            // Full: probe before growing, so that a buffer sized exactly
            // for the file is not reallocated (and copied) only to find
            // its end.
            let mut probe = [0; 32];
            (&mut &*file).read(&mut probe).inspect(|&n| {
                if n > 0 {
                    dst.extend_from_slice(&probe[..n]);
                    // More is coming (a pipe, or a file that grew): leave
                    // room for reads of a useful size.
                    dst.reserve(8 * 1024);
                }
            })
        } else {
            sys::read_to_spare(file.as_raw_fd(), dst, MAX_CHUNK - total)
        };
        match result {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(total)
}

/// Sets its flag when dropped: tells a blocking job that nobody wants its
/// result any more.
pub(crate) struct SetOnDrop(pub(crate) Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
