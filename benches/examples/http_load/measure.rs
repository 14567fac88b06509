//! What is read off the server process: its CPU time (`/proc/PID/stat`)
//! and, optionally, its system calls (`strace -c -f` attached to it).

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
