//! The facade's stdin/stdout/stderr: this test binary runs itself as a
//! child with piped standard streams, the child echoes its input through
//! tokio's traits on each runtime flavour.

mod support;

use std::process::{Command, Stdio};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const CHILD: &str = "FACADE_STDIO_CHILD";

/// The child's side: uppercase each line of stdin to stdout, count the
/// lines on stderr. Does nothing when not run as the child.
#[test]
fn stdio_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    support::block_on(async {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        let mut out = tokio::io::stdout();
        let mut count = 0;
        while let Some(line) = lines.next_line().await.unwrap() {
            out.write_all(format!("{}\n", line.to_uppercase()).as_bytes())
                .await
                .unwrap();
            count += 1;
        }
        out.flush().await.unwrap();
        let mut err = tokio::io::stderr();
        err.write_all(format!("lines={count}\n").as_bytes())
            .await
            .unwrap();
        err.flush().await.unwrap();
    });
}

#[test]
fn stdin_stdout_stderr_echo_through_a_child() {
    let big = "y".repeat(70_000);
    let input = format!("hello\nworld\n{big}\n");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "stdio_child",
            "--test-threads=1",
            "--nocapture",
            "-q",
        ])
        .env(CHILD, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
    });
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("HELLO\nWORLD\n"), "{stdout}");
    assert!(
        stdout.contains(&"Y".repeat(70_000)),
        "the long line came back whole"
    );
    assert!(stderr.contains("lines=3"), "{stderr}");
}
