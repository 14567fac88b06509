//! Helpers shared by the integration tests.
#![allow(dead_code, missing_docs)]

use rt::runtime::{Builder, Runtime};
use std::future::Future;

/// A current-thread runtime and a two-worker multi-thread runtime, both
/// with every driver enabled.
pub(crate) fn runtimes() -> [(&'static str, Runtime); 2] {
    [
        (
            "current_thread",
            Builder::new_current_thread().enable_all().build().unwrap(),
        ),
        (
            "multi_thread",
            Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap(),
        ),
    ]
}

/// Runs `body` to completion on each scheduler in turn.
pub(crate) fn on_both<F, Fut>(body: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    for (name, rt) in runtimes() {
        eprintln!("-- on the {name} scheduler");
        rt.block_on(body());
    }
}

/// Deterministic pseudo-random bytes (xorshift), so transfers can be
/// checked without keeping a copy.
pub(crate) struct Pattern(u64);

impl Pattern {
    pub(crate) fn new(seed: u64) -> Pattern {
        Pattern(seed | 1)
    }

    pub(crate) fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
    }
}

/// FNV-1a over a byte stream, fed in pieces.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Checksum(u64);

impl Checksum {
    pub(crate) fn new() -> Checksum {
        Checksum(0xcbf2_9ce4_8422_2325)
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Raises the soft descriptor limit to the hard one and returns the limit.
pub(crate) fn raise_fd_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, exclusively borrowed out-parameter.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    assert_eq!(rc, 0);
    limit.rlim_cur = limit.rlim_max;
    // SAFETY: `limit` is a valid `rlimit`; raising the soft limit up to the
    // hard one is always allowed.
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
    assert_eq!(rc, 0);
    limit.rlim_cur
}
