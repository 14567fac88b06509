//! Runtime identifiers.

use std::fmt;
use std::num::NonZeroU64;

/// An opaque identifier of a runtime, unique among the runtimes built in
/// this process (ids are never reused). [`Handle::id`](crate::runtime::Handle::id)
/// returns it, so code holding two handles can tell whether they drive
/// the same runtime, and logs can name it.
///
/// # Examples
///
/// ```
/// let a = rt::runtime::Runtime::new().unwrap();
/// let b = rt::runtime::Builder::new_current_thread().build().unwrap();
/// let id: rt::runtime::Id = a.handle().id();
/// assert_eq!(id, a.handle().clone().id());
/// assert_ne!(id, b.handle().id());
/// println!("runtime {id}");
/// ```
#[derive(Clone, Copy, Debug, Hash, Eq, PartialEq, Ord, PartialOrd)]
pub struct Id(NonZeroU64);

impl Id {
    pub(crate) fn next() -> Id {
        // A process-wide counter outside the modelled concurrency: a plain
        // std atomic, as loom does not model runtime construction.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Id(NonZeroU64::new(id).expect("runtime ids do not wrap in 2^64 runtimes"))
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
