//! Scores ToolSearch's keyword ranking against the retrieval set in `search-eval/queries.yaml`.
//!
//! Builds one session over every shipped pack (`charter::packs::ALL`), runs each labelled query
//! through ToolSearch (the keyword path, `max_results` 10) and reports, per ranking:
//! recall@1 (a correct tool ranked first), recall@5 (one among the top five, what a default
//! search loads) and MRR (the mean of 1/rank of the first correct tool within the top ten, 0
//! when none is). Misses (no correct tool in the top five) are listed with what came back.
//!
//! ```text
//! cargo run -p charter-tools --example search_eval                      # every ranking
//! cargo run -p charter-tools --example search_eval -- --ranking classic # one ranking, with its misses
//! cargo run -p charter-tools --example search_eval -- --misses          # list misses of both
//! cargo run -p charter-tools --example search_eval -- --queries search-eval/holdout.yaml
//! cargo run -p charter-tools --example search_eval -- --own-names       # each tool by its own words
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use charter::session::Ranking;

#[path = "../search-eval/eval.rs"]
mod eval;

use eval::{Labelled, Outcome, Totals};

fn row(t: &Totals, label: &str) -> String {
    format!(
        "| {label:<10} | {:>7} | {:>7.1} % | {:>7.1} % | {:>5.3} |",
        t.queries,
        t.recall1(),
        t.recall5(),
        t.mrr()
    )
}

fn parse_ranking(name: &str) -> Option<Ranking> {
    name.parse().ok()
}

fn main() -> ExitCode {
    let mut rankings = vec![Ranking::Classic, Ranking::Relevance, Ranking::Hybrid];
    let mut show_misses = false;
    let mut own_names = false;
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
                    eprintln!("--ranking takes classic, relevance (best) or hybrid");
                    return ExitCode::from(2);
                }
            },
            "--misses" => show_misses = true,
            "--own-names" => own_names = true,
            "--queries" => match args.next() {
                Some(p) => path = p,
                None => {
                    eprintln!("--queries takes a file");
                    return ExitCode::from(2);
                }
            },
            other => {
                eprintln!(
                    "unknown argument `{other}`; usage: search_eval [--ranking classic|relevance|hybrid] [--misses] [--queries FILE] [--own-names]"
                );
                return ExitCode::from(2);
            }
        }
    }
    if own_names {
        // Every tool searched for by its own words, `<pack> <tool words>`.
        println!("| ranking    |  tools  | found first | in the top 5 |");
        println!("|------------|---------|-------------|--------------|");
        for ranking in &rankings {
            let session = eval::session(*ranking);
            let (mut total, mut first, mut five) = (0usize, 0usize, 0usize);
            for table in charter::packs::ALL {
                for tool in table.tools {
                    let query = format!("{} {}", tool.pack, tool.tool.replace('_', " "));
                    let answer = session.search(&query, None);
                    session.reset();
                    total += 1;
                    match answer.loaded.iter().position(|n| n == tool.name) {
                        Some(0) => {
                            first += 1;
                            five += 1;
                        }
                        Some(_) => five += 1,
                        None => {}
                    }
                }
            }
            let pct = |n: usize| 100.0 * n as f64 / total as f64;
            println!(
                "| {:<10} | {total:>7} | {:>9.1} % | {:>10.1} % |",
                ranking.name(),
                pct(first),
                pct(five)
            );
        }
        return ExitCode::SUCCESS;
    }
    let file = match eval::load(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    // Check the labels before scoring anything: a typo must not pass as a miss.
    let bad = eval::check(&file);
    if !bad.is_empty() {
        for b in &bad {
            eprintln!("{path}: {b}");
        }
        return ExitCode::FAILURE;
    }
    let shipped: BTreeSet<&str> = charter::packs::ALL.iter().map(|t| t.pack).collect();
    let tools: usize = charter::packs::ALL.iter().map(|t| t.tools.len()).sum();
    let labelled: Vec<&Labelled> = file
        .queries
        .iter()
        .filter(|l| !l.tools.is_empty())
        .collect();
    let pending = file.queries.len() - labelled.len();
    println!(
        "{} packs ({}), {tools} tools; {} queries, {} labelled, {pending} pending (their packs are not shipped yet)\n",
        shipped.len(),
        shipped.iter().copied().collect::<Vec<_>>().join(", "),
        file.queries.len(),
        labelled.len()
    );
    let results: Vec<(Ranking, Vec<Outcome>)> = rankings
        .iter()
        .map(|r| (*r, eval::run(&eval::session(*r), &labelled)))
        .collect();

    println!("| ranking    | queries | recall@1  | recall@5  |  MRR  |");
    println!("|------------|---------|-----------|-----------|-------|");
    for (ranking, outcomes) in &results {
        println!("{}", row(&eval::totals(outcomes), ranking.name()));
    }

    // Per pack: a query counts for every pack it is about.
    println!("\nrecall@1 / recall@5 by pack (a query counts for each pack it is about):\n");
    let mut header = String::from("| pack       | queries |");
    let mut rule = String::from("|------------|---------|");
    for (ranking, _) in &results {
        header.push_str(&format!(" {:^19} |", ranking.name()));
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
            let t = eval::totals(idx.iter().map(|i| &outcomes[*i]));
            line.push_str(&format!(
                " {:>6.1} % / {:>6.1} % |",
                t.recall1(),
                t.recall5()
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
                ranking.name()
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
                ranking.name()
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
