//! tokio's `signal` module: rt's signal handling (one reactor
//! registration per signal kind), re-exported (its shape is tokio's).

pub use rt::signal::{ctrl_c, unix};
