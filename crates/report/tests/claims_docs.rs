// SPDX-License-Identifier: GPL-2.0-only
//! The docs say what the claims' verdicts show, no more: `docs/claims.json`
//! (the `claims.json` docs/results.md describes) names the same claims as
//! claims/*.toml; the tally README.md and docs/results.md print is its
//! tally; docs/results.md's claims table has one row per claim with its
//! verdict; no tally sentence of README.md or docs/*.md gives other counts;
//! and a sentence that says an order holds names a claim whose verdict holds
//! (issue 42: "no sentence stronger than its verdict").
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use report::claims;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn docs_json() -> serde_json::Value {
    serde_json::from_str(&read("docs/claims.json")).expect("docs/claims.json is claims.json")
}

/// Verdict keys in the order the tally sentence lists them.
const ORDER: [&str; 6] = [
    "holds",
    "holds-magnitude-differs",
    "differs",
    "unsettled",
    "not-run",
    "error",
];

fn key_text(k: &str) -> String {
    match k {
        "holds-magnitude-differs" => "holds, magnitude differs".into(),
        k => k.replace('-', " "),
    }
}

/// "59 claims: 30 holds, 2 holds, magnitude differs, 16 differs, 11 unsettled":
/// the sentence README.md and docs/results.md print, from a tally object.
fn tally_sentence(tally: &serde_json::Value) -> (usize, String) {
    let counts: BTreeMap<&str, usize> = tally
        .as_object()
        .expect("a tally object")
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_u64().unwrap() as usize))
        .collect();
    for k in counts.keys() {
        assert!(ORDER.contains(k), "unknown verdict {k} in the tally");
    }
    let n: usize = counts.values().sum();
    let parts: Vec<String> = ORDER
        .iter()
        .filter_map(|k| counts.get(k).map(|c| format!("{c} {}", key_text(k))))
        .collect();
    (n, format!("{n} claims: {}", parts.join("; ")))
}

fn claim_list(j: &serde_json::Value) -> Vec<(String, String, String)> {
    j["claims"]
        .as_array()
        .expect("claims")
        .iter()
        .map(|c| {
            (
                c["paper"].as_str().unwrap().to_owned(),
                c["id"].as_str().unwrap().to_owned(),
                c["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn docs_claims_json_names_the_claims_files_claims() {
    let files = claims::load_all(&repo().join("claims")).expect("claims/*.toml parse");
    let ours: BTreeSet<(String, String)> = files
        .iter()
        .flat_map(|f| f.claims.iter().map(|c| (f.paper.clone(), c.id.clone())))
        .collect();
    let docs: BTreeSet<(String, String)> = claim_list(&docs_json())
        .into_iter()
        .map(|(p, id, _)| (p, id))
        .collect();
    let missing: Vec<_> = ours.difference(&docs).collect();
    let stale: Vec<_> = docs.difference(&ours).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/claims.json is out of date (rerun the command docs/results.md gives, \"Claims\"): \
         not in it: {missing:?}; no longer in claims/: {stale:?}"
    );
}

#[test]
fn readme_and_results_print_the_tally_of_docs_claims_json() {
    let j = docs_json();
    let (_, papers) = tally_sentence(&j["tally"]);
    let (_, ours) = tally_sentence(&j["tally_ours"]);
    let readme = read("README.md");
    let results = read("docs/results.md");
    for (name, text) in [("README.md", &readme), ("docs/results.md", &results)] {
        assert!(
            text.contains(&papers),
            "{name} prints the papers' tally of docs/claims.json: \"{papers}\""
        );
    }
    assert!(
        results.contains(&ours),
        "docs/results.md prints our questions' tally: \"{ours}\""
    );
}

#[test]
fn results_table_has_each_claim_with_its_verdict() {
    let results = read("docs/results.md");
    let start = results
        .find("<!-- claims-table -->")
        .expect("docs/results.md marks its claims table <!-- claims-table -->");
    let end = results[start..]
        .find("<!-- /claims-table -->")
        .map(|e| start + e)
        .expect("and its end <!-- /claims-table -->");
    let rows: Vec<&str> = results[start..end]
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| paper ") && !l.starts_with("| ---"))
        .collect();
    let list = claim_list(&docs_json());
    assert_eq!(
        rows.len(),
        list.len(),
        "one row per claim of docs/claims.json"
    );
    for (row, (paper, id, verdict)) in rows.iter().zip(&list) {
        let cells: Vec<&str> = row
            .split(" | ")
            .map(|c| c.trim_matches(['|', ' ']))
            .collect();
        assert!(
            cells[0] == paper && cells[1].starts_with(&format!("`{id}`")),
            "rows in docs/claims.json's order, {paper}/{id} here: {row}"
        );
        let shown = cells.last().unwrap().trim_matches('*');
        assert!(
            shown.starts_with(&key_text(verdict)),
            "{paper}/{id}: the table says {shown:?}, docs/claims.json {verdict:?}"
        );
    }
}

/// The markdown files whose sentences are read.
fn docs() -> Vec<(String, String)> {
    let mut out = vec![("README.md".to_owned(), read("README.md"))];
    let mut names: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    names.sort();
    for p in names {
        let rel = format!("docs/{}", p.file_name().unwrap().to_string_lossy());
        out.push((rel.clone(), read(&rel)));
    }
    out
}

/// Every "N claims: M holds" (or "N claims, M holds") in README.md and
/// docs/*.md is one of docs/claims.json's tallies (the papers', one
/// paper's, ours): no stale tally stays behind.
#[test]
fn no_tally_sentence_gives_other_counts() {
    let j = docs_json();
    let total = |t: &serde_json::Value| tally_sentence(t).0;
    let holds = |t: &serde_json::Value| t["holds"].as_u64().unwrap_or(0) as usize;
    let mut allowed = vec![
        (total(&j["tally"]), holds(&j["tally"])),
        (total(&j["tally_ours"]), holds(&j["tally_ours"])),
    ];
    for t in j["tally_by_paper"]
        .as_object()
        .expect("tally_by_paper")
        .values()
    {
        allowed.push((total(t), holds(t)));
    }
    for (name, text) in docs() {
        let words: Vec<&str> = text.split_whitespace().collect();
        for w in words.windows(4) {
            let (Ok(n), Ok(m)) = (w[0].parse::<usize>(), w[2].parse::<usize>()) else {
                continue;
            };
            if matches!(w[1], "claims:" | "claims,") && w[3].starts_with("hold") {
                assert!(
                    allowed.contains(&(n, m)),
                    "{name}: \"{}\" is not docs/claims.json's tally {allowed:?}",
                    w.join(" ")
                );
            }
        }
    }
}

/// A sentence that says an order holds (or holds "in both" modes) names,
/// in backticks, a claim of docs/claims.json whose verdict holds.
#[test]
fn order_sentences_name_a_claim_that_holds() {
    let verdicts: BTreeMap<String, String> = claim_list(&docs_json())
        .into_iter()
        .map(|(_, id, v)| (id, v))
        .collect();
    let phrases = ["order holds", "holds in both", "order hold "];
    for (name, text) in docs() {
        let flat = text.replace('\n', " ");
        for sentence in flat.split(". ") {
            let lower = sentence.to_lowercase();
            if !phrases.iter().any(|p| lower.contains(p)) || lower.contains("does not hold") {
                continue;
            }
            let named: Vec<&str> = sentence
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|id| verdicts.contains_key(*id))
                .collect();
            assert!(
                named
                    .iter()
                    .any(|id| matches!(verdicts[*id].as_str(), "holds" | "holds-magnitude-differs")),
                "{name}: \"{}\" says an order holds but names no claim that holds in docs/claims.json \
                 (named: {named:?})",
                sentence.trim()
            );
        }
    }
}
