//! The I/O constructors that panic on a zero capacity report the caller's
//! line, not the facade's or rt's (`#[track_caller]` all the way down), as
//! tokio's do.

use std::panic::{self, Location};
use std::sync::{Arc, Mutex};

/// The file in which `f` panicked, as the panic hook saw it.
fn panic_file(f: impl FnOnce() + panic::UnwindSafe) -> String {
    let seen: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let hook_seen = seen.clone();
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        *hook_seen.lock().unwrap() = info.location().map(|l| l.file().to_owned());
    }));
    let result = panic::catch_unwind(f);
    panic::set_hook(previous);
    assert!(result.is_err(), "expected a panic");
    let file = seen.lock().unwrap().take();
    file.expect("the panic has a location")
}

fn this_file() -> &'static str {
    Location::caller().file()
}

// One test: the panic hook is process-wide, so the cases run in turn.
#[test]
fn zero_capacity_panics_point_at_the_caller() {
    let here = this_file();
    assert_eq!(
        panic_file(|| drop(tokio::io::BufReader::with_capacity(0, tokio::io::empty()))),
        here,
        "BufReader::with_capacity"
    );
    assert_eq!(
        panic_file(|| drop(tokio::io::BufStream::with_capacity(
            0,
            1,
            tokio::io::empty()
        ))),
        here,
        "BufStream::with_capacity"
    );
    assert_eq!(panic_file(|| drop(tokio::io::duplex(0))), here, "duplex");
    assert_eq!(panic_file(|| drop(tokio::io::simplex(0))), here, "simplex");
    assert_eq!(
        panic_file(|| drop(tokio::io::SimplexStream::new_unsplit(0))),
        here,
        "SimplexStream::new_unsplit"
    );
}
