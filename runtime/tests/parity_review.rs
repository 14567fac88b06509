//! Review of the tokio-parity additions: each test pins a behaviour a
//! port from tokio 1.54 relies on.

use rt::io::{AsyncReadExt, AsyncWriteExt};
use rt::process::Command;
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::process::Stdio;

/// tokio's `ChildStdin` lends its descriptor for as long as it lives (its
/// `shutdown` leaves the pipe open), so `as_raw_fd`/`as_fd` never panic.
/// rt's `shutdown` closes the pipe so the child sees the end of its input;
/// after that the descriptor lent must still be a valid one, on which a
/// write fails as on a closed pipe, instead of a panic.
#[test]
fn child_stdin_lends_a_descriptor_after_shutdown() {
    let rt = rt::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        stdin.write_all(b"before").await.unwrap();
        stdin.shutdown().await.unwrap();

        // The child saw the end of its input.
        let mut echoed = Vec::new();
        stdout.read_to_end(&mut echoed).await.unwrap();
        assert_eq!(echoed, b"before");
        assert!(child.wait().await.unwrap().success());

        // The descriptor is still lent, and writing to it fails.
        assert!(stdin.as_raw_fd() >= 0);
        let lent = stdin.as_fd().try_clone_to_owned().unwrap();
        let err = std::fs::File::from(lent).write(b"after").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe, "{err}");
        let err = stdin.write(b"after").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe, "{err}");
        // A second shutdown is as harmless as tokio's.
        stdin.shutdown().await.unwrap();
        assert!(format!("{stdin:?}").contains("ChildStdin"));
    });
}
