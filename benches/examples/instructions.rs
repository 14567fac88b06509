//! Instructions per iteration of rt's scheduler rows (the criterion rows
//! of `benches/rt_multi_thread.rs` and `benches/rt_current_thread.rs`,
//! their `/rt` functions), counted by valgrind's callgrind: a count that
//! hardly moves with the machine's load, unlike the rows' times, so two
//! builds of rt can be compared on a busy machine (`benches/ab-instructions`
//! runs this at two commits).
//!
//! ```sh
//! cargo build --profile bench -p rt-benches --example instructions
//! target/release/examples/instructions                  # every row
//! target/release/examples/instructions ct_ping_pong chained_spawn
//! ```
//!
//! Each row runs in processes of its own under `valgrind --tool=callgrind`
//! (the same iteration body criterion times, `benches/support/workloads.rs`,
//! on a fresh runtime of the row's flavour): one process runs `FEW`
//! iterations, another `FEW + MANY`; the difference of their totals over
//! `MANY` is the count per iteration, without the runtime's start-up and
//! shutdown and the first iterations' allocations. Callgrind counts the
//! user-space instructions of every thread (not the kernel's). It prints a
//! line per row: `row NAME INSTRUCTIONS MIN MAX`, the median over
//! `INSTRUCTIONS_REPEAT` (default 3) such pairs and their range.
//!
//! A current-thread row's count repeats to the instruction; a
//! multi-thread row's moves a little from pair to pair (valgrind runs the
//! threads one at a time, and how often a worker finds nothing to do, then
//! searches and parks, depends on when it is switched), hence the range.
//! `spawn_many_remote_busy`'s background tasks spin on the clock for
//! 10 µs of wall time per stall, so that row's count follows valgrind's
//! speed: compare it by time.
//!
//! Settings (environment): `INSTRUCTIONS_ITERS=FEW,MANY` (default `2,10`:
//! processes of 2 and of 12 iterations),
//! `INSTRUCTIONS_REPEAT`. `instructions --run ROW N` runs one row `N` times
//! without valgrind (what each measured process does).

#[path = "../benches/support/mod.rs"]
mod support;

use std::process::Command;
use support::{BenchRuntime, Flavor, NUM_WORKERS, Rt, workloads};

/// A row: its criterion group name, its flavour and its workload.
type Row = (&'static str, Flavor, fn(&Rt, usize));

const MT: Flavor = Flavor::MultiThread(NUM_WORKERS);
const CT: Flavor = Flavor::CurrentThread;

/// `rows![(name, flavour, workload), ...]`: each row runs its workload's
/// body `n` times on the runtime it is given.
macro_rules! rows {
    ($(($name:literal, $flavor:expr, $workload:path)),* $(,)?) => {
        &[$(($name, $flavor, |rt: &Rt, n: usize| repeat(n, $workload(rt)))),*]
    };
}

/// Every row, in the bench files' order.
const ROWS: &[Row] = rows![
    ("spawn_many_local", MT, workloads::spawn_many_local),
    (
        "spawn_many_remote_idle",
        MT,
        workloads::spawn_many_remote_idle
    ),
    (
        "spawn_many_remote_busy",
        MT,
        workloads::spawn_many_remote_busy
    ),
    ("remote_spawn", MT, workloads::remote_spawn),
    ("ping_pong", MT, workloads::ping_pong),
    ("yield_many", MT, workloads::yield_many),
    ("chained_spawn", MT, workloads::chained_spawn),
    ("ct_spawn_many_local", CT, workloads::spawn_many_local),
    (
        "ct_spawn_many_remote_idle",
        CT,
        workloads::spawn_many_remote_idle
    ),
    (
        "ct_spawn_many_remote_busy",
        CT,
        workloads::spawn_many_remote_busy_chain
    ),
    ("ct_ping_pong", CT, workloads::ping_pong),
    ("ct_yield_many", CT, workloads::yield_many),
    ("ct_chained_spawn", CT, workloads::chained_spawn),
];

/// Runs `body` `n` times, then drops it (before the runtime, as criterion
/// does).
fn repeat(n: usize, mut body: impl FnMut()) {
    for _ in 0..n {
        body();
    }
}

fn row(name: &str) -> &'static Row {
    ROWS.iter()
        .find(|(row, ..)| *row == name)
        .unwrap_or_else(|| {
            let names: Vec<&str> = ROWS.iter().map(|(row, ..)| *row).collect();
            panic!("no row {name:?}; the rows: {}", names.join(" "))
        })
}

/// `--run ROW N`: the row's body `N` times on a fresh runtime.
fn run(name: &str, iterations: usize) {
    let (_, flavor, workload) = row(name);
    let runtime = Rt::new(*flavor);
    workload(&runtime, iterations);
    drop(runtime);
}

/// The instructions of one process running `name` `iterations` times
/// under callgrind.
fn count(name: &str, iterations: usize) -> u64 {
    let out = std::env::temp_dir().join(format!(
        "rt-instructions-{}-{name}-{iterations}.out",
        std::process::id()
    ));
    let exe = std::env::current_exe().expect("this program's path");
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("-q")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .args(["--run", name, &iterations.to_string()])
        .status()
        .expect("running valgrind (apt-get install valgrind)");
    assert!(status.success(), "{name} under callgrind: {status}");
    let text = std::fs::read_to_string(&out).expect("callgrind's output file");
    std::fs::remove_file(&out).expect("removing callgrind's output file");
    text.lines()
        .find_map(|line| {
            line.strip_prefix("summary:")
                .or_else(|| line.strip_prefix("totals:"))
        })
        .and_then(|total| total.trim().parse().ok())
        .unwrap_or_else(|| panic!("no instruction total in callgrind's output for {name}"))
}

/// A setting from the environment, or its default.
fn setting(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--run") {
        let [_, name, n] = &args[..] else {
            panic!("usage: instructions --run ROW ITERATIONS")
        };
        run(name, n.parse().expect("ITERATIONS is a number"));
        return;
    }
    let iters = setting("INSTRUCTIONS_ITERS", "2,10");
    let (few, many) = iters
        .split_once(',')
        .and_then(|(few, many)| Some((few.parse::<usize>().ok()?, many.parse::<usize>().ok()?)))
        .filter(|&(_, many)| many > 0)
        .expect("INSTRUCTIONS_ITERS is FEW,MANY (MANY at least 1)");
    let repeats: usize = setting("INSTRUCTIONS_REPEAT", "3")
        .parse()
        .expect("INSTRUCTIONS_REPEAT is a number");
    assert!(repeats > 0, "INSTRUCTIONS_REPEAT must be at least 1");
    let selected: Vec<&Row> = if args.is_empty() {
        ROWS.iter().collect()
    } else {
        args.iter().map(|name| row(name)).collect()
    };
    for (name, ..) in selected {
        let mut per_iteration: Vec<f64> = (0..repeats)
            .map(|_| {
                let base = count(name, few);
                let more = count(name, few + many);
                (more as f64 - base as f64) / many as f64
            })
            .collect();
        per_iteration.sort_by(f64::total_cmp);
        println!(
            "row {name} {:.0} {:.0} {:.0}",
            per_iteration[repeats / 2],
            per_iteration[0],
            per_iteration[repeats - 1]
        );
    }
}
