//! Scores ToolSearch's keyword ranking against the retrieval set in `search-eval/queries.yaml`.
//!
//! Builds one session over every shipped pack (`charter::packs::ALL`), runs each labelled query
//! through ToolSearch (the keyword path, `max_results` 10) and reports, per ranking:
//! recall@1 (a correct tool ranked first), recall@5 (one among the top five, what a default
//! search loads) and MRR (the mean of 1/rank of the first correct tool within the top ten, 0
//! when none is). Misses (no correct tool in the top five) are listed with what came back.
//!
//! ```text
//! cargo run -p charter --example search_eval                      # both rankings
//! cargo run -p charter --example search_eval -- --ranking classic # one ranking, with its misses
//! cargo run -p charter --example search_eval -- --misses          # list misses of both
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use charter::session::{Ranking, SessionOptions, Source, ToolSession};
use serde::Deserialize;

#[derive(Deserialize)]
struct File {
    queries: Vec<Labelled>,
}

#[derive(Deserialize)]
struct Labelled {
    q: String,
    packs: Vec<String>,
    tools: Vec<String>,
}

/// How one ranking did on one query.
struct Outcome {
    /// 1-based rank of the first correct tool within the top ten.
    rank: Option<usize>,
    top: Vec<String>,
}

#[derive(Default)]
struct Totals {
    queries: usize,
    at1: usize,
    at5: usize,
    rr: f64,
}

impl Totals {
    fn add(&mut self, o: &Outcome) {
        self.queries += 1;
        if o.rank == Some(1) {
            self.at1 += 1;
        }
        if o.rank.is_some_and(|r| r <= 5) {
            self.at5 += 1;
        }
        self.rr += o.rank.map_or(0.0, |r| 1.0 / r as f64);
    }

    fn row(&self, label: &str) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.queries.max(1) as f64;
        format!(
            "| {label:<10} | {:>7} | {:>7.1} % | {:>7.1} % | {:>5.3} |",
            self.queries,
            pct(self.at1),
            pct(self.at5),
            self.rr / self.queries.max(1) as f64
        )
    }
}

fn parse_ranking(name: &str) -> Option<Ranking> {
    match name {
        "classic" => Some(Ranking::Classic),
        "relevance" | "best" => Some(Ranking::Relevance),
        _ => None,
    }
}

fn ranking_name(r: Ranking) -> &'static str {
    match r {
        Ranking::Classic => "classic",
        Ranking::Relevance => "relevance",
    }
}

fn main() -> ExitCode {
    let mut rankings = vec![Ranking::Classic, Ranking::Relevance];
    let mut show_misses = false;
    let mut path = concat!(env!("CARGO_MANIFEST_DIR"), "/search-eval/queries.yaml").to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ranking" => match args.next().as_deref().and_then(parse_ranking) {
                Some(r) => {
                    rankings = vec![r];
                    show_misses = true;
                }
                None => {
                    eprintln!("--ranking takes classic, relevance or best");
                    return ExitCode::from(2);
                }
            },
            "--misses" => show_misses = true,
            "--queries" => match args.next() {
                Some(p) => path = p,
                None => {
                    eprintln!("--queries takes a file");
                    return ExitCode::from(2);
                }
            },
            other => {
                eprintln!(
                    "unknown argument `{other}`; usage: search_eval [--ranking classic|relevance|best] [--misses] [--queries FILE]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let file: File = match serde_saphyr::from_str(&text) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };

    let sources = || -> Vec<Source> {
        charter::packs::ALL
            .iter()
            .map(|t| Source::Table(t))
            .collect()
    };
    let shipped: BTreeSet<&str> = charter::packs::ALL.iter().map(|t| t.pack).collect();
    let tools: usize = charter::packs::ALL.iter().map(|t| t.tools.len()).sum();
    let names: BTreeSet<&str> = charter::packs::ALL
        .iter()
        .flat_map(|t| t.tools.iter().map(|d| d.name))
        .collect();

    // Check the labels before scoring anything: a typo must not pass as a miss.
    let mut bad = Vec::new();
    let mut pending = 0;
    for l in &file.queries {
        let words = l.q.split_whitespace().count();
        if !(1..=5).contains(&words) {
            bad.push(format!("`{}`: {words} words (1 to 5)", l.q));
        }
        if l.tools.is_empty() {
            pending += 1;
        }
        for t in &l.tools {
            if !names.contains(t.as_str()) {
                bad.push(format!("`{}`: no shipped tool is named `{t}`", l.q));
            } else if !l.packs.iter().any(|p| t.starts_with(&format!("{p}_"))) {
                bad.push(format!("`{}`: `{t}` is not a tool of {:?}", l.q, l.packs));
            }
        }
    }
    if !bad.is_empty() {
        for b in &bad {
            eprintln!("{path}: {b}");
        }
        return ExitCode::FAILURE;
    }
    let labelled: Vec<&Labelled> = file.queries.iter().filter(|l| !l.tools.is_empty()).collect();
    println!(
        "{} packs ({}), {tools} tools; {} queries, {} labelled, {pending} pending (their packs are not shipped yet)\n",
        shipped.len(),
        shipped.iter().copied().collect::<Vec<_>>().join(", "),
        file.queries.len(),
        labelled.len()
    );

    let mut results: Vec<(Ranking, Vec<Outcome>)> = Vec::new();
    for &ranking in &rankings {
        let options = SessionOptions {
            ranking,
            ..SessionOptions::default()
        };
        let session = match ToolSession::with_options(sources(), options) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("building the session: {e}");
                return ExitCode::FAILURE;
            }
        };
        let outcomes = labelled
            .iter()
            .map(|l| {
                let answer = session.search(&l.q, Some(10));
                session.reset();
                let rank = answer
                    .loaded
                    .iter()
                    .position(|n| l.tools.contains(n))
                    .map(|p| p + 1);
                Outcome {
                    rank,
                    top: answer.loaded,
                }
            })
            .collect();
        results.push((ranking, outcomes));
    }

    println!("| ranking    | queries | recall@1  | recall@5  |  MRR  |");
    println!("|------------|---------|-----------|-----------|-------|");
    for (ranking, outcomes) in &results {
        let mut totals = Totals::default();
        outcomes.iter().for_each(|o| totals.add(o));
        println!("{}", totals.row(ranking_name(*ranking)));
    }

    // Per pack: a query counts for every pack it is about.
    println!("\nrecall@1 / recall@5 by pack (a query counts for each pack it is about):\n");
    let mut header = String::from("| pack       | queries |");
    let mut rule = String::from("|------------|---------|");
    for (ranking, _) in &results {
        header.push_str(&format!(" {:^19} |", ranking_name(*ranking)));
        rule.push_str("---------------------|");
    }
    println!("{header}\n{rule}");
    let mut by_pack: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, l) in labelled.iter().enumerate() {
        for p in &l.packs {
            if shipped.contains(p.as_str()) {
                by_pack.entry(p.as_str()).or_default().push(i);
            }
        }
    }
    for (pack, idx) in &by_pack {
        let mut line = format!("| {pack:<10} | {:>7} |", idx.len());
        for (_, outcomes) in &results {
            let mut t = Totals::default();
            idx.iter().for_each(|i| t.add(&outcomes[*i]));
            let pct = |n: usize| 100.0 * n as f64 / t.queries as f64;
            line.push_str(&format!(
                " {:>6.1} % / {:>6.1} % |",
                pct(t.at1),
                pct(t.at5)
            ));
        }
        println!("{line}");
    }

    if show_misses {
        for (ranking, outcomes) in &results {
            let misses: Vec<_> = labelled
                .iter()
                .zip(outcomes)
                .filter(|(_, o)| o.rank.is_none_or(|r| r > 5))
                .collect();
            println!(
                "\n{} misses with `{}` (no correct tool in the top five):",
                misses.len(),
                ranking_name(*ranking)
            );
            for (l, o) in misses {
                let top: Vec<&str> = o.top.iter().take(5).map(String::as_str).collect();
                println!(
                    "- `{}`: got [{}]; wanted {}",
                    l.q,
                    top.join(", "),
                    l.tools.join(" | ")
                );
            }
            let firsts: Vec<_> = labelled
                .iter()
                .zip(outcomes)
                .filter(|(_, o)| o.rank.is_some_and(|r| r > 1 && r <= 5))
                .collect();
            println!(
                "\n{} found but not first with `{}`:",
                firsts.len(),
                ranking_name(*ranking)
            );
            for (l, o) in firsts {
                println!(
                    "- `{}` (rank {}): first was {}; wanted {}",
                    l.q,
                    o.rank.unwrap_or(0),
                    o.top[0],
                    l.tools.join(" | ")
                );
            }
        }
    }
    ExitCode::SUCCESS
}
