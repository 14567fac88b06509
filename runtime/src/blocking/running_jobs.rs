//! The blocking jobs running now, for the report a runtime's shutdown
//! prints when it has waited for them longer than the watchdog's
//! threshold (`Spawner::shutdown`): a running job cannot be interrupted,
//! and without it a drop that waits for one just hangs, saying nothing.
//!
//! Only while the watchdog is on (the pool's `RunningJobs` is `Some`):
//! 1. spawning a job copies its name and spawn location into the job
//!    (`BlockingTask`), with the list. rt's own jobs (`rt::fs`, host name
//!    lookups, stdio), spawned inside rt, are named after the operation
//!    (`TaskMeta::name_rt_job`: "rt::fs::write");
//! 2. the job's one poll lists it, with the time and the thread, for as
//!    long as its closure runs (a guard takes it out, on a panic too);
//! 3. shutdown reads the list once, when its wait passes the threshold.
//!
//! With the watchdog off the job carries `None`: its poll pays one branch.

use crate::loom::sync::{Arc, Mutex};
use std::fmt;
use std::panic::Location;
use std::thread::ThreadId;
use std::time::Instant;

/// The jobs of one pool whose closures run now (step 2).
pub(crate) struct RunningJobs {
    jobs: Mutex<Vec<Arc<RunningJob>>>,
}

/// What a job was spawned as (step 1).
pub(crate) struct JobLabel {
    pub(crate) name: Option<Box<str>>,
    pub(crate) location: &'static Location<'static>,
}

/// A job whose closure runs now.
struct RunningJob {
    label: JobLabel,
    started: Instant,
    thread_id: ThreadId,
    thread_name: Option<String>,
}

/// A copy of the list at one instant (step 3), printed one job a line.
pub(crate) struct RunningJobsReport {
    jobs: Vec<Arc<RunningJob>>,
    at: Instant,
}

impl RunningJobs {
    pub(crate) fn new() -> RunningJobs {
        RunningJobs {
            jobs: Mutex::new(Vec::new()),
        }
    }

    /// Step 2: runs `f`, the closure of the job labelled `label`, listed.
    pub(crate) fn run<R>(&self, label: JobLabel, f: impl FnOnce() -> R) -> R {
        let thread = std::thread::current();
        let job = Arc::new(RunningJob {
            label,
            started: Instant::now(),
            thread_id: thread.id(),
            thread_name: thread.name().map(str::to_owned),
        });
        self.jobs.lock().unwrap().push(job.clone());
        let _listed = Listed { jobs: self, job };
        f()
    }

    /// Step 3: the jobs running now but the caller's own (a job that
    /// shuts its own runtime down is not waited for).
    pub(crate) fn report(&self) -> RunningJobsReport {
        let this_thread = std::thread::current().id();
        let mut jobs: Vec<_> = (self.jobs.lock().unwrap().iter())
            .filter(|job| job.thread_id != this_thread)
            .cloned()
            .collect();
        jobs.sort_by_key(|job| job.started);
        RunningJobsReport {
            jobs,
            at: Instant::now(),
        }
    }
}

/// Takes a job out of the list when its closure returns or panics.
struct Listed<'a> {
    jobs: &'a RunningJobs,
    job: Arc<RunningJob>,
}

impl Drop for Listed<'_> {
    fn drop(&mut self) {
        let mut jobs = self.jobs.jobs.lock().unwrap();
        if let Some(index) = jobs.iter().position(|job| Arc::ptr_eq(job, &self.job)) {
            jobs.swap_remove(index);
        }
    }
}

impl RunningJobsReport {
    pub(crate) fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.jobs.len()
    }
}

/// One job a line, oldest first.
impl fmt::Display for RunningJobsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, job) in self.jobs.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(
                f,
                "  blocking job ({}) spawned at {}, running for {:?} on thread ",
                job.label.name.as_deref().unwrap_or("unnamed"),
                job.label.location,
                self.at.saturating_duration_since(job.started),
            )?;
            match &job.thread_name {
                Some(name) => write!(f, "`{name}`")?,
                None => write!(f, "{:?}", job.thread_id)?,
            }
        }
        Ok(())
    }
}

impl fmt::Debug for RunningJobs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunningJobs").finish_non_exhaustive()
    }
}
