//! Imports and checks every OpenAPI 3 document under a directory (the import corpus that
//! `scripts/openapi-corpus` fetches), and prints a table: documents, imported and checked,
//! refused by cause, crashes, timeouts, the slowest documents and the total time.
//!
//! `cargo run --release -p charter-openapi --example corpus -- DIR [--every N]
//!  [--limit-seconds 5] [--min-rate 97] [--threads 2]`
//!
//! Each document is imported with the default options (pack label from its file name); a
//! document over the pack size limit is imported split by tag (`--split-by tag`), and so is
//! one whose pack turns out over the limit. Every pack is then run
//! through the pack checker (`charter_build::load_str`, what `charter check` runs). A panic is
//! a crash; an import taking more than `--limit-seconds` of CPU is a timeout (CPU time, read
//! per thread: the machine may be shared). The exit code is 1 when
//! the rate of imported-and-checked documents is below `--min-rate`, or anything crashed or
//! timed out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use charter_openapi::{ImportError, ImportOptions, import, import_split};
use charter_terms::names::MAX_PACK_BYTES;

/// What happened to one document.
enum Outcome {
    /// Imported into this many packs, all of which pass the checker.
    Checked(usize),
    /// Refused by the importer, with the cause.
    Refused(String),
    /// Imported, but a pack fails the checker: the first diagnostic.
    CheckFailed(String),
    /// The importer or the checker panicked.
    Crashed(String),
}

struct Row {
    file: PathBuf,
    outcome: Outcome,
    /// CPU time of the import (wall time where the platform does not say).
    import: Duration,
    import_wall: Duration,
    check: Duration,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut dir = None;
    let (mut every, mut limit, mut min_rate, mut threads) = (1usize, 5.0f64, 97.0f64, 2usize);
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        let number = |v: &str| v.parse::<f64>().ok();
        match args[i].as_str() {
            "--every" => every = number(&value).map_or(0, |v| v as usize),
            "--limit-seconds" => limit = number(&value).unwrap_or(-1.0),
            "--min-rate" => min_rate = number(&value).unwrap_or(-1.0),
            "--threads" => threads = number(&value).map_or(0, |v| v as usize),
            other if dir.is_none() && !other.starts_with("--") => {
                dir = Some(PathBuf::from(other));
                i += 1;
                continue;
            }
            other => {
                eprintln!("unknown argument `{other}`");
                return ExitCode::from(2);
            }
        }
        i += 2;
    }
    let Some(dir) = dir.filter(|_| every > 0 && limit > 0.0 && min_rate >= 0.0 && threads > 0)
    else {
        eprintln!(
            "usage: corpus DIR [--every N] [--limit-seconds S] [--min-rate PERCENT] [--threads N]"
        );
        return ExitCode::from(2);
    };
    let mut files = Vec::new();
    if let Err(e) = walk(&dir, &mut files) {
        eprintln!("{}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    files.sort();
    let total_files = files.len();
    let sample: Vec<PathBuf> = files.into_iter().step_by(every).collect();
    // Silence the default panic message: a panic is counted and reported as a crash.
    std::panic::set_hook(Box::new(|_| {}));
    let started = Instant::now();
    let queue = Mutex::new(sample.into_iter());
    let rows = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let Some(file) = queue.lock().unwrap().next() else {
                        break;
                    };
                    if let Some(row) = run(&file) {
                        rows.lock().unwrap().push(row);
                    }
                }
            });
        }
    });
    let mut rows = rows.into_inner().unwrap();
    rows.sort_by(|a, b| a.file.cmp(&b.file));
    let wall = started.elapsed();
    report(&dir, &rows, total_files, every, wall, limit, min_rate)
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

/// Imports and checks one document; `None` when it is not OpenAPI 3.
fn run(file: &Path) -> Option<Row> {
    let text = std::fs::read_to_string(file).ok()?;
    let head: String = text.chars().take(4096).collect();
    if !(head.contains("\"openapi\"") || head.contains("openapi:")) {
        return None;
    }
    let options = ImportOptions::new(label(file));
    let started = Instant::now();
    let cpu_started = thread_cpu();
    let imported = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let split = || {
            import_split(&text, &options, MAX_PACK_BYTES)
                .map(|s| s.packs.into_iter().map(|p| (p.pack, p.yaml)).collect())
        };
        // What a user does: a document over the pack limit is imported split by tag at once;
        // a smaller one is split only when its pack turns out too large.
        if text.len() > MAX_PACK_BYTES {
            return split();
        }
        import(&text, &options).and_then(|one| {
            if one.yaml.len() <= MAX_PACK_BYTES {
                Ok(vec![(one.pack, one.yaml)])
            } else {
                split()
            }
        })
    }));
    let import_wall = started.elapsed();
    let import_time = match (cpu_started, thread_cpu()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => import_wall,
    };
    let started = Instant::now();
    let outcome = match imported {
        Err(panic) => Outcome::Crashed(panic_text(&panic)),
        Ok(Err(e)) => Outcome::Refused(cause(&e)),
        Ok(Ok(packs)) => {
            let checked = std::panic::catch_unwind(|| {
                packs
                    .iter()
                    .find_map(|(label, yaml)| {
                        charter_build::load_str(&format!("{label}.yaml"), yaml)
                            .err()
                            .map(|d| d.first().map(ToString::to_string).unwrap_or_default())
                    })
                    .map_or(Outcome::Checked(packs.len()), Outcome::CheckFailed)
            });
            checked.unwrap_or_else(|p| Outcome::Crashed(panic_text(&p)))
        }
    };
    Some(Row {
        file: file.to_owned(),
        outcome,
        import: import_time,
        import_wall,
        check: started.elapsed(),
    })
}

/// The CPU time this thread has used (Linux `/proc/thread-self/schedstat`): on a machine
/// shared with other work, wall time measures the neighbours as much as the importer.
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
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

fn report(
    dir: &Path,
    rows: &[Row],
    total_files: usize,
    every: usize,
    wall: Duration,
    limit: f64,
    min_rate: f64,
) -> ExitCode {
    let n = rows.len();
    let checked = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Checked(_)))
        .count();
    let split = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Checked(p) if p > 1))
        .count();
    let crashes: Vec<&Row> = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Crashed(_)))
        .collect();
    let timeouts: Vec<&Row> = rows
        .iter()
        .filter(|r| r.import.as_secs_f64() > limit)
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
        100.0 * checked as f64 / n as f64
    };
    let name = |r: &Row| {
        r.file
            .strip_prefix(dir)
            .unwrap_or(&r.file)
            .display()
            .to_string()
    };
    println!(
        "OpenAPI import corpus: {} ({} files, every {}{})",
        dir.display(),
        total_files,
        every,
        if every == 1 { "" } else { "th" }
    );
    println!();
    println!("| | documents |");
    println!("| --- | --- |");
    println!("| OpenAPI 3 documents | {n} |");
    println!("| imported and checked | {checked} ({rate:.1} %) |");
    println!("| of which split by tag | {split} |");
    for (cause, list) in &causes {
        println!("| {cause} | {} (e.g. {}) |", list.len(), name(list[0]));
    }
    println!("| crashes | {} |", crashes.len());
    println!(
        "| timeouts (import over {limit} s of CPU) | {} |",
        timeouts.len()
    );
    println!(
        "| total time | {:.1} s wall (import {:.1} s CPU, check {:.1} s wall, summed over documents) |",
        wall.as_secs_f64(),
        rows.iter().map(|r| r.import.as_secs_f64()).sum::<f64>(),
        rows.iter().map(|r| r.check.as_secs_f64()).sum::<f64>()
    );
    let mut slow: Vec<&Row> = rows.iter().collect();
    slow.sort_by_key(|r| std::cmp::Reverse(r.import));
    println!();
    println!("| slowest | import (CPU) | import (wall) | check (wall) | size |");
    println!("| --- | --- | --- | --- | --- |");
    for r in slow.iter().take(5) {
        let size = std::fs::metadata(&r.file).map_or(0, |m| m.len());
        println!(
            "| {} | {:.2} s | {:.2} s | {:.2} s | {:.1} MB |",
            name(r),
            r.import.as_secs_f64(),
            r.import_wall.as_secs_f64(),
            r.check.as_secs_f64(),
            size as f64 / 1e6
        );
    }
    for r in &crashes {
        if let Outcome::Crashed(m) = &r.outcome {
            println!("crash: {}: {m}", name(r));
        }
    }
    let ok = rate >= min_rate && crashes.is_empty() && timeouts.is_empty();
    if !ok {
        eprintln!(
            "openapi corpus: FAILED: {rate:.1} % imported and checked (target {min_rate} %), {} crashes, {} timeouts",
            crashes.len(),
            timeouts.len()
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
