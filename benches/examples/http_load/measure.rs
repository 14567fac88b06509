//! What is read off the server process: its CPU time (`/proc/PID/stat`)
//! and, optionally, its system calls (`strace -c -f` attached to it) or
//! the instructions it executes (the server run under valgrind's
//! callgrind, whose counters `callgrind_control` dumps on demand).

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// User plus system CPU time the process `pid` (all its threads) has used,
/// in seconds (at the kernel's clock-tick resolution, usually 10 ms).
pub(crate) fn cpu_seconds(pid: u32) -> io::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name (field 2) may hold spaces: count fields after it.
    let after_name = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| io::Error::other("malformed /proc/PID/stat"))?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 (utime) and 15 (stime), counted from 1; `fields[0]` is
    // field 3.
    let ticks = |field: usize| -> io::Result<u64> {
        fields
            .get(field - 3)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| io::Error::other("malformed /proc/PID/stat"))
    };
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let per_second = if per_second > 0 {
        per_second as f64
    } else {
        100.0
    };
    Ok((ticks(14)? + ticks(15)?) as f64 / per_second)
}

/// Whether `strace` is installed.
pub(crate) fn strace_available() -> bool {
    Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// `strace -c -f` attached to a running process.
pub(crate) struct Strace {
    child: Child,
    output: PathBuf,
}

/// Per-syscall counts: name -> (calls, failed calls).
pub(crate) type SyscallCounts = BTreeMap<String, (u64, u64)>;

impl Strace {
    /// Attaches to every thread of `pid`; returns once strace reports it
    /// is attached.
    pub(crate) fn attach(pid: u32) -> io::Result<Strace> {
        let output = std::env::temp_dir().join(format!("http_load-strace-{pid}.txt"));
        let mut child = Command::new("strace")
            .args(["-c", "-f", "-o"])
            .arg(&output)
            .arg("-p")
            .arg(pid.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        let stderr = child.stderr.take().expect("piped stderr");
        let mut lines = BufReader::new(stderr).lines();
        loop {
            match lines.next() {
                Some(Ok(line)) if line.contains("attached") => break,
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e),
                None => {
                    let status = child.wait()?;
                    return Err(io::Error::other(format!(
                        "strace exited ({status}) before attaching to {pid} (is ptrace allowed?)"
                    )));
                }
            }
        }
        // Keep draining strace's stderr so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Ok(Strace { child, output })
    }

    /// Detaches and reads the counts.
    pub(crate) fn finish(mut self) -> io::Result<SyscallCounts> {
        // SAFETY: kill has no memory preconditions; the pid is our child's.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
        self.child.wait()?;
        let text = std::fs::read_to_string(&self.output)?;
        let _ = std::fs::remove_file(&self.output);
        Ok(parse_strace_summary(&text))
    }
}

/// Whether valgrind's callgrind and `callgrind_control` are installed.
pub(crate) fn callgrind_available() -> bool {
    ["valgrind", "callgrind_control"].iter().all(|tool| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|out| out.status.success())
    })
}

/// A server process running under callgrind: counts every instruction
/// its threads execute in user space (the kernel's share is not counted),
/// the same on any machine load, unlike CPU time. Under valgrind the
/// server's threads take turns on one CPU and run ~50x slower.
pub(crate) struct Callgrind {
    pid: u32,
    /// The dumps are `<base>.<N>`, numbered from 1.
    base: PathBuf,
    dumps: u32,
}

impl Callgrind {
    /// `program args..` as a command that runs it under callgrind, its
    /// dumps going to a fresh file name in the temporary directory; hand
    /// the started process to [`Callgrind::attach`].
    pub(crate) fn command(program: &std::path::Path, tag: &str) -> (Command, PathBuf) {
        let base = std::env::temp_dir().join(format!(
            "http_load-callgrind-{}-{tag}.out",
            std::process::id()
        ));
        let mut command = Command::new("valgrind");
        command
            .arg("--tool=callgrind")
            .arg("-q")
            .arg(format!("--callgrind-out-file={}", base.display()));
        // More of valgrind's options, a cache simulation say
        // (`benches/README.md`).
        if let Ok(extra) = std::env::var("HTTP_LOAD_VALGRIND") {
            command.args(extra.split_whitespace());
        }
        command.arg(program);
        (command, base)
    }

    /// The server `pid` started with [`Callgrind::command`]'s `base`.
    pub(crate) fn attach(pid: u32, base: PathBuf) -> Callgrind {
        Callgrind {
            pid,
            base,
            dumps: 0,
        }
    }

    /// Dumps and zeroes the counters: the instructions executed since the
    /// previous dump (or the start).
    pub(crate) fn dump(&mut self) -> io::Result<u64> {
        let out = Command::new("callgrind_control")
            .arg("-d")
            .arg(self.pid.to_string())
            .output()?;
        if !out.status.success() {
            return Err(io::Error::other(format!(
                "callgrind_control -d {} failed: {}",
                self.pid,
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        self.dumps += 1;
        let path = PathBuf::from(format!("{}.{}", self.base.display(), self.dumps));
        let text = std::fs::read_to_string(&path)
            .map_err(|e| io::Error::new(e.kind(), format!("reading {}: {e}", path.display())))?;
        // Kept for `callgrind_annotate` when asked (`benches/README.md`).
        if std::env::var_os("HTTP_LOAD_KEEP").is_none() {
            let _ = std::fs::remove_file(&path);
        }
        parse_callgrind_total(&text)
            .ok_or_else(|| io::Error::other(format!("no totals in {}", path.display())))
    }
}

impl Drop for Callgrind {
    fn drop(&mut self) {
        // The final dump valgrind writes when the server exits.
        let _ = std::fs::remove_file(&self.base);
    }
}

/// The instruction count (`Ir`) of a callgrind dump: its `summary:` line,
/// or its `totals:` line.
fn parse_callgrind_total(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| {
            line.strip_prefix("summary:")
                .or_else(|| line.strip_prefix("totals:"))
        })
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|ir| ir.parse().ok())
}

/// Reads the table `strace -c` writes:
/// `% time  seconds  usecs/call  calls  [errors]  syscall`.
fn parse_strace_summary(text: &str) -> SyscallCounts {
    let mut counts = SyscallCounts::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() < 5 || words[0].starts_with('-') || words[0] == "%" {
            continue;
        }
        let name = words[words.len() - 1];
        if name == "total" {
            continue;
        }
        let Ok(calls) = words[3].parse::<u64>() else {
            continue;
        };
        let errors = if words.len() >= 6 {
            words[4].parse().unwrap_or(0)
        } else {
            0
        };
        counts.insert(name.to_owned(), (calls, errors));
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_callgrind_totals() {
        let text = "# callgrind format\nversion: 1\ncreator: callgrind-3.24.0\npid: 42\n\
                    cmd: server\npart: 3\n\nevents: Ir\n\nsummary: 123456789\n\nfl=(1) a.rs\n";
        assert_eq!(parse_callgrind_total(text), Some(123_456_789));
        assert_eq!(parse_callgrind_total("events: Ir\ntotals: 7\n"), Some(7));
        assert_eq!(parse_callgrind_total("events: Ir\n"), None);
    }

    #[test]
    fn parses_strace_summary() {
        let text = "% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 50.00    0.500000           5    100000     50000 recvfrom
 30.00    0.300000           3    100000           writev
 20.00    0.200000           2     40000           epoll_wait
------ ----------- ----------- --------- --------- ----------------
100.00    1.000000           4    240000     50000 total
";
        let counts = parse_strace_summary(text);
        assert_eq!(counts["recvfrom"], (100_000, 50_000));
        assert_eq!(counts["writev"], (100_000, 0));
        assert_eq!(counts["epoll_wait"], (40_000, 0));
        assert_eq!(counts.len(), 3);
    }
}
