#![deny(warnings)]

//! Every form of `select!`, `join!`, `try_join!` and `pin!` compiles
//! without a warning: the checks the expansion makes on patterns (never
//! seen by the user) must not leak unused-variable or unreachable-pattern
//! lints, and `mut`/`ref`/`&` in patterns stay legal.

use std::future::ready;

struct Point {
    x: u32,
    y: u32,
}

#[rt::main(flavor = "current_thread")]
async fn main() {
    let (tx, mut rx) = rt::sync::mpsc::channel::<u32>(1);
    tx.send(1).await.unwrap();

    // Irrefutable and refutable patterns, preconditions, block handlers
    // without commas, `else`.
    let enabled = true;
    let a = rt::select! {
        biased;
        Some(mut v) = rx.recv(), if enabled => {
            v += 1;
            v
        }
        v = ready(5) => v,
        else => 0,
    };
    assert_eq!(a, 2);

    let b = rt::select! {
        Point { x, y: ref y_ref } = ready(Point { x: 1, y: 2 }) => x + *y_ref,
        (first, 0) | (0, first) = ready((3u32, 0u32)) => first,
    };
    assert!(b == 3);

    let value = 7u32;
    let c = rt::select! { &v = ready(&value) => v };
    let d = rt::select! { v @ 1..=9 = ready(4u32) => v, else => 0 };
    let e = rt::select! {
        biased;
        Ok::<u32, ()>(v) = async { Ok(v_of(c)) } => v,
        Err(()) = ready(Err::<u32, ()>(())) => 0,
    };
    assert_eq!((c, d, e), (7, 4, 7));

    // Nested `select!` and a loop with `break` from a handler.
    let mut n = 0;
    loop {
        rt::select! {
            _ = ready(()) => {
                rt::select! {
                    _ = ready(()) => n += 1,
                }
            }
        }
        if n == 3 {
            break;
        }
    }

    let ((), two) = rt::join!(ready(()), async { 2 });
    let joined: Result<(u8, &str), ()> = rt::try_join!(ready(Ok(1)), async { Ok("x") });
    assert_eq!((two, joined), (2, Ok((1, "x"))));

    let fut = async { 9 };
    rt::pin!(fut);
    assert_eq!(fut.await, 9);
}

fn v_of(v: u32) -> u32 {
    v
}
