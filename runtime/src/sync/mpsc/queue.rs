//! The lock-free value queue under both mpsc flavours: a linked list of
//! blocks of `BLOCK_CAP` slots. Senders share the tail; the receiver owns
//! the head through the queue's one [`Head`], which `pop` borrows
//! mutably, so pops never race each other and need no lock.
//!
//! Positions: the tail word holds a position `<< SHIFT` plus the `CLOSED`
//! and `DROPPED` flags. Each block spans `LAP = BLOCK_CAP + 1` positions:
//! offsets `0..BLOCK_CAP` are its slots, offset `BLOCK_CAP` means "the
//! next block is being linked", so a sender never sees a position whose
//! block is not yet published.
//!
//! Protocol:
//! 1. A sender reads the tail word and refuses if a flag it honours is set
//!    (unbounded sends honour `CLOSED`, sends holding a slot permit only
//!    `DROPPED`). At offset `BLOCK_CAP` it backs off and re-reads. Then it
//!    reads `tail_block` and claims the position with one compare-exchange;
//!    the block pointer is dereferenced only after that succeeded, and a
//!    success means the tail did not move since it was read, so the block
//!    is the current one and still alive (step 4 frees only blocks whose
//!    every slot is written and read).
//! 2. The sender of a block's last slot allocated the next block before
//!    claiming (no allocation inside the window others wait on), then
//!    publishes it: `tail_block`, the tail past the linking offset, and
//!    the old block's `next`, in that order, before writing its own slot.
//! 3. A sender writes its value into the slot and sets the slot's
//!    `written` flag (release). That is its last access to the block.
//! 4. The receiver reads the slot at the head. Not written: the queue is
//!    empty if the tail position equals the head, otherwise a sender
//!    claimed the slot and is between steps 1 and 3 ("busy"). Written: it
//!    moves the value out and advances; after a block's last slot it
//!    follows `next` (linked in step 2, before that slot was written) and
//!    frees the block, which no sender can still reach (step 1).
//! 5. `close` sets flags with one `fetch_or` on the tail, so a refused
//!    send is ordered against it exactly. Values claimed before still
//!    arrive; whatever the receiver did not take is dropped with the queue.

use crate::loom::cell::UnsafeCell;
use crate::loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;
use std::mem::MaybeUninit;
use std::ptr;

/// Slots per block; tiny under loom so models cross block boundaries.
const BLOCK_CAP: usize = crate::loom::loom_or(31, 2);
/// Positions per block: the slots plus the linking offset. A power of two
/// outside loom, so positions split into block and offset by shift and
/// mask on every push and pop.
const LAP: usize = BLOCK_CAP + 1;
const SHIFT: usize = 2;
/// Set by `close`: sends without a slot permit are refused.
pub(super) const CLOSED: usize = 1;
/// Set when the receiver is gone: every send is refused.
pub(super) const DROPPED: usize = 2;

struct Slot<T> {
    value: UnsafeCell<MaybeUninit<T>>,
    /// Set once `value` holds the sender's value (step 3).
    written: AtomicBool,
}

struct Block<T> {
    /// The following block, linked in step 2.
    next: AtomicPtr<Block<T>>,
    slots: [Slot<T>; BLOCK_CAP],
}

impl<T> Block<T> {
    fn new() -> Box<Block<T>> {
        Box::new(Block {
            next: AtomicPtr::new(ptr::null_mut()),
            slots: std::array::from_fn(|_| Slot {
                value: UnsafeCell::new(MaybeUninit::uninit()),
                written: AtomicBool::new(false),
            }),
        })
    }
}

/// The right to pop: one per queue, held by the receiver, so `pop` (which
/// takes it by `&mut`) never runs twice at once. It names its queue, and
/// `pop` checks that, so heads cannot be mixed up between queues.
#[derive(Debug)]
pub(super) struct Head {
    queue: usize,
}

/// The receiver's position. Atomics only so that `len` and the queue's
/// drop may read them; only the `Head` holder writes them (relaxed: no
/// other thread acts on them).
struct HeadState<T> {
    pos: AtomicUsize,
    block: AtomicPtr<Block<T>>,
}

/// What the receiver found at the head.
#[derive(Debug)]
pub(super) enum Pop<T> {
    Value(T),
    /// Nothing claimed past the head; `flags` as the tail had them.
    Empty {
        flags: usize,
    },
    /// A sender claimed the head slot and is still writing it.
    Busy,
}

pub(super) struct Queue<T> {
    tail: CachePadded<AtomicUsize>,
    /// The block the tail position is in (or the one before, while a
    /// sender is linking).
    tail_block: AtomicPtr<Block<T>>,
    head: CachePadded<HeadState<T>>,
    /// Matches this queue's `Head`.
    id: usize,
}

/// Hands out queue ids. A plain std atomic even under loom: ids only need
/// to differ, nothing synchronises through them.
static NEXT_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

// SAFETY: values move from senders to the receiver, so `T: Send` suffices;
// the raw block pointers are owned by the queue and only dereferenced
// under the protocol in the module docs.
unsafe impl<T: Send> Send for Queue<T> {}
// SAFETY: shared access is the point: senders only touch slots they
// claimed (step 1), and only the one `Head` holder pops.
unsafe impl<T: Send> Sync for Queue<T> {}

/// How many values come before position `pos`.
fn index(pos: usize) -> usize {
    pos / LAP * BLOCK_CAP + (pos % LAP).min(BLOCK_CAP)
}

impl<T> Queue<T> {
    /// An empty queue and the one `Head` that may pop from it.
    pub(super) fn new() -> (Queue<T>, Head) {
        let first = Box::into_raw(Block::new());
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let queue = Queue {
            tail: CachePadded::new(AtomicUsize::new(0)),
            tail_block: AtomicPtr::new(first),
            head: CachePadded::new(HeadState {
                pos: AtomicUsize::new(0),
                block: AtomicPtr::new(first),
            }),
            id,
        };
        (queue, Head { queue: id })
    }

    /// Steps 1-3: appends `value` unless a flag in `refused_by` is set.
    pub(super) fn push(&self, value: T, refused_by: usize) -> Result<(), T> {
        let mut next_block: Option<Box<Block<T>>> = None;
        let mut spins = 0u32;
        let mut tail = self.tail.load(Ordering::Acquire);
        loop {
            if tail & refused_by != 0 {
                return Err(value);
            }
            let offset = (tail >> SHIFT) % LAP;
            if offset == BLOCK_CAP {
                backoff(&mut spins);
                tail = self.tail.load(Ordering::Acquire);
                continue;
            }
            let last = offset + 1 == BLOCK_CAP;
            if last && next_block.is_none() {
                next_block = Some(Block::new());
            }
            let block = self.tail_block.load(Ordering::Acquire);
            if let Err(actual) = self.tail.compare_exchange_weak(
                tail,
                tail + (1 << SHIFT),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                tail = actual;
                continue;
            }
            // SAFETY: the claim succeeded, so `block` is the tail's current
            // block and no one frees it before this slot is written and
            // read (step 1).
            let block = unsafe { &*block };
            if last {
                let next = Box::into_raw(next_block.take().expect("allocated above"));
                self.tail_block.store(next, Ordering::Release);
                self.tail.fetch_add(1 << SHIFT, Ordering::Release);
                block.next.store(next, Ordering::Release);
            }
            let slot = &block.slots[offset];
            // SAFETY: this sender claimed the slot, so no one else writes
            // it, and the receiver reads it only once `written` is set.
            slot.value.with_mut(|cell| unsafe { (*cell).write(value) });
            slot.written.store(true, Ordering::Release);
            return Ok(());
        }
    }

    /// Step 4: takes the value at the head.
    ///
    /// # Panics
    ///
    /// Panics if `head` belongs to another queue.
    pub(super) fn pop(&self, head: &mut Head) -> Pop<T> {
        assert_eq!(head.queue, self.id, "a head pops from its own queue only");
        let pos = self.head.pos.load(Ordering::Relaxed);
        let block_ptr = self.head.block.load(Ordering::Relaxed);
        let offset = pos % LAP;
        // SAFETY: the head block is freed only below, by the one `Head`
        // holder (borrowed mutably here), after moving past it.
        let block = unsafe { &*block_ptr };
        let slot = &block.slots[offset];
        if !slot.written.load(Ordering::Acquire) {
            let tail = self.tail.load(Ordering::Acquire);
            return if tail >> SHIFT == pos {
                Pop::Empty {
                    flags: tail & (CLOSED | DROPPED),
                }
            } else {
                Pop::Busy
            };
        }
        // SAFETY: `written` (acquire) shows the sender's write is complete,
        // and the position advances past it, so it is read once.
        let value = slot
            .value
            .with(|cell| unsafe { (*cell).assume_init_read() });
        if offset + 1 == BLOCK_CAP {
            let next = block.next.load(Ordering::Acquire);
            debug_assert!(!next.is_null(), "linked before the last slot is written");
            self.head.block.store(next, Ordering::Relaxed);
            self.head.pos.store(pos + 2, Ordering::Relaxed);
            // SAFETY: every slot of the block was written and read, so no
            // sender still uses it (step 4), and it came from
            // `Box::into_raw`.
            drop(unsafe { Box::from_raw(block_ptr) });
        } else {
            self.head.pos.store(pos + 1, Ordering::Relaxed);
        }
        Pop::Value(value)
    }

    /// Values claimed and not yet received, including ones being written.
    /// Exact for the receiver; from another thread, a recent snapshot.
    pub(super) fn len(&self) -> usize {
        let head = self.head.pos.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Acquire) >> SHIFT;
        index(tail).saturating_sub(index(head))
    }

    /// Step 5: sets `flags` on the tail.
    pub(super) fn close(&self, flags: usize) {
        self.tail.fetch_or(flags, Ordering::AcqRel);
    }
}

/// Waits out a sender between its claim and its write (steps 1-3 are a
/// few instructions, with no allocation, lock or user code inside).
pub(super) fn backoff(spins: &mut u32) {
    // Under loom only a yield lets the model run the other thread.
    if !cfg!(loom) && *spins < 6 {
        for _ in 0..1 << *spins {
            std::hint::spin_loop();
        }
        *spins += 1;
    } else {
        crate::loom::thread::yield_now();
    }
}

impl<T> Drop for Queue<T> {
    fn drop(&mut self) {
        // No sender or receiver is left (the receiver normally drained the
        // queue already), so every claimed slot is written.
        let mut head = Head { queue: self.id };
        while let Pop::Value(value) = self.pop(&mut head) {
            drop(value);
        }
        let last = self.head.block.load(Ordering::Relaxed);
        debug_assert_eq!(last, self.tail_block.load(Ordering::Relaxed));
        // SAFETY: the head caught up with the tail, so its block is the
        // last one, and no one else can reach it any more.
        drop(unsafe { Box::from_raw(last) });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{BLOCK_CAP, Pop, Queue};
    use crate::sync::mpsc::Counted;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    /// Several producers push across many block boundaries while the
    /// receiver pops: every value arrives once, each producer's in order.
    #[test]
    fn producers_across_blocks_exact_and_in_order() {
        const PRODUCERS: usize = 4;
        const EACH: usize = BLOCK_CAP * 40 + 3;
        let (queue, mut head) = Queue::new();
        let queue = Arc::new(queue);
        let producers: Vec<_> = (0..PRODUCERS)
            .map(|p| {
                let queue = queue.clone();
                std::thread::spawn(move || {
                    for i in 0..EACH {
                        queue.push((p, i), 0).unwrap();
                    }
                })
            })
            .collect();
        let mut next = [0; PRODUCERS];
        let mut received = 0;
        while received < PRODUCERS * EACH {
            match queue.pop(&mut head) {
                Pop::Value((p, i)) => {
                    assert_eq!(i, next[p], "producer {p} out of order");
                    next[p] += 1;
                    received += 1;
                }
                Pop::Empty { .. } | Pop::Busy => std::thread::yield_now(),
            }
        }
        for producer in producers {
            producer.join().unwrap();
        }
        assert_eq!(next, [EACH; PRODUCERS]);
        assert!(matches!(queue.pop(&mut head), Pop::Empty { flags: 0 }));
        assert_eq!(queue.len(), 0);
    }

    /// Values left in the queue are dropped with it, each exactly once,
    /// whichever block they sit in.
    #[test]
    fn dropping_the_queue_drops_what_is_left_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let (queue, mut head) = Queue::new();
        let pushed = BLOCK_CAP * 3 + 1;
        for _ in 0..pushed {
            assert!(queue.push(Counted(drops.clone()), 0).is_ok());
        }
        assert_eq!(queue.len(), pushed);
        for _ in 0..BLOCK_CAP + 2 {
            assert!(matches!(queue.pop(&mut head), Pop::Value(_)));
        }
        assert_eq!(drops.load(SeqCst), BLOCK_CAP + 2);
        drop(queue);
        assert_eq!(drops.load(SeqCst), pushed);
    }

    /// A flag refuses exactly the sends that honour it.
    #[test]
    fn close_flags_refuse_sends() {
        let (queue, mut head) = Queue::new();
        queue.close(super::CLOSED);
        assert_eq!(queue.push(1, super::CLOSED), Err(1));
        assert_eq!(queue.push(2, super::DROPPED), Ok(()));
        queue.close(super::DROPPED);
        assert_eq!(queue.push(3, super::DROPPED), Err(3));
        assert!(matches!(queue.pop(&mut head), Pop::Value(2)));
        assert!(matches!(
            queue.pop(&mut head),
            Pop::Empty { flags } if flags == super::CLOSED | super::DROPPED
        ));
    }
}

#[cfg(all(test, loom))]
mod loom_queue {
    use super::{BLOCK_CAP, Pop, Queue};
    use loom::sync::Arc;
    use loom::thread;

    /// Two senders push racing the receiver, over a block boundary: every
    /// value arrives once and each sender's in order. The receiver looks a
    /// fixed number of times while they run (a spinning receiver would
    /// blow up the model), then takes the rest.
    #[test]
    fn two_senders_vs_receiver_across_a_block() {
        loom::model(|| {
            let (queue, mut head) = Queue::new();
            let queue = Arc::new(queue);
            let senders: Vec<_> = [(0, 2), (1, 1)]
                .into_iter()
                .map(|(sender, count)| {
                    let queue = queue.clone();
                    thread::spawn(move || {
                        for i in 0..count {
                            queue.push((sender, i), 0).unwrap();
                        }
                    })
                })
                .collect();
            const { assert!(3 > BLOCK_CAP, "the model must cross a block boundary") };
            let mut next = [0, 0];
            let mut check = |popped| match popped {
                Pop::Value((sender, i)) => {
                    assert_eq!(i, next[sender]);
                    next[sender] += 1;
                    true
                }
                Pop::Empty { .. } | Pop::Busy => false,
            };
            for _ in 0..3 {
                check(queue.pop(&mut head));
            }
            for sender in senders {
                sender.join().unwrap();
            }
            while check(queue.pop(&mut head)) {}
            assert_eq!(next, [2, 1]);
            assert!(matches!(queue.pop(&mut head), Pop::Empty { flags: 0 }));
        });
    }
}
