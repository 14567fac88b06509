//! Many children at once: 1,000 `true` processes spawned before any is
//! waited for, all reaped, and children dropped unwaited reaped too. One
//! test in its own binary, so the zombie count sees only its children.

mod support;

use rt::process::Command;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::{Kind, raise_fd_limit};

const CHILDREN: usize = 1000;

/// Our children (by `/proc/*/stat`'s parent pid): how many, and how many
/// of them are zombies (exited, not reaped).
fn our_children() -> (usize, usize) {
    let me = std::process::id();
    let mut children = 0;
    let mut zombies = 0;
    for entry in std::fs::read_dir("/proc").unwrap() {
        let Ok(entry) = entry else { continue };
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        // Gone since the listing: not ours to count.
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": the command name may hold spaces and
        // parentheses, so split after its last ')'.
        let mut fields = stat.rsplit(')').next().unwrap_or("").split_whitespace();
        let state = fields.next();
        let parent = fields.next().and_then(|p| p.parse::<u32>().ok());
        if parent == Some(me) {
            children += 1;
            zombies += usize::from(state == Some("Z"));
        }
    }
    (children, zombies)
}

fn quiet_true() -> Command {
    let mut command = Command::new("true");
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

#[test]
fn a_thousand_children_at_once_are_all_reaped() {
    // A pidfd per child, plus the runtime's own descriptors.
    assert!(
        raise_fd_limit() > CHILDREN as u64 + 100,
        "the descriptor limit is too low for {CHILDREN} children"
    );
    for kind in [Kind::CurrentThread, Kind::MultiThread(2)] {
        eprintln!("--- on {kind:?}");
        let rt = kind.build();
        rt.block_on(async {
            // All spawned before any wait: they exit in any order while
            // their exits queue up in the reactor.
            let mut children: Vec<_> = (0..CHILDREN)
                .map(|_| quiet_true().spawn().expect("spawning `true`"))
                .collect();
            // Half awaited by tasks of their own, half from here.
            let second_half = children.split_off(CHILDREN / 2);
            let waiters: Vec<_> = second_half
                .into_iter()
                .map(|mut child| rt::spawn(async move { child.wait().await.unwrap() }))
                .collect();
            for child in &mut children {
                assert!(child.wait().await.unwrap().success());
            }
            for waiter in waiters {
                assert!(waiter.await.unwrap().success());
            }
        });
        assert_eq!(
            our_children(),
            (0, 0),
            "children left after all were waited for"
        );

        // Dropped without a wait: reaped by the runtime in the background.
        rt.block_on(async {
            for _ in 0..CHILDREN / 4 {
                drop(quiet_true().spawn().unwrap());
            }
            let deadline = Instant::now() + Duration::from_secs(60);
            loop {
                let (children, zombies) = our_children();
                if children == 0 {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "{children} dropped children never reaped ({zombies} zombies)"
                );
                rt::time::sleep(Duration::from_millis(5)).await;
            }
        });
        // The reapers finish right after their last reap.
        support::wait_until("the background reapers finish", || {
            rt.handle().metrics().num_alive_tasks() == 0
        });
    }
}
