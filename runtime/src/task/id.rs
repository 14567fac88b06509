//! Task identifiers.

use crate::loom::sync::atomic::{AtomicU64, Ordering};
use std::fmt;
use std::num::NonZeroU64;

/// An opaque identifier of a task, unique among all tasks alive in the
/// process (ids are never reused). Inside a simulation (`rt::sim`), an id
/// is the task's number in its run's spawn order, from 1, so that a seed
/// replays the same ids (in a failure's message too): unique within the
/// run, not across runtimes alive at the same time.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let handle = rt.spawn(async { rt::task::id() });
/// let id = handle.id();
/// assert_eq!(rt.block_on(handle).unwrap(), id);
/// ```
#[derive(Clone, Copy, Debug, Hash, Eq, PartialEq, Ord, PartialOrd)]
pub struct Id(NonZeroU64);

impl Id {
    #[inline]
    pub(crate) fn next() -> Id {
        #[cfg(not(loom))]
        static NEXT: AtomicU64 = AtomicU64::new(1);
        #[cfg(loom)]
        loom::lazy_static! {
            static ref NEXT: AtomicU64 = AtomicU64::new(1);
        }
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        Id(NonZeroU64::new(id).expect("task ids do not wrap in 2^64 spawns"))
    }

    /// The id of a simulation's task number `seq` (from 0) in its run.
    #[cfg(feature = "sim")]
    pub(crate) fn simulated(seq: u64) -> Id {
        Id(NonZeroU64::MIN.saturating_add(seq))
    }

    pub(crate) fn as_u64(self) -> u64 {
        self.0.get()
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
