//! Runs every OpenAPI 3 document under a directory (the import corpus that
//! `scripts/openapi-corpus` fetches) through the whole path a user takes: import, check and
//! code generation, and prints a table: documents, imported, refused by cause, crashes, the
//! documents over the CPU or memory limit, the slowest documents with each step's time.
//!
//! `cargo run --release -p charter-openapi --example corpus -- DIR [--every N]
//!  [--limit-seconds 5] [--limit-mb 1024] [--min-rate 97] [--threads 2] [--kill-after 300]`
//!
//! Each document runs in a fresh process of this program (`--one FILE`), so its CPU time and
//! peak memory are its own:
//!
//! 1. import, with the default options (pack label from the file name); a document over the
//!    pack size limit is imported split by tag (`--split-by tag`), and so is one whose pack
//!    turns out over the limit;
//! 2. check: every pack through `charter_build::load_str` and `charter_build::summary`, what
//!    `charter check` runs;
//! 3. generation: every pack through `charter_build::compile`, what a build script's
//!    `charter_build::Builder` runs before the Rust compiler sees the code.
//!
//! `CORPUS_TRACE=1 corpus --one FILE` also prints each pack's size and CPU time per step.
//!
//! CPU time is the process's user and system time (`/proc/self/stat`: the machine may be
//! shared, so wall time would measure the neighbours); peak memory is its peak resident set
//! (`VmHWM`). A panic or a process that dies is a crash; one still running after
//! `--kill-after` seconds of wall time is killed and counted. The exit code is 1 when the rate
//! of imported-and-checked documents is below `--min-rate`, or any document crashed, was
//! killed, or took more than `--limit-seconds` of CPU or `--limit-mb` of memory for the three
//! steps together.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use charter_openapi::{ImportError, ImportOptions, import, import_split};
use charter_terms::names::MAX_PACK_BYTES;

/// What happened to one document.
enum Outcome {
    /// Imported into this many packs, all of which pass the checker and generate.
    Checked(usize),
    /// Refused by the importer, with the cause.
    Refused(String),
    /// Imported, but a pack fails the checker: the first diagnostic.
    CheckFailed(String),
    /// A step panicked, or the process died.
    Crashed(String),
    /// Still running after `--kill-after` seconds.
    Killed,
}

/// One document's steps: CPU time each, and the process's peak resident set.
#[derive(Default, Clone, Copy)]
struct Cost {
    import: Duration,
    check: Duration,
    generate: Duration,
    peak_kb: u64,
}

impl Cost {
    fn cpu(&self) -> Duration {
        self.import + self.check + self.generate
    }
}

struct Row {
    file: PathBuf,
    outcome: Outcome,
    cost: Cost,
}

struct Settings {
    dir: PathBuf,
    every: usize,
    limit: f64,
    limit_mb: f64,
    min_rate: f64,
    threads: usize,
    kill_after: f64,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--one") {
        return one(Path::new(args.get(1).map_or("", String::as_str)));
    }
    let Some(settings) = settings(&args) else {
        eprintln!(
            "usage: corpus DIR [--every N] [--limit-seconds S] [--limit-mb MB] [--min-rate PERCENT] [--threads N] [--kill-after S]"
        );
        return ExitCode::from(2);
    };
    let mut files = Vec::new();
    if let Err(e) = walk(&settings.dir, &mut files) {
        eprintln!("{}: {e}", settings.dir.display());
        return ExitCode::FAILURE;
    }
    files.sort();
    let total_files = files.len();
    let sample: Vec<PathBuf> = files.into_iter().step_by(settings.every).collect();
    let count = sample.len();
    let started = Instant::now();
    let queue = Mutex::new(sample.into_iter());
    let rows = Mutex::new(Vec::new());
    let done = Mutex::new(0usize);
    std::thread::scope(|s| {
        for _ in 0..settings.threads {
            s.spawn(|| {
                loop {
                    let Some(file) = queue.lock().unwrap().next() else {
                        break;
                    };
                    if let Some(row) = spawn_one(&file, settings.kill_after) {
                        rows.lock().unwrap().push(row);
                    }
                    let mut d = done.lock().unwrap();
                    *d += 1;
                    if d.is_multiple_of(100) {
                        eprintln!(
                            "corpus: {d}/{count} documents, {:.0} s",
                            started.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    let mut rows = rows.into_inner().unwrap();
    rows.sort_by(|a, b| a.file.cmp(&b.file));
    report(&settings, &rows, total_files, started.elapsed())
}

fn settings(args: &[String]) -> Option<Settings> {
    let mut s = Settings {
        dir: PathBuf::new(),
        every: 1,
        limit: 5.0,
        limit_mb: 1024.0,
        min_rate: 97.0,
        threads: 2,
        kill_after: 300.0,
    };
    let mut dir = None;
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).and_then(|v| v.parse::<f64>().ok());
        match args[i].as_str() {
            "--every" => s.every = value.map_or(0, |v| v as usize),
            "--limit-seconds" => s.limit = value.unwrap_or(-1.0),
            "--limit-mb" => s.limit_mb = value.unwrap_or(-1.0),
            "--min-rate" => s.min_rate = value.unwrap_or(-1.0),
            "--threads" => s.threads = value.map_or(0, |v| v as usize),
            "--kill-after" => s.kill_after = value.unwrap_or(-1.0),
            other if dir.is_none() && !other.starts_with("--") => {
                dir = Some(PathBuf::from(other));
                i += 1;
                continue;
            }
            other => {
                eprintln!("unknown argument `{other}`");
                return None;
            }
        }
        i += 2;
    }
    s.dir = dir?;
    let valid = s.every > 0
        && s.limit > 0.0
        && s.limit_mb > 0.0
        && s.min_rate >= 0.0
        && s.threads > 0
        && s.kill_after > 0.0;
    valid.then_some(s)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .is_some_and(|e| e == "json" || e == "yaml" || e == "yml")
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Runs one document in a fresh process (`--one FILE`) and reads its line; `None` when the
/// document is not OpenAPI 3.
fn spawn_one(file: &Path, kill_after: f64) -> Option<Row> {
    let row = |outcome, cost| {
        Some(Row {
            file: file.to_owned(),
            outcome,
            cost,
        })
    };
    let exe = std::env::current_exe().ok()?;
    let mut child = match Command::new(exe)
        .arg("--one")
        .arg(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            return row(
                Outcome::Crashed(format!("cannot spawn: {e}")),
                Cost::default(),
            );
        }
    };
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed().as_secs_f64() > kill_after => {
                let _ = child.kill();
                let _ = child.wait();
                return row(Outcome::Killed, Cost::default());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return row(Outcome::Crashed(format!("wait: {e}")), Cost::default()),
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    let Some(line) = out.lines().find(|l| l.starts_with("corpus\t")) else {
        return row(
            Outcome::Crashed(format!("the process ended: {status}")),
            Cost::default(),
        );
    };
    parse_line(line).map_or_else(
        || {
            row(
                Outcome::Crashed(format!("unreadable result `{line}`")),
                Cost::default(),
            )
        },
        |(outcome, cost)| outcome.and_then(|o| row(o, cost)),
    )
}

/// `corpus KIND DETAIL IMPORT_NS CHECK_NS GENERATE_NS PEAK_KB`, tab-separated.
fn parse_line(line: &str) -> Option<(Option<Outcome>, Cost)> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 7 {
        return None;
    }
    let ns = |s: &str| s.parse::<u64>().ok().map(Duration::from_nanos);
    let cost = Cost {
        import: ns(f[3])?,
        check: ns(f[4])?,
        generate: ns(f[5])?,
        peak_kb: f[6].parse().ok()?,
    };
    let detail = f[2].to_owned();
    let outcome = match f[1] {
        "skip" => None,
        "checked" => Some(Outcome::Checked(detail.parse().ok()?)),
        "refused" => Some(Outcome::Refused(detail)),
        "check-failed" => Some(Outcome::CheckFailed(detail)),
        "crashed" => Some(Outcome::Crashed(detail)),
        _ => return None,
    };
    Some((outcome, cost))
}

/// The child: one document through import, check and generation; prints one line.
fn one(file: &Path) -> ExitCode {
    // Silence the default panic message: a panic is counted and reported as a crash.
    std::panic::set_hook(Box::new(|_| {}));
    let mut cost = Cost::default();
    let (kind, detail) = match std::fs::read_to_string(file) {
        Err(e) => ("crashed", format!("cannot read: {e}")),
        Ok(text) => steps(file, &text, &mut cost),
    };
    cost.peak_kb = peak_kb().unwrap_or(0);
    let detail = detail.replace(['\t', '\n', '\r'], " ");
    println!(
        "corpus\t{kind}\t{detail}\t{}\t{}\t{}\t{}",
        cost.import.as_nanos(),
        cost.check.as_nanos(),
        cost.generate.as_nanos(),
        cost.peak_kb
    );
    ExitCode::SUCCESS
}

fn steps(file: &Path, text: &str, cost: &mut Cost) -> (&'static str, String) {
    let head: String = text.chars().take(4096).collect();
    if !(head.contains("\"openapi\"") || head.contains("openapi:")) {
        return ("skip", String::new());
    }
    let caught = |f: &mut dyn FnMut() -> (&'static str, String)| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .unwrap_or_else(|p| ("crashed", panic_text(&p)))
    };
    let t0 = process_cpu();
    let mut packs = Vec::new();
    let imported = caught(&mut || match import_packs(file, text) {
        Ok(p) => {
            packs = p;
            ("checked", String::new())
        }
        Err(e) => ("refused", cause(&e)),
    });
    let t1 = process_cpu();
    cost.import = t1.saturating_sub(t0);
    if imported.0 != "checked" {
        return imported;
    }
    let mut models = Vec::new();
    let checked = caught(&mut || {
        for (label, yaml) in &packs {
            let t = process_cpu();
            match charter_build::load_str(&format!("{label}.yaml"), yaml) {
                Ok(model) => {
                    std::hint::black_box(charter_build::summary(&model));
                    if trace() {
                        eprintln!(
                            "pack {label}: {} bytes of YAML, checked in {:?}",
                            yaml.len(),
                            process_cpu().saturating_sub(t)
                        );
                    }
                    models.push(model);
                }
                Err(d) => {
                    let first = d.first().map(ToString::to_string).unwrap_or_default();
                    return ("check-failed", first);
                }
            }
        }
        ("checked", packs.len().to_string())
    });
    let t2 = process_cpu();
    cost.check = t2.saturating_sub(t1);
    if checked.0 != "checked" {
        return checked;
    }
    drop(packs);
    let generated = caught(&mut || {
        for model in &models {
            let t = process_cpu();
            match charter_build::compile(std::slice::from_ref(model), "::charter") {
                Err(e) => return ("crashed", format!("generation failed: {e}")),
                Ok(code) if trace() => eprintln!(
                    "pack {}: {} bytes of Rust, generated in {:?}",
                    model.label(),
                    code.len(),
                    process_cpu().saturating_sub(t)
                ),
                Ok(_) => {}
            }
        }
        checked.clone()
    });
    cost.generate = process_cpu().saturating_sub(t2);
    generated
}

/// `CORPUS_TRACE=1` with `--one`: each pack's size and its check and generation CPU time on
/// stderr (where a split document's time goes).
fn trace() -> bool {
    std::env::var_os("CORPUS_TRACE").is_some()
}

/// What a user does: a document over the pack limit is imported split by tag at once; a
/// smaller one is split only when its pack turns out too large.
fn import_packs(file: &Path, text: &str) -> Result<Vec<(String, String)>, ImportError> {
    let options = ImportOptions::new(label(file));
    let split = || {
        import_split(text, &options, MAX_PACK_BYTES)
            .map(|s| s.packs.into_iter().map(|p| (p.pack, p.yaml)).collect())
    };
    if text.len() > MAX_PACK_BYTES {
        return split();
    }
    let one = import(text, &options)?;
    if one.yaml.len() <= MAX_PACK_BYTES {
        Ok(vec![(one.pack, one.yaml)])
    } else {
        split()
    }
}

/// A pack label from the file: the provider's first name segment (`1password.com/events.json`
/// gives `x1password`), in `[a-z0-9]`, at most 12 characters.
fn label(file: &Path) -> String {
    let stem = file
        .parent()
        .and_then(|p| p.file_name())
        .filter(|p| *p != "api")
        .or_else(|| file.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut l: String = stem
        .chars()
        .take_while(|c| *c != '.')
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .take(12)
        .collect();
    if !l.starts_with(|c: char| c.is_ascii_lowercase()) {
        l.insert(0, 'x');
    }
    l
}

/// The CPU time (user and system) this process has used, every thread's (Linux
/// `/proc/self/stat`, in clock ticks of 10 ms).
fn process_cpu() -> Duration {
    let Ok(text) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name (which may hold spaces): state is the first, utime the
    // 12th, stime the 13th.
    let rest = text.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|v| v.parse().ok())
        .collect();
    Duration::from_millis(f.iter().sum::<u64>() * 10)
}

/// The process's peak resident set in KiB (`VmHWM` of `/proc/self/status`).
fn peak_kb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "panic".into())
}

/// The cause of a refusal, without the document's specifics (for counting).
fn cause(e: &ImportError) -> String {
    match e {
        ImportError::Parse { format, .. } => format!("not valid {format}"),
        ImportError::Invalid { message, .. } => format!("invalid: {}", first_words(message)),
        ImportError::DanglingRef { .. } => "dangling `$ref`".into(),
        ImportError::Unsupported { message, .. } => {
            format!("unsupported: {}", first_words(message))
        }
        ImportError::Options(m) if m.starts_with("none of the") => {
            // "none of the N selected operations can be a tool: GET /x: <reason>"
            let reason = m.splitn(3, ": ").nth(2).unwrap_or(m);
            format!("no operation can be a tool: {}", first_words(reason))
        }
        ImportError::Options(m) => first_words(m),
    }
}

fn first_words(s: &str) -> String {
    let cut: String = s.split_whitespace().take(7).collect::<Vec<_>>().join(" ");
    cut.replace('`', "")
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn report(s: &Settings, rows: &[Row], total_files: usize, wall: Duration) -> ExitCode {
    let n = rows.len();
    let checked: Vec<&Row> = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Checked(_)))
        .collect();
    let split = checked
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Checked(p) if p > 1))
        .count();
    let crashes: Vec<&Row> = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Crashed(_) | Outcome::Killed))
        .collect();
    let over: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.cost.cpu().as_secs_f64() > s.limit || r.cost.peak_kb as f64 / 1024.0 > s.limit_mb
        })
        .collect();
    let mut causes: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        let key = match &r.outcome {
            Outcome::Refused(c) => format!("refused: {c}"),
            Outcome::CheckFailed(d) => format!("fails the checker: {}", first_words(d)),
            _ => continue,
        };
        causes.entry(key).or_default().push(r);
    }
    let rate = if n == 0 {
        0.0
    } else {
        100.0 * checked.len() as f64 / n as f64
    };
    let name = |r: &Row| {
        let p = r.file.strip_prefix(&s.dir).unwrap_or(&r.file);
        p.display().to_string()
    };
    let every = if s.every == 1 { "" } else { "th" };
    println!(
        "OpenAPI import corpus: {} ({total_files} files, every {}{every})",
        s.dir.display(),
        s.every
    );
    println!();
    println!("| | documents |");
    println!("| --- | --- |");
    println!("| OpenAPI 3 documents | {n} |");
    println!(
        "| imported, checked and generated | {} ({rate:.1} %) |",
        checked.len()
    );
    println!("| of which split by tag | {split} |");
    for (cause, list) in &causes {
        println!("| {cause} | {} (e.g. {}) |", list.len(), name(list[0]));
    }
    println!(
        "| crashes (a panic, a process that died or was killed after {} s) | {} |",
        s.kill_after,
        crashes.len()
    );
    println!(
        "| over {} s of CPU or {} MB for the three steps | {} |",
        s.limit,
        s.limit_mb,
        over.len()
    );
    let sum = |f: &dyn Fn(&Cost) -> Duration| -> f64 {
        rows.iter().map(|r| f(&r.cost).as_secs_f64()).sum()
    };
    println!(
        "| total | {:.1} s wall; CPU summed over documents: import {:.1} s, check {:.1} s, generation {:.1} s |",
        wall.as_secs_f64(),
        sum(&|c| c.import),
        sum(&|c| c.check),
        sum(&|c| c.generate),
    );
    let peak = rows.iter().max_by_key(|r| r.cost.peak_kb);
    if let Some(r) = peak {
        println!(
            "| largest peak memory | {:.0} MB ({}) |",
            r.cost.peak_kb as f64 / 1024.0,
            name(r)
        );
    }
    let mut slow: Vec<&Row> = rows.iter().collect();
    slow.sort_by_key(|r| std::cmp::Reverse(r.cost.cpu()));
    println!();
    println!("| slowest (CPU) | import | check | generation | all three | peak memory | size |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for r in slow.iter().take(10) {
        let size = std::fs::metadata(&r.file).map_or(0, |m| m.len());
        println!(
            "| {} | {} | {} | {} | {} | {:.0} MB | {:.1} MB |",
            name(r),
            secs(r.cost.import),
            secs(r.cost.check),
            secs(r.cost.generate),
            secs(r.cost.cpu()),
            r.cost.peak_kb as f64 / 1024.0,
            size as f64 / 1e6
        );
    }
    for r in &over {
        println!(
            "over the limits: {}: {} CPU, {:.0} MB",
            name(r),
            secs(r.cost.cpu()),
            r.cost.peak_kb as f64 / 1024.0
        );
    }
    for r in &crashes {
        match &r.outcome {
            Outcome::Crashed(m) => println!("crash: {}: {m}", name(r)),
            _ => println!("killed after {} s: {}", s.kill_after, name(r)),
        }
    }
    let ok = rate >= s.min_rate && crashes.is_empty() && over.is_empty();
    if !ok {
        eprintln!(
            "openapi corpus: FAILED: {rate:.1} % imported, checked and generated (target {} %), {} crashes, {} over the limits",
            s.min_rate,
            crashes.len(),
            over.len()
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
