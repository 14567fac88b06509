//! Why a task did not produce its output.

use crate::task::id::Id;
use std::any::Any;
use std::fmt;
use std::io;
use std::sync::Mutex;

/// The error a [`JoinHandle`](crate::task::JoinHandle) returns when its task
/// did not finish: it was cancelled, or it panicked.
///
/// # Examples
///
/// ```
/// let rt = rt::runtime::Runtime::new().unwrap();
/// let err = rt.block_on(rt.spawn(async { panic!("boom") })).unwrap_err();
/// assert!(err.is_panic());
/// let payload = err.into_panic();
/// assert_eq!(*payload.downcast::<&str>().unwrap(), "boom");
/// ```
pub struct JoinError {
    id: Id,
    repr: Repr,
}

enum Repr {
    Cancelled,
    // A Mutex only to make the error `Sync`: the payload is `Send` only.
    Panic(Mutex<Box<dyn Any + Send + 'static>>),
}

impl JoinError {
    pub(crate) fn cancelled(id: Id) -> JoinError {
        JoinError {
            id,
            repr: Repr::Cancelled,
        }
    }

    pub(crate) fn panic(id: Id, payload: Box<dyn Any + Send + 'static>) -> JoinError {
        JoinError {
            id,
            repr: Repr::Panic(Mutex::new(payload)),
        }
    }

    /// `true` if the task was cancelled (aborted, or its runtime shut down).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt.spawn(std::future::pending::<()>());
    /// task.abort();
    /// assert!(rt.block_on(task).unwrap_err().is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        matches!(self.repr, Repr::Cancelled)
    }

    /// `true` if the task panicked.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let err = rt.block_on(rt.spawn(async { panic!("oops") })).unwrap_err();
    /// assert!(err.is_panic());
    /// ```
    pub fn is_panic(&self) -> bool {
        matches!(self.repr, Repr::Panic(_))
    }

    /// The panic payload, to re-raise with [`std::panic::resume_unwind`].
    ///
    /// # Panics
    ///
    /// Panics if the task was cancelled rather than panicking; use
    /// [`try_into_panic`](JoinError::try_into_panic) to check.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let err = rt.block_on(rt.spawn(async { panic!("{}", 5) })).unwrap_err();
    /// assert_eq!(*err.into_panic().downcast::<String>().unwrap(), "5");
    /// ```
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        self.try_into_panic().expect(
            "`JoinError::into_panic` called on a cancelled task's error; check `is_panic()` first",
        )
    }

    /// The panic payload, or the error back if the task was cancelled.
    ///
    /// # Errors
    ///
    /// Returns `self` unchanged when the task was cancelled.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt.spawn(std::future::pending::<()>());
    /// task.abort();
    /// let err = rt.block_on(task).unwrap_err();
    /// assert!(err.try_into_panic().unwrap_err().is_cancelled());
    /// ```
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.repr {
            Repr::Panic(payload) => Ok(payload.into_inner().unwrap_or_else(|e| e.into_inner())),
            Repr::Cancelled => Err(self),
        }
    }

    /// The id of the task that failed.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = rt::runtime::Runtime::new().unwrap();
    /// let task = rt.spawn(async { panic!() });
    /// let id = task.id();
    /// assert_eq!(rt.block_on(task).unwrap_err().id(), id);
    /// ```
    pub fn id(&self) -> Id {
        self.id
    }

    fn panic_message(&self) -> Option<String> {
        let Repr::Panic(payload) = &self.repr else {
            return None;
        };
        let payload = payload.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = payload.downcast_ref::<&'static str>() {
            Some((*s).to_owned())
        } else {
            payload.downcast_ref::<String>().cloned()
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (Repr::Cancelled, _) => write!(f, "task {} was cancelled", self.id),
            (Repr::Panic(_), Some(msg)) => {
                write!(f, "task {} panicked with message {msg:?}", self.id)
            }
            (Repr::Panic(_), None) => write!(f, "task {} panicked", self.id),
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repr, self.panic_message()) {
            (Repr::Cancelled, _) => write!(f, "JoinError::Cancelled({})", self.id),
            (Repr::Panic(_), Some(msg)) => write!(f, "JoinError::Panic({}, {msg:?})", self.id),
            (Repr::Panic(_), None) => write!(f, "JoinError::Panic({}, ..)", self.id),
        }
    }
}

impl std::error::Error for JoinError {}

/// An `io::Error` of kind [`Other`](io::ErrorKind::Other) whose message is
/// the join error's, for a cancelled task as for a panicked one. Not
/// `Interrupted`: I/O loops retry that kind (`write_all`, `read_exact`,
/// ...), and a blocking job cancelled because its runtime shut down fails
/// again on every retry, so such a loop would never end.
impl From<JoinError> for io::Error {
    fn from(error: JoinError) -> io::Error {
        io::Error::other(error.to_string())
    }
}
