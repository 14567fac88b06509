//! `ReadBuf`: its regions and invariants, and misuse panicking with
//! tokio's messages.

use std::mem::MaybeUninit;
use tokio::io::ReadBuf;

#[test]
fn new_counts_everything_initialised_nothing_filled() {
    let mut memory = [7u8; 8];
    let buf = ReadBuf::new(&mut memory);
    assert_eq!(buf.capacity(), 8);
    assert_eq!(buf.remaining(), 8);
    assert!(buf.filled().is_empty());
    assert_eq!(buf.initialized(), [7; 8]);
}

#[test]
fn uninit_counts_nothing_initialised() {
    let mut memory = [MaybeUninit::<u8>::uninit(); 8];
    let buf = ReadBuf::uninit(&mut memory);
    assert!(buf.initialized().is_empty());
    assert_eq!(buf.remaining(), 8);
}

#[test]
fn put_slice_fills_and_initialises() {
    let mut memory = [MaybeUninit::<u8>::uninit(); 8];
    let mut buf = ReadBuf::uninit(&mut memory);
    buf.put_slice(b"abc");
    buf.put_slice(b"de");
    assert_eq!(buf.filled(), b"abcde");
    assert_eq!(buf.initialized(), b"abcde");
    assert_eq!(buf.remaining(), 3);
    buf.filled_mut()[0] = b'A';
    assert_eq!(buf.filled(), b"Abcde");
}

#[test]
fn initialize_unfilled_zeroes_only_what_was_not_initialised() {
    let mut memory = [MaybeUninit::<u8>::uninit(); 6];
    let mut buf = ReadBuf::uninit(&mut memory);
    buf.put_slice(b"ab");
    buf.set_filled(0);
    // The two initialised bytes keep their contents; the rest is zeroed.
    assert_eq!(buf.initialize_unfilled(), b"ab\0\0\0\0");
    assert_eq!(buf.initialized().len(), 6);
    assert_eq!(buf.initialize_unfilled_to(3).len(), 3);
}

#[test]
fn advance_and_set_filled_stay_within_initialised() {
    let mut memory = [0u8; 4];
    let mut buf = ReadBuf::new(&mut memory);
    buf.advance(3);
    assert_eq!(buf.filled().len(), 3);
    buf.set_filled(1);
    assert_eq!(buf.filled().len(), 1);
    buf.clear();
    assert!(buf.filled().is_empty());
    assert_eq!(buf.initialized().len(), 4);
}

#[test]
fn assume_init_never_shrinks_the_initialised_part() {
    let mut memory = [MaybeUninit::<u8>::uninit(); 4];
    let mut buf = ReadBuf::uninit(&mut memory);
    buf.put_slice(b"abc");
    buf.set_filled(1);
    // SAFETY: the first unfilled byte (`b`) is initialised.
    unsafe { buf.assume_init(1) };
    assert_eq!(buf.initialized(), b"abc");
}

#[test]
fn take_limits_and_carries_initialisation() {
    let mut memory = [MaybeUninit::<u8>::uninit(); 8];
    let mut buf = ReadBuf::uninit(&mut memory);
    buf.put_slice(b"xyz");
    buf.set_filled(1);
    let mut front = buf.take(5);
    assert_eq!(front.capacity(), 5);
    // `y` and `z` were initialised in the parent.
    assert_eq!(front.initialized(), b"yz");
    front.put_slice(b"12");
    assert_eq!(buf.take(100).capacity(), 7);
}

#[test]
#[should_panic(expected = "filled must not become larger than initialized")]
fn advancing_past_the_initialised_part_panics() {
    let mut memory = [MaybeUninit::<u8>::uninit(); 4];
    let mut buf = ReadBuf::uninit(&mut memory);
    buf.advance(1);
}

#[test]
#[should_panic(expected = "filled overflow")]
fn advance_overflow_panics() {
    let mut memory = [0u8; 4];
    let mut buf = ReadBuf::new(&mut memory);
    buf.advance(1);
    buf.advance(usize::MAX);
}

#[test]
#[should_panic(expected = "buf.len() must fit in remaining()")]
fn put_slice_past_capacity_panics() {
    let mut memory = [0u8; 2];
    let mut buf = ReadBuf::new(&mut memory);
    buf.put_slice(b"abc");
}

#[test]
#[should_panic(expected = "n overflows remaining")]
fn initialize_unfilled_to_past_capacity_panics() {
    let mut memory = [0u8; 2];
    let mut buf = ReadBuf::new(&mut memory);
    buf.initialize_unfilled_to(3);
}

#[cfg(feature = "bytes")]
#[test]
fn buf_mut_writes_into_the_unfilled_part() {
    use bytes::BufMut;
    let mut memory = [MaybeUninit::<u8>::uninit(); 8];
    let mut buf = ReadBuf::uninit(&mut memory);
    buf.put_u16(0x0102);
    buf.put_slice(b"ab");
    assert_eq!(buf.filled(), [1, 2, b'a', b'b']);
    assert_eq!(BufMut::remaining_mut(&buf), 4);
}

#[test]
fn debug_shows_the_three_counts() {
    let mut memory = [0u8; 4];
    let mut buf = ReadBuf::new(&mut memory);
    buf.advance(1);
    assert_eq!(
        format!("{buf:?}"),
        "ReadBuf { filled: 1, initialized: 4, capacity: 4 }"
    );
}
