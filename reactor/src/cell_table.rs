//! Every registration's readiness cell, at a stable address, found by
//! index without a lock.
//!
//! The driver resolves each event's token to a cell on its hottest path,
//! while other threads register and drop sources. So that the lookup
//! takes no lock, cells live in pages that are allocated on demand and
//! never freed or moved before the table itself drops:
//!
//! 1. Page `k` holds `FIRST_PAGE << k` cells; index `i` lives in the page
//!    and at the offset [`locate`] computes, so the pages together cover
//!    every index a token can carry.
//! 2. A page is allocated once, under the allocation lock, and published
//!    with a `Release` store; [`CellTable::get`] loads it with `Acquire`
//!    and needs nothing else.
//! 3. A released cell is handed to the next registration with its
//!    generation bumped ([`ReadinessCell::reset`]); the driver's update of
//!    a cell checks the generation inside the same compare-and-swap as the
//!    readiness (`ReadinessCell::set_ready`), so a late event for the
//!    previous owner is dropped rather than applied to the new one.
//! 4. A released cell is not reusable at once: it waits on a list of its
//!    own until the driver's next turn begins ([`CellTable::recycle`]).
//!    Its source left the poller before the release, so only a batch of
//!    events the driver collected before then can still name it, and that
//!    batch is dispatched before the next turn begins. The generation
//!    alone is 7 bits: a cell released and handed out 128 times while the
//!    driver was between its poll and the dispatch of one batch (a worker
//!    churning connections while the driver thread is preempted) came
//!    back to the stale event's generation, which then reached a socket
//!    that never had it (tokio likewise frees a registration only once the
//!    driver turns). So that a driver blocked for long does not leave
//!    every released cell waiting, the [`RECYCLE_AFTER`]th release since
//!    the last turn asks the caller to wake it.
//!
//! 5. A cell whose registration was dropped without deregistering its
//!    source is retired instead: the poller may go on reporting events
//!    for it, so it is never handed out again.
//!
//! The table never shrinks: it keeps room for the most registrations
//! there ever were at once, as a slab would.

use crate::cell::ReadinessCell;
use crate::ready::Ready;
use std::io;
use std::ptr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Cells in the first page; each page after it doubles.
const FIRST_PAGE: usize = 64;
/// Enough pages for every index below [`MAX_CELLS`].
const PAGES: usize = 19;
/// Indices a token can carry (see `driver::INDEX_BITS`); the last one is
/// the driver's own waker token.
pub(crate) const MAX_CELLS: usize = (1 << 24) - 1;

const _: () = assert!(FIRST_PAGE * ((1 << PAGES) - 1) >= MAX_CELLS);

/// Releases since the last turn after which the releaser wakes the
/// driver, so that the cells become reusable (step 4).
pub(crate) const RECYCLE_AFTER: usize = 64;

/// The page holding index `index`, and the offset in it.
fn locate(index: usize) -> (usize, usize) {
    let slot = index / FIRST_PAGE + 1;
    let page = (usize::BITS - 1 - slot.leading_zeros()) as usize;
    (page, index - FIRST_PAGE * ((1 << page) - 1))
}

fn page_len(page: usize) -> usize {
    FIRST_PAGE << page
}

pub(crate) struct CellTable {
    /// Page `k`: null, or `page_len(k)` cells allocated as a boxed slice.
    pages: [AtomicPtr<ReadinessCell>; PAGES],
    alloc: Mutex<Alloc>,
}

#[derive(Debug, Default)]
struct Alloc {
    /// Indices below this one have been handed out at least once.
    next: usize,
    /// Released indices that no undispatched event can name: reused
    /// first.
    free: Vec<usize>,
    /// Indices released since the current turn began (step 4): events the
    /// driver is dispatching may still name them.
    released: Vec<usize>,
    /// Indices never handed out again: their sources may still be in the
    /// poller.
    retired: usize,
}

impl CellTable {
    pub(crate) fn new() -> CellTable {
        CellTable {
            pages: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())),
            alloc: Mutex::new(Alloc::default()),
        }
    }

    /// Hands out a fresh cell, with `assumed` ready from the start
    /// (`ReadinessCell::reset`): its index, and the generation its token
    /// must carry.
    pub(crate) fn insert(&self, assumed: Ready) -> io::Result<(usize, usize)> {
        let mut alloc = self.alloc.lock().unwrap();
        let index = match alloc.free.pop() {
            Some(index) => index,
            None => {
                let index = alloc.next;
                if index >= MAX_CELLS {
                    return Err(io::Error::other(
                        "too many I/O registrations on one reactor (limit 2^24 - 1)",
                    ));
                }
                let (page, offset) = locate(index);
                if offset == 0 {
                    self.allocate(page);
                }
                alloc.next += 1;
                index
            }
        };
        let cell = self.get(index).expect("the page was allocated");
        Ok((index, cell.reset(assumed)))
    }

    /// Step 2: allocates page `page` (under the allocation lock).
    fn allocate(&self, page: usize) {
        let cells: Box<[ReadinessCell]> =
            (0..page_len(page)).map(|_| ReadinessCell::new()).collect();
        let cells = Box::into_raw(cells).cast::<ReadinessCell>();
        self.pages[page].store(cells, Ordering::Release);
    }

    /// Gives `index` back (its owner is gone and its source left the
    /// poller), reusable from the driver's next turn on (step 4). Returns
    /// `true` if the driver should be woken to make it and the others
    /// released since its last turn reusable.
    #[must_use]
    pub(crate) fn remove(&self, index: usize) -> bool {
        let mut alloc = self.alloc.lock().unwrap();
        alloc.released.push(index);
        alloc.released.len() == RECYCLE_AFTER
    }

    /// Step 4, at the start of a driver turn: the cells released before
    /// now become reusable, since every event collected before their
    /// release has been dispatched.
    pub(crate) fn recycle(&self) {
        let mut alloc = self.alloc.lock().unwrap();
        let alloc = &mut *alloc;
        alloc.free.append(&mut alloc.released);
    }

    /// Gives up `index` for good: events may still name it, so it is never
    /// handed out again. Its generation moves on, so they change nothing.
    pub(crate) fn retire(&self, index: usize) {
        let mut alloc = self.alloc.lock().unwrap();
        alloc.retired += 1;
        self.get(index)
            .expect("handed-out cells have a page")
            .reset(Ready::EMPTY);
    }

    /// The cell at `index`, if its page exists.
    pub(crate) fn get(&self, index: usize) -> Option<&ReadinessCell> {
        let (page, offset) = locate(index);
        let cells = self.pages.get(page)?.load(Ordering::Acquire);
        if cells.is_null() {
            return None;
        }
        // SAFETY: a non-null page pointer comes from `allocate`: a boxed
        // slice of `page_len(page)` cells, published after it was filled
        // (this `Acquire` pairs with its `Release`), and freed only when
        // the table drops, which `&self` rules out. `offset <
        // page_len(page)` by `locate`. Cells are only ever shared (`&`):
        // their state is atomics and a mutex.
        Some(unsafe { &*cells.add(offset) })
    }

    /// Calls `f` on every cell handed out at least once (under the
    /// allocation lock, so none is handed out meanwhile).
    pub(crate) fn for_each(&self, mut f: impl FnMut(&ReadinessCell)) {
        let alloc = self.alloc.lock().unwrap();
        for index in 0..alloc.next {
            f(self.get(index).expect("handed-out cells have a page"));
        }
    }

    /// How many cells were ever handed out (the table's high-water mark).
    #[cfg(test)]
    pub(crate) fn handed_out(&self) -> usize {
        self.alloc.lock().unwrap().next
    }

    /// Cells in use (neither released nor retired).
    pub(crate) fn len(&self) -> usize {
        let alloc = self.alloc.lock().unwrap();
        alloc.next - alloc.free.len() - alloc.released.len() - alloc.retired
    }
}

impl Drop for CellTable {
    fn drop(&mut self) {
        for (page, cells) in self.pages.iter_mut().enumerate() {
            let cells = *cells.get_mut();
            if !cells.is_null() {
                let slice = ptr::slice_from_raw_parts_mut(cells, page_len(page));
                // SAFETY: `cells` came from `Box::into_raw` of a boxed
                // slice of `page_len(page)` cells in `allocate`, and is
                // freed once, here; `&mut self` means no reference from
                // `get` is alive.
                drop(unsafe { Box::from_raw(slice) });
            }
        }
    }
}

impl std::fmt::Debug for CellTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CellTable")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn pages_cover_every_index_in_order() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(FIRST_PAGE - 1), (0, FIRST_PAGE - 1));
        assert_eq!(locate(FIRST_PAGE), (1, 0));
        assert_eq!(locate(3 * FIRST_PAGE - 1), (1, 2 * FIRST_PAGE - 1));
        assert_eq!(locate(3 * FIRST_PAGE), (2, 0));
        let (page, offset) = locate(MAX_CELLS - 1);
        assert!(page < PAGES && offset < page_len(page));
        let mut expected = (0, 0);
        for index in 0..10 * FIRST_PAGE {
            assert_eq!(locate(index), expected);
            expected.1 += 1;
            if expected.1 == page_len(expected.0) {
                expected = (expected.0 + 1, 0);
            }
        }
    }

    #[test]
    fn released_cells_are_reused_with_a_new_generation_after_a_recycle() {
        let table = CellTable::new();
        let (first, generation) = table.insert(Ready::EMPTY).unwrap();
        assert!(!table.remove(first));
        assert_eq!(table.len(), 0);
        // Not before the driver's next turn.
        let (other, _) = table.insert(Ready::EMPTY).unwrap();
        assert_ne!(other, first);
        table.recycle();
        let (again, next_generation) = table.insert(Ready::EMPTY).unwrap();
        assert_eq!(again, first);
        assert_ne!(next_generation, generation);
        assert_eq!(table.len(), 2);
    }

    #[test]
    fn the_recycle_after_th_release_asks_for_a_turn() {
        let table = CellTable::new();
        let indices: Vec<_> = (0..2 * RECYCLE_AFTER)
            .map(|_| table.insert(Ready::EMPTY).unwrap().0)
            .collect();
        let asks: Vec<_> = indices.iter().map(|&index| table.remove(index)).collect();
        assert_eq!(asks.iter().filter(|&&ask| ask).count(), 1);
        assert!(asks[RECYCLE_AFTER - 1]);
        table.recycle();
        assert!(!table.remove(table.insert(Ready::EMPTY).unwrap().0));
    }

    #[test]
    fn retired_cells_are_not_reused() {
        let table = CellTable::new();
        let (first, _) = table.insert(Ready::EMPTY).unwrap();
        table.retire(first);
        assert_eq!(table.len(), 0);
        let (second, _) = table.insert(Ready::EMPTY).unwrap();
        assert_ne!(second, first);
    }

    #[test]
    fn growing_past_a_page_keeps_earlier_cells_in_place() {
        let table = CellTable::new();
        let (index, _) = table.insert(Ready::EMPTY).unwrap();
        let before: *const ReadinessCell = table.get(index).unwrap();
        for _ in 0..4 * FIRST_PAGE {
            table.insert(Ready::EMPTY).unwrap();
        }
        assert!(ptr::eq(before, table.get(index).unwrap()));
        assert_eq!(table.len(), 4 * FIRST_PAGE + 1);
        assert!(table.get(100 * FIRST_PAGE).is_none());
    }
}
