//! `ReadBuf`: a byte buffer that is filled from the front, with the part
//! after the filled bytes possibly uninitialised.
//!
//! Three regions, in order: *filled* (`..filled`, bytes a read put there),
//! *initialised but unfilled* (`filled..initialized`), and *uninitialised*
//! (`initialized..capacity`). Invariant: `filled <= initialized <=
//! capacity`; every method below keeps it, and a call that would break it
//! panics with tokio's message.

use std::fmt;
use std::mem::MaybeUninit;

/// A buffer for a read: the filled part at the front, then memory that may
/// be uninitialised, which a reader fills without anyone zeroing it first.
///
/// [`AsyncRead::poll_read`](crate::io::AsyncRead::poll_read) appends to it:
/// the reader writes into [`unfilled_mut`](ReadBuf::unfilled_mut) (or
/// [`initialize_unfilled`](ReadBuf::initialize_unfilled) when it needs
/// `&mut [u8]`), then [`advance`](ReadBuf::advance)s past what it wrote, or
/// copies with [`put_slice`](ReadBuf::put_slice).
///
/// # Examples
///
/// ```
/// use std::mem::MaybeUninit;
/// use tokio::io::ReadBuf;
///
/// let mut memory = [MaybeUninit::<u8>::uninit(); 8];
/// let mut buf = ReadBuf::uninit(&mut memory);
/// buf.put_slice(b"abc");
/// assert_eq!(buf.filled(), b"abc");
/// assert_eq!(buf.remaining(), 5);
/// ```
pub struct ReadBuf<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    filled: usize,
    initialized: usize,
}

impl<'a> ReadBuf<'a> {
    /// A buffer over initialised memory: all of it counts as initialised,
    /// none as filled.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// let buf = tokio::io::ReadBuf::new(&mut memory);
    /// assert_eq!(buf.initialized().len(), 4);
    /// assert!(buf.filled().is_empty());
    /// ```
    #[inline]
    pub fn new(buf: &'a mut [u8]) -> ReadBuf<'a> {
        let initialized = buf.len();
        // SAFETY: `[u8]` and `[MaybeUninit<u8>]` have the same layout, and
        // the `ReadBuf` never writes uninitialised bytes into it (no
        // method de-initialises memory; `inner_mut`/`unfilled_mut` are
        // `unsafe` with that duty on the caller).
        let buf = unsafe { &mut *(buf as *mut [u8] as *mut [MaybeUninit<u8>]) };
        ReadBuf {
            buf,
            filled: 0,
            initialized,
        }
    }

    /// A buffer over memory that may be uninitialised: none of it counts as
    /// initialised or filled.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::mem::MaybeUninit;
    ///
    /// let mut memory = [MaybeUninit::<u8>::uninit(); 4];
    /// let buf = tokio::io::ReadBuf::uninit(&mut memory);
    /// assert!(buf.initialized().is_empty());
    /// assert_eq!(buf.capacity(), 4);
    /// ```
    #[inline]
    pub fn uninit(buf: &'a mut [MaybeUninit<u8>]) -> ReadBuf<'a> {
        ReadBuf {
            buf,
            filled: 0,
            initialized: 0,
        }
    }

    /// The size of the whole buffer.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// assert_eq!(tokio::io::ReadBuf::new(&mut memory).capacity(), 4);
    /// ```
    #[inline]
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The filled part.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// buf.put_slice(b"hi");
    /// assert_eq!(buf.filled(), b"hi");
    /// ```
    #[inline]
    pub fn filled(&self) -> &[u8] {
        // SAFETY: `..filled` is initialised (`filled <= initialized`).
        unsafe { assume_init(&self.buf[..self.filled]) }
    }

    /// The filled part, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// buf.put_slice(b"hi");
    /// buf.filled_mut()[0] = b'H';
    /// assert_eq!(buf.filled(), b"Hi");
    /// ```
    #[inline]
    pub fn filled_mut(&mut self) -> &mut [u8] {
        // SAFETY: `..filled` is initialised (`filled <= initialized`).
        unsafe { assume_init_mut(&mut self.buf[..self.filled]) }
    }

    /// A new buffer over at most `n` bytes of the unfilled part, knowing
    /// which of them are initialised. What a read puts in it is not
    /// counted in `self` until `self` is advanced (after
    /// [`assume_init`](ReadBuf::assume_init) if the bytes were
    /// uninitialised).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 8];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// let mut front = buf.take(3);
    /// front.put_slice(b"abc");
    /// let n = front.filled().len();
    /// buf.advance(n);
    /// assert_eq!(buf.filled(), b"abc");
    /// ```
    #[inline]
    pub fn take(&mut self, n: usize) -> ReadBuf<'_> {
        let max = n.min(self.remaining());
        let initialized = (self.initialized - self.filled).min(max);
        ReadBuf {
            buf: &mut self.buf[self.filled..self.filled + max],
            filled: 0,
            initialized,
        }
    }

    /// The initialised part (filled, then initialised but unfilled).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// buf.put_slice(b"a");
    /// assert_eq!(buf.initialized(), b"a\0\0\0");
    /// ```
    #[inline]
    pub fn initialized(&self) -> &[u8] {
        // SAFETY: `..initialized` is initialised, by this field's meaning.
        unsafe { assume_init(&self.buf[..self.initialized]) }
    }

    /// The initialised part, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 2];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// buf.initialized_mut()[1] = 7;
    /// assert_eq!(buf.initialized(), [0, 7]);
    /// ```
    #[inline]
    pub fn initialized_mut(&mut self) -> &mut [u8] {
        // SAFETY: `..initialized` is initialised, by this field's meaning.
        unsafe { assume_init_mut(&mut self.buf[..self.initialized]) }
    }

    /// The whole buffer, whatever its state.
    ///
    /// # Safety
    ///
    /// The caller must not de-initialise any byte of it (write
    /// `MaybeUninit::uninit()` into a byte counted as initialised).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// // SAFETY: only initialised bytes are written.
    /// unsafe { buf.inner_mut()[0].write(1) };
    /// assert_eq!(buf.initialized()[0], 1);
    /// ```
    #[inline]
    pub unsafe fn inner_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        self.buf
    }

    /// The unfilled part, which may be uninitialised: where a reader
    /// writes. Tell the buffer what was written with
    /// [`assume_init`](ReadBuf::assume_init) and
    /// [`advance`](ReadBuf::advance).
    ///
    /// # Safety
    ///
    /// The caller must not de-initialise any byte of it.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::mem::MaybeUninit;
    ///
    /// let mut memory = [MaybeUninit::<u8>::uninit(); 4];
    /// let mut buf = tokio::io::ReadBuf::uninit(&mut memory);
    /// // SAFETY: only initialised bytes are written.
    /// unsafe {
    ///     buf.unfilled_mut()[0].write(b'x');
    ///     buf.assume_init(1);
    /// }
    /// buf.advance(1);
    /// assert_eq!(buf.filled(), b"x");
    /// ```
    #[inline]
    pub unsafe fn unfilled_mut(&mut self) -> &mut [MaybeUninit<u8>] {
        &mut self.buf[self.filled..]
    }

    /// The whole unfilled part as initialised memory, zeroing what was not
    /// initialised yet (only that: bytes initialised earlier are left as
    /// they are).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::mem::MaybeUninit;
    ///
    /// let mut memory = [MaybeUninit::<u8>::uninit(); 4];
    /// let mut buf = tokio::io::ReadBuf::uninit(&mut memory);
    /// assert_eq!(buf.initialize_unfilled(), [0; 4]);
    /// assert_eq!(buf.initialized().len(), 4);
    /// ```
    #[inline]
    pub fn initialize_unfilled(&mut self) -> &mut [u8] {
        self.initialize_unfilled_to(self.remaining())
    }

    /// The first `n` bytes of the unfilled part as initialised memory,
    /// zeroing those that were not initialised yet.
    ///
    /// # Panics
    ///
    /// If `n` is more than [`remaining`](ReadBuf::remaining).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [std::mem::MaybeUninit::<u8>::uninit(); 4];
    /// let mut buf = tokio::io::ReadBuf::uninit(&mut memory);
    /// buf.initialize_unfilled_to(2).copy_from_slice(b"ok");
    /// buf.advance(2);
    /// assert_eq!(buf.filled(), b"ok");
    /// assert_eq!(buf.initialized().len(), 2);
    /// ```
    #[inline]
    #[track_caller]
    pub fn initialize_unfilled_to(&mut self, n: usize) -> &mut [u8] {
        assert!(self.remaining() >= n, "n overflows remaining");
        let end = self.filled + n;
        if self.initialized < end {
            for byte in &mut self.buf[self.initialized..end] {
                byte.write(0);
            }
            self.initialized = end;
        }
        // SAFETY: `filled..end` is initialised: below `initialized`, or
        // zeroed just above.
        unsafe { assume_init_mut(&mut self.buf[self.filled..end]) }
    }

    /// How many bytes are left unfilled.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// buf.advance(1);
    /// assert_eq!(buf.remaining(), 3);
    /// ```
    #[inline]
    pub fn remaining(&self) -> usize {
        self.capacity() - self.filled
    }

    /// Empties the filled part; the memory stays initialised.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// buf.put_slice(b"ab");
    /// buf.clear();
    /// assert!(buf.filled().is_empty());
    /// assert_eq!(buf.initialized().len(), 4);
    /// ```
    #[inline]
    pub fn clear(&mut self) {
        self.filled = 0;
    }

    /// Counts `n` more bytes as filled.
    ///
    /// # Panics
    ///
    /// If the filled part would go past the initialised part (or overflow
    /// `usize`): call [`assume_init`](ReadBuf::assume_init) first for bytes
    /// written through [`unfilled_mut`](ReadBuf::unfilled_mut).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// buf.initialize_unfilled()[..2].copy_from_slice(b"hi");
    /// buf.advance(2);
    /// assert_eq!(buf.filled(), b"hi");
    /// ```
    #[inline]
    #[track_caller]
    pub fn advance(&mut self, n: usize) {
        let filled = self.filled.checked_add(n).expect("filled overflow");
        self.set_filled(filled);
    }

    /// Sets how many bytes are filled (shrinking or growing the filled
    /// part).
    ///
    /// # Panics
    ///
    /// If `n` is more than the initialised part.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// buf.put_slice(b"abc");
    /// buf.set_filled(1);
    /// assert_eq!(buf.filled(), b"a");
    /// ```
    #[inline]
    #[track_caller]
    pub fn set_filled(&mut self, n: usize) {
        assert!(
            n <= self.initialized,
            "filled must not become larger than initialized"
        );
        self.filled = n;
    }

    /// Counts the first `n` unfilled bytes as initialised (never fewer
    /// than already are).
    ///
    /// # Safety
    ///
    /// The first `n` bytes of the unfilled part must be initialised.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [std::mem::MaybeUninit::<u8>::uninit(); 4];
    /// let mut buf = tokio::io::ReadBuf::uninit(&mut memory);
    /// // SAFETY: the two bytes are written before `assume_init` says so.
    /// unsafe {
    ///     buf.unfilled_mut()[0].write(1);
    ///     buf.unfilled_mut()[1].write(2);
    ///     buf.assume_init(2);
    /// }
    /// assert_eq!(buf.initialized(), [1, 2]);
    /// ```
    #[inline]
    pub unsafe fn assume_init(&mut self, n: usize) {
        let end = self.filled + n;
        if end > self.initialized {
            self.initialized = end;
        }
    }

    /// Appends `buf` to the filled part (copying into the unfilled part,
    /// which need not be initialised).
    ///
    /// # Panics
    ///
    /// If `buf` is longer than [`remaining`](ReadBuf::remaining).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut memory = [0u8; 4];
    /// let mut buf = tokio::io::ReadBuf::new(&mut memory);
    /// buf.put_slice(b"ab");
    /// buf.put_slice(b"cd");
    /// assert_eq!(buf.filled(), b"abcd");
    /// ```
    #[inline]
    #[track_caller]
    pub fn put_slice(&mut self, buf: &[u8]) {
        assert!(
            self.remaining() >= buf.len(),
            "buf.len() must fit in remaining(); buf.len() = {}, remaining() = {}",
            buf.len(),
            self.remaining()
        );
        let end = self.filled + buf.len();
        // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, so a `[u8]` of the
        // same length reads as `[MaybeUninit<u8>]`; the copy initialises
        // `filled..end`.
        let src = unsafe { &*(buf as *const [u8] as *const [MaybeUninit<u8>]) };
        self.buf[self.filled..end].copy_from_slice(src);
        if self.initialized < end {
            self.initialized = end;
        }
        self.filled = end;
    }
}

/// `bytes::BufMut` over the unfilled part (feature `io-util`, which brings
/// `bytes`), so `bytes`-based code writes into a `ReadBuf` directly.
#[cfg(feature = "bytes")]
// SAFETY: `remaining_mut` is the unfilled length, `chunk_mut` exposes
// exactly the unfilled part (as an `UninitSlice`, which never
// de-initialises), and `advance_mut` counts bytes the caller initialised
// (its contract) as initialised and filled.
unsafe impl bytes::BufMut for ReadBuf<'_> {
    fn remaining_mut(&self) -> usize {
        self.remaining()
    }

    unsafe fn advance_mut(&mut self, cnt: usize) {
        // SAFETY: the caller initialised the first `cnt` unfilled bytes
        // (`BufMut::advance_mut`'s contract).
        unsafe { self.assume_init(cnt) };
        self.advance(cnt);
    }

    fn chunk_mut(&mut self) -> &mut bytes::buf::UninitSlice {
        // SAFETY: an `UninitSlice` never de-initialises what it points to.
        let unfilled = unsafe { self.unfilled_mut() };
        bytes::buf::UninitSlice::uninit(unfilled)
    }
}

impl fmt::Debug for ReadBuf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadBuf")
            .field("filled", &self.filled)
            .field("initialized", &self.initialized)
            .field("capacity", &self.capacity())
            .finish()
    }
}

/// # Safety
///
/// Every byte of `slice` is initialised.
unsafe fn assume_init(slice: &[MaybeUninit<u8>]) -> &[u8] {
    // SAFETY: same layout, and the bytes are initialised (the caller's
    // duty).
    unsafe { &*(slice as *const [MaybeUninit<u8>] as *const [u8]) }
}

/// # Safety
///
/// Every byte of `slice` is initialised.
unsafe fn assume_init_mut(slice: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: same layout, and the bytes are initialised (the caller's
    // duty); a `&mut [u8]` can only write initialised bytes.
    unsafe { &mut *(slice as *mut [MaybeUninit<u8>] as *mut [u8]) }
}
