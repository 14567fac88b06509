//! The I/O reactor of the rt runtime (work in progress).
