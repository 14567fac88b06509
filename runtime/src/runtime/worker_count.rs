//! How many workers a multi-thread runtime gets when its builder was not
//! told (`Builder::worker_threads`): the number in an environment
//! variable if it is set, else one per CPU.
//!
//! The variable is `RT_WORKER_THREADS` for rt's own builder and
//! `TOKIO_WORKER_THREADS` for tokio's facade (`Builder::worker_threads_var`
//! picks it), so an operator can size a deployed server without a
//! rebuild, as tokio's users do. It is read when the runtime is built,
//! and only then: an explicit `worker_threads` wins, and a current-thread
//! runtime never reads it, so a bad value cannot break either.
//!
//! A value that is set but not a positive integer is a deployment
//! mistake: `build` panics naming the variable and the value, rather
//! than quietly running with some other number of workers (tokio panics
//! too).

use std::env::{self, VarError};

/// The variable rt's own builder reads.
pub(crate) const RT_WORKER_THREADS: &str = "RT_WORKER_THREADS";

/// The worker count for a builder whose `worker_threads` is unset: the
/// value of `var`, or the number of CPUs when `var` is not set.
///
/// # Panics
///
/// Panics if `var` is set to anything but a positive integer (including
/// a value that is not valid unicode).
#[track_caller]
pub(crate) fn default_worker_threads(var: &str) -> usize {
    match env::var(var) {
        Err(VarError::NotPresent) => num_cpus::get().max(1),
        Err(VarError::NotUnicode(value)) => panic!(
            "the environment variable {var} must be the number of worker threads, a positive \
             integer; it is {value:?}, which is not even valid unicode (unset it for one worker \
             per CPU)"
        ),
        Ok(value) => match value.parse::<usize>() {
            Ok(count) if count > 0 => count,
            parsed => {
                let why = match parsed {
                    Err(error) => error.to_string(),
                    Ok(_) => "no worker could run a task".to_owned(),
                };
                panic!(
                    "the environment variable {var} must be the number of worker threads, a \
                     positive integer; it is {value:?} ({why}) (unset it for one worker per CPU)"
                )
            }
        },
    }
}
