//! The hierarchical timer wheel of the rt runtime (work in progress).
