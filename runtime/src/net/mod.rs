//! Networking.

mod lookup;

pub use lookup::lookup_host;
