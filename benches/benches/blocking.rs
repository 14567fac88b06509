//! The blocking pool and the file system built on it: rt vs tokio,
//! `NUM_WORKERS` worker threads each, default pool settings.
//!
//! - `blocking_sequential`: one task awaits `SEQUENTIAL` no-op
//!   `spawn_blocking` calls, one after another (the latency of a round
//!   trip through the pool);
//! - `blocking_burst`: one task spawns `SEQUENTIAL` no-op calls, then joins
//!   them in order (queueing and waking idle pool threads);
//! - `blocking_many_tasks`: `TASKS` tasks each await `PER_TASK` no-op calls
//!   in sequence (many producers at once);
//! - `fs_read_64m`: `fs::read` of a 64 MiB file (in the page cache after
//!   the first iteration);
//! - `fs_file_read_to_end_64m`: the same file through `fs::File::open` and
//!   `read_to_end`, the path that reads through the file's own buffer.
//!
//! As in `net.rs`, one macro writes both sides from the same text, since
//! the APIs differ only by crate path.

mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};
use support::{BenchRuntime, Flavor, NUM_WORKERS, Rt, Tokio};

const FLAVOR: Flavor = Flavor::MultiThread(NUM_WORKERS);

/// No-op calls per iteration of the one-task workloads.
const SEQUENTIAL: usize = 1_000;
/// Tasks, and calls each, of `blocking_many_tasks`.
const TASKS: usize = 16;
const PER_TASK: usize = 100;
/// Size of the file the `fs_` workloads read.
const FILE_LEN: usize = 64 * 1024 * 1024;

/// The workloads over one crate's `spawn`, `task::spawn_blocking`, `fs`
/// and `io::AsyncReadExt`.
macro_rules! blocking_workloads {
    ($side:ident, $krate:ident) => {
        mod $side {
            use super::{FILE_LEN, PER_TASK, SEQUENTIAL, TASKS};
            use std::path::PathBuf;
            // rt's `File` has its own `read_to_end`, which shadows the
            // trait's: the import is used on the tokio side only.
            #[allow(unused_imports)]
            use $krate::io::AsyncReadExt;
            use $krate::task::spawn_blocking;

            pub(crate) async fn sequential() {
                $krate::spawn(async {
                    for _ in 0..SEQUENTIAL {
                        spawn_blocking(|| ()).await.expect("blocking call");
                    }
                })
                .await
                .expect("task");
            }

            pub(crate) async fn burst() {
                $krate::spawn(async {
                    let calls: Vec<_> = (0..SEQUENTIAL).map(|_| spawn_blocking(|| ())).collect();
                    for call in calls {
                        call.await.expect("blocking call");
                    }
                })
                .await
                .expect("task");
            }

            pub(crate) async fn many_tasks() {
                let tasks: Vec<_> = (0..TASKS)
                    .map(|_| {
                        $krate::spawn(async {
                            for _ in 0..PER_TASK {
                                spawn_blocking(|| ()).await.expect("blocking call");
                            }
                        })
                    })
                    .collect();
                for task in tasks {
                    task.await.expect("task");
                }
            }

            pub(crate) async fn read(path: PathBuf) {
                let data = $krate::spawn(async move { $krate::fs::read(&path).await })
                    .await
                    .expect("task")
                    .expect("fs::read");
                assert_eq!(data.len(), FILE_LEN);
            }

            pub(crate) async fn file_read_to_end(path: PathBuf) {
                let data = $krate::spawn(async move {
                    let mut file = $krate::fs::File::open(&path).await?;
                    let mut data = Vec::new();
                    file.read_to_end(&mut data).await?;
                    Ok::<_, std::io::Error>(data)
                })
                .await
                .expect("task")
                .expect("File::read_to_end");
                assert_eq!(data.len(), FILE_LEN);
            }
        }
    };
}

blocking_workloads!(rt_side, rt);
blocking_workloads!(tokio_side, tokio);

/// One group, `$routine` (an async fn of each side, applied to `$arg`s)
/// on rt then tokio.
macro_rules! group {
    ($c:expr, $name:expr, $routine:ident $(, $arg:expr)?) => {{
        let mut group = $c.benchmark_group($name);
        support::configure(&mut group);
        {
            let runtime = Rt::new(FLAVOR);
            group.bench_function(Rt::NAME, |b| {
                b.iter(|| runtime.block_on(rt_side::$routine($($arg.clone())?)))
            });
        }
        {
            let runtime = Tokio::new(FLAVOR);
            group.bench_function(Tokio::NAME, |b| {
                b.iter(|| runtime.block_on(tokio_side::$routine($($arg.clone())?)))
            });
        }
        group.finish();
    }};
}

/// A file of `FILE_LEN` bytes in the temp directory, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn create() -> TempFile {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock after the epoch")
            .as_nanos();
        let name = format!("rt-bench-fs-{}-{nanos}", std::process::id());
        let path = std::env::temp_dir().join(name);
        let contents: Vec<u8> = (0..FILE_LEN).map(|i| i as u8).collect();
        let mut file = std::fs::File::create(&path).expect("create the bench file");
        file.write_all(&contents).expect("write the bench file");
        // Written back before measuring: otherwise the kernel flushes the
        // 64 MiB of dirty pages during the first runtime's measurement.
        file.sync_all().expect("sync the bench file");
        TempFile(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_file(&self.0) {
            eprintln!("could not remove {}: {e}", self.0.display());
        }
    }
}

fn blocking(c: &mut Criterion) {
    group!(c, "blocking_sequential", sequential);
    group!(c, "blocking_burst", burst);
    group!(c, "blocking_many_tasks", many_tasks);

    let file = TempFile::create();
    let path = file.path().to_owned();
    group!(c, "fs_read_64m", read, path);
    group!(c, "fs_file_read_to_end_64m", file_read_to_end, path);
}

criterion_group!(benches, blocking);
criterion_main!(benches);
