//! Writes `benches/RESULTS.md` from criterion's output.
//!
//! Usage: `cargo run -p rt-benches --bin results [CRITERION_DIR [OUTPUT]]`.
//! `CRITERION_DIR` defaults to `$CARGO_TARGET_DIR/criterion` (or the
//! workspace's `target/criterion`), `OUTPUT` to `benches/RESULTS.md`.
//!
//! Convention (see `benches/README.md`): every criterion group is one
//! workload, and its functions are named after the runtime that ran it
//! (`<group>/rt`, `<group>/tokio`, `<group>/smol`). The generator takes the
//! median point estimate from `<group>/<function>/new/estimates.json` and
//! prints one row per group with the ratio of rt to every other runtime, so
//! any bench that follows the convention shows up without changes here.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// The runtime every ratio is taken against the others for.
const SUBJECT: &str = "rt";

/// Columns in this order first; other runtimes follow alphabetically.
const KNOWN_RUNTIMES: [&str; 3] = ["rt", "tokio", "smol"];

/// One measured function: its median time and that median's 95% interval,
/// in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Median {
    point: f64,
    lower: f64,
    upper: f64,
}

/// group -> runtime -> median.
type Results = BTreeMap<String, BTreeMap<String, Median>>;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args_os().skip(1);
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let criterion_dir = match args.next() {
        Some(dir) => PathBuf::from(dir),
        None => std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| manifest_dir.join("../target"))
            .join("criterion"),
    };
    let output = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir.join("RESULTS.md"));

    let (results, measured_at) = read_results(&criterion_dir)?;
    let machine = Machine::detect(measured_at)?;
    // Sections other tools write into the file (`http_load`'s table) are
    // carried over.
    let old = fs::read_to_string(&output).unwrap_or_default();
    let mut text = render(&results, &machine);
    for section in kept_sections(&old) {
        text.push('\n');
        text.push_str(section);
        text.push('\n');
    }
    fs::write(&output, text)?;
    println!(
        "wrote {} ({} workloads from {})",
        output.display(),
        results.len(),
        criterion_dir.display()
    );
    Ok(())
}

/// Reads every `<group>/<function>/new/{benchmark,estimates}.json` under
/// `dir`. Also returns when the newest estimate was written.
fn read_results(dir: &Path) -> Result<(Results, SystemTime), Box<dyn Error>> {
    let groups = fs::read_dir(dir).map_err(|e| {
        format!(
            "cannot read {}: {e}; run `cargo bench -p rt-benches` first",
            dir.display()
        )
    })?;
    let mut results = Results::new();
    let mut newest = SystemTime::UNIX_EPOCH;
    for group in groups {
        let group = group?.path();
        if !group.is_dir() {
            continue;
        }
        for function in fs::read_dir(&group)? {
            let new = function?.path().join("new");
            let estimates = new.join("estimates.json");
            if !estimates.is_file() {
                // criterion's `report/` directory, or a bench that never finished.
                continue;
            }
            let benchmark: Value =
                serde_json::from_str(&fs::read_to_string(new.join("benchmark.json"))?)?;
            let group_id = json_str(&benchmark, "group_id", &new)?;
            let function_id = json_str(&benchmark, "function_id", &new)?;
            let median = parse_median(&fs::read_to_string(&estimates)?)
                .map_err(|e| format!("{}: {e}", estimates.display()))?;
            results
                .entry(group_id)
                .or_default()
                .insert(function_id, median);
            newest = newest.max(fs::metadata(&estimates)?.modified()?);
        }
    }
    if results.is_empty() {
        return Err(format!(
            "no criterion estimates under {}; run `cargo bench -p rt-benches` first",
            dir.display()
        )
        .into());
    }
    Ok((results, newest))
}

fn json_str(value: &Value, key: &str, dir: &Path) -> Result<String, String> {
    value[key]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{}: benchmark.json has no string `{key}`", dir.display()))
}

/// The median from criterion's `estimates.json`.
fn parse_median(json: &str) -> Result<Median, Box<dyn Error>> {
    let value: Value = serde_json::from_str(json)?;
    let median = &value["median"];
    let number = |v: &Value, what: &str| {
        v.as_f64()
            .ok_or_else(|| format!("estimates.json has no numeric median {what}"))
    };
    Ok(Median {
        point: number(&median["point_estimate"], "point_estimate")?,
        lower: number(&median["confidence_interval"]["lower_bound"], "lower_bound")?,
        upper: number(&median["confidence_interval"]["upper_bound"], "upper_bound")?,
    })
}

/// Where the numbers were measured.
#[derive(Debug)]
struct Machine {
    cpus: usize,
    cpu_model: String,
    rustc: String,
    measured_at: String,
}

impl Machine {
    fn detect(measured_at: SystemTime) -> Result<Machine, Box<dyn Error>> {
        let cpuinfo = fs::read_to_string("/proc/cpuinfo")?;
        let cpu_model = cpuinfo
            .lines()
            .find_map(|line| {
                let (key, value) = line.split_once(':')?;
                (key.trim() == "model name").then(|| value.trim().to_owned())
            })
            .ok_or("/proc/cpuinfo has no `model name` line")?;
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let version = Command::new(&rustc).arg("-V").output()?;
        if !version.status.success() {
            return Err(format!("`{} -V` failed", rustc.to_string_lossy()).into());
        }
        Ok(Machine {
            cpus: std::thread::available_parallelism()?.get(),
            cpu_model,
            rustc: String::from_utf8(version.stdout)?.trim().to_owned(),
            measured_at: utc_timestamp(measured_at)?,
        })
    }
}

/// `YYYY-MM-DD HH:MM UTC`.
fn utc_timestamp(time: SystemTime) -> Result<String, Box<dyn Error>> {
    let secs = time.duration_since(SystemTime::UNIX_EPOCH)?.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    Ok(format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    ))
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day), by
/// counting 400-year eras that start on March 1st.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn runtime_columns(results: &Results) -> Vec<String> {
    let seen: BTreeSet<&str> = results
        .values()
        .flat_map(|functions| functions.keys().map(String::as_str))
        .collect();
    let mut columns: Vec<String> = KNOWN_RUNTIMES
        .iter()
        .filter(|name| seen.contains(*name))
        .map(|name| name.to_string())
        .collect();
    columns.extend(
        seen.iter()
            .filter(|name| !KNOWN_RUNTIMES.contains(name))
            .map(|name| name.to_string()),
    );
    columns
}

fn render(results: &Results, machine: &Machine) -> String {
    let columns = runtime_columns(results);
    let others: Vec<&String> = columns.iter().filter(|c| *c != SUBJECT).collect();
    let mut out = String::new();
    let _ = writeln!(out, "# Benchmark results\n");
    let _ = writeln!(
        out,
        "Generated by `cargo run -p rt-benches --bin results` from criterion's output of \
         `cargo bench -p rt-benches` (see `README.md`). Times are criterion's median per \
         iteration; a ratio is `{SUBJECT}` time / other time, so **below 1.0 means {SUBJECT} \
         is faster**. The machine is shared and noisy: read ratios, not absolute times, and \
         distrust differences under ~10%.\n"
    );
    let _ = writeln!(out, "- measured: {}", machine.measured_at);
    let _ = writeln!(out, "- CPUs (`nproc`): {}", machine.cpus);
    let _ = writeln!(out, "- CPU: {}", machine.cpu_model);
    let _ = writeln!(out, "- rustc: {}\n", machine.rustc);

    let mut header = String::from("| workload |");
    let mut rule = String::from("| --- |");
    for column in &columns {
        let _ = write!(header, " {column} |");
        rule.push_str(" ---: |");
    }
    for other in &others {
        let _ = write!(header, " {SUBJECT}/{other} |");
        rule.push_str(" ---: |");
    }
    let _ = writeln!(out, "{header}\n{rule}");

    let mut ratio_logs: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for (group, functions) in results {
        let _ = write!(out, "| {group} |");
        for column in &columns {
            match functions.get(column) {
                Some(median) => {
                    let _ = write!(out, " {} |", format_nanos(median.point));
                }
                None => out.push_str(" – |"),
            }
        }
        for other in &others {
            match (functions.get(SUBJECT), functions.get(other.as_str())) {
                (Some(subject), Some(theirs)) => {
                    let ratio = subject.point / theirs.point;
                    let entry = ratio_logs.entry(other.as_str()).or_default();
                    entry.0 += ratio.ln();
                    entry.1 += 1;
                    let _ = write!(out, " {} |", format_ratio(ratio));
                }
                _ => out.push_str(" – |"),
            }
        }
        out.push('\n');
    }

    if !ratio_logs.is_empty() {
        out.push('\n');
        for (other, (log_sum, count)) in &ratio_logs {
            let _ = writeln!(
                out,
                "Geometric mean of {SUBJECT}/{other} over {count} workloads: {:.2}",
                (log_sum / *count as f64).exp()
            );
        }
    }
    out
}

/// The blocks of `text` from a `<!-- NAME: begin -->` line to its
/// `<!-- NAME: end -->` line, both included.
fn kept_sections(text: &str) -> Vec<&str> {
    let mut sections = Vec::new();
    let mut rest = text;
    while let Some(begin) = rest.find("<!-- ") {
        let after = &rest[begin..];
        let Some(name) = after
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("<!-- "))
            .and_then(|line| line.strip_suffix(": begin -->"))
        else {
            rest = &after[5..];
            continue;
        };
        let end_marker = format!("<!-- {name}: end -->");
        match after.find(&end_marker) {
            Some(end) => {
                sections.push(&after[..end + end_marker.len()]);
                rest = &after[end + end_marker.len()..];
            }
            None => break,
        }
    }
    sections
}

/// Ratios above 1.0 (rt slower) are bold so they stand out.
fn format_ratio(ratio: f64) -> String {
    if ratio > 1.0 {
        format!("**{ratio:.2}**")
    } else {
        format!("{ratio:.2}")
    }
}

/// Three significant digits in the largest unit that keeps the value >= 1.
fn format_nanos(nanos: f64) -> String {
    let (value, unit) = if nanos >= 1e9 {
        (nanos / 1e9, "s")
    } else if nanos >= 1e6 {
        (nanos / 1e6, "ms")
    } else if nanos >= 1e3 {
        (nanos / 1e3, "µs")
    } else {
        (nanos, "ns")
    };
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_written_by_other_tools_are_kept() {
        let old = "# Benchmark results\n| a | b |\n\n<!-- http_load: begin -->\n## HTTP\n| x |\n<!-- http_load: end -->\n<!-- note -->\n";
        assert_eq!(
            kept_sections(old),
            ["<!-- http_load: begin -->\n## HTTP\n| x |\n<!-- http_load: end -->"]
        );
        assert!(kept_sections("no sections <!-- here -->").is_empty());
    }

    fn write_function(root: &Path, dir: &str, group: &str, function: &str, median: f64) {
        let new = root.join(dir).join(function).join("new");
        fs::create_dir_all(&new).unwrap();
        fs::write(
            new.join("benchmark.json"),
            format!(r#"{{"group_id":"{group}","function_id":"{function}","value_str":null}}"#),
        )
        .unwrap();
        let estimate = format!(
            r#"{{"point_estimate":{median},"standard_error":1.0,
                "confidence_interval":{{"confidence_level":0.95,"lower_bound":{},"upper_bound":{}}}}}"#,
            median - 1.0,
            median + 1.0
        );
        fs::write(
            new.join("estimates.json"),
            format!(r#"{{"mean":{estimate},"median":{estimate}}}"#),
        )
        .unwrap();
    }

    #[test]
    fn table_has_a_row_per_group_and_ratios_against_rt() {
        let root = std::env::temp_dir().join(format!("rt-benches-results-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        write_function(&root, "ping_pong", "ping_pong", "rt", 2_000.0);
        write_function(&root, "ping_pong", "ping_pong", "tokio", 4_000.0);
        write_function(&root, "ping_pong", "ping_pong", "smol", 1_000.0);
        // A group directory name differs from its id when criterion
        // sanitised it; the id from benchmark.json wins.
        write_function(&root, "timer_wheel", "timer/wheel", "rt", 3_000_000.0);
        write_function(&root, "timer_wheel", "timer/wheel", "tokio", 3_000_000.0);
        fs::create_dir_all(root.join("report")).unwrap();

        let (results, _) = read_results(&root).unwrap();
        fs::remove_dir_all(&root).unwrap();
        let machine = Machine {
            cpus: 2,
            cpu_model: "Test CPU".into(),
            rustc: "rustc 1.0.0".into(),
            measured_at: "2026-01-01 00:00 UTC".into(),
        };
        let table = render(&results, &machine);

        assert!(table.contains("| workload | rt | tokio | smol | rt/tokio | rt/smol |"));
        assert!(table.contains("| ping_pong | 2.00 µs | 4.00 µs | 1.00 µs | 0.50 | **2.00** |"));
        assert!(table.contains("| timer/wheel | 3.00 ms | 3.00 ms | – | 1.00 | – |"));
        assert!(table.contains("Geometric mean of rt/tokio over 2 workloads: 0.71"));
        assert!(table.contains("- CPU: Test CPU"));
    }

    #[test]
    fn missing_directory_says_how_to_produce_it() {
        let error = read_results(Path::new("/nonexistent/criterion")).unwrap_err();
        assert!(error.to_string().contains("cargo bench -p rt-benches"));
    }

    #[test]
    fn dates_and_durations_format() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_513), (2026, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(format_nanos(950.0), "950 ns");
        assert_eq!(format_nanos(12_345.0), "12.3 µs");
        assert_eq!(format_nanos(1_500_000_000.0), "1.50 s");
    }
}
