// SPDX-License-Identifier: GPL-2.0-only
//! The claims table, one section per paper: claim, where, paper's figure,
//! ours, verdict, plot — written as `claims.md`, `claims.html` (the same
//! blocks, `document`) and `claims.json` (every check's per-trace values).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use super::eval::{CheckResult, ClaimResult, Verdict};
use super::spec::ClaimsFile;
use crate::document::{Block, Document};

/// What `write` wrote.
pub struct Written {
    pub markdown: PathBuf,
    pub html: PathBuf,
    pub json: PathBuf,
    /// The tables alone, for printing.
    pub table_markdown: String,
}

/// Counts of each verdict, keyed as claims.json writes verdicts, over the
/// papers' claims (each once) or over our own questions.
pub fn tally(results: &[ClaimResult], ours: bool) -> BTreeMap<&'static str, usize> {
    let mut t = BTreeMap::new();
    for r in results.iter().filter(|r| r.ours == ours) {
        *t.entry(r.verdict.key()).or_insert(0) += 1;
    }
    t
}

/// The papers' claims' tally per paper.
pub fn tally_by_paper(results: &[ClaimResult]) -> BTreeMap<&str, BTreeMap<&'static str, usize>> {
    let mut t: BTreeMap<&str, BTreeMap<&'static str, usize>> = BTreeMap::new();
    for r in results.iter().filter(|r| !r.ours) {
        *t.entry(r.paper.as_str())
            .or_default()
            .entry(r.verdict.key())
            .or_insert(0) += 1;
    }
    t
}

/// "38 holds (3 close), 21 differs": a tally in words.
fn tally_text(results: &[ClaimResult], ours: bool) -> String {
    let n = results.iter().filter(|r| r.ours == ours).count();
    let counts: Vec<String> = tally(results, ours)
        .into_iter()
        .map(|(k, count)| {
            let close = results
                .iter()
                .filter(|r| r.ours == ours && r.verdict.key() == k && r.close)
                .count();
            let mut s = format!("{count} {}", key_text(k));
            if close > 0 {
                s += &format!(" ({close} close)");
            }
            s
        })
        .collect();
    format!("{n}: {}", counts.join(", "))
}

/// A verdict's key (claims.json) as the tables write it.
pub fn key_text(key: &str) -> String {
    match key {
        "holds-magnitude-differs" => "holds, magnitude differs".into(),
        k => k.replace('-', " "),
    }
}

/// The check's figure, its repetitions' spread and its bound, then its
/// magnitude: ours ÷ the paper's figure, and a ratio's two components.
fn ours(c: &CheckResult) -> String {
    let value = c
        .value
        .map(|v| format!("{} = {}", c.quantity, crate::number(v)))
        .unwrap_or_else(|| c.quantity.clone());
    let mut s = value;
    match (c.spread, c.reps) {
        (Some((lo, hi)), n) if n > 1 => {
            s += &format!(
                " [{}–{} over {n} reps]",
                crate::number(lo),
                crate::number(hi)
            )
        }
        (_, 1) => s += " [1 rep]",
        _ => {}
    }
    s += &format!(" (want {})", c.bound);
    if let (Some(p), Some(m)) = (c.paper, c.magnitude) {
        s += &format!(
            "; paper {}, ours ÷ paper {}",
            crate::number(p),
            crate::number(m)
        );
    }
    if let Some((a, b)) = c.components {
        s += &format!("; of {} ÷ to {}", crate::number(a), crate::number(b));
    }
    if let Some(r) = &c.reason {
        s += &format!(" — {r}");
    }
    if let Some(from) = &c.from {
        s += &format!(" (carried from the evaluation over {from})");
    }
    s
}

/// The verdict as the table shows it: "holds", "differs (close)".
pub fn verdict_text(r: &ClaimResult) -> String {
    let mut s = r.verdict.text().to_string();
    if r.close {
        s += " (close)";
    }
    if r.unexplained() {
        s += ", no note saying why";
    }
    s
}

pub fn document(bench_root: &Path, files: &[ClaimsFile], results: &[ClaimResult]) -> Document {
    let mut doc = Document::default();
    doc.push(Block::Heading(1, "Claims: the papers beside ours".into()));
    let mut intro = format!(
        "The papers' claims over the bench parts under `{}`, each counted once: {}. ",
        bench_root.display(),
        tally_text(results, false)
    );
    if results.iter().any(|r| r.ours) {
        intro += &format!(
            "Our own questions (not claims of the papers), apart: {}. ",
            tally_text(results, true)
        );
    }
    intro += "A claim holds when every check's value is within its bound; bounds come from the paper by the format's rule \
              (claims/README.md), never from our results; it holds, magnitude differs, when a check's figure is more than \
              4× or less than ¼ of the paper's (ours ÷ paper beside each figure; a ratio's two components after it). Each figure is computed from the repetitions' means; the range \
              in brackets is the same figure from each repetition alone, and a verdict is close when that range straddles \
              its bound. A check within 25 % of its bound on fewer than 3 repetitions is unsettled: not called either way.";
    doc.push(Block::Paragraph(intro));
    for file in files {
        doc.push(Block::Heading(2, file.title.clone()));
        let rows: Vec<Vec<String>> = results
            .iter()
            .filter(|r| r.paper == file.paper)
            .map(|r| {
                let ours: Vec<String> = r.checks.iter().map(ours).collect();
                let claim = if r.ours {
                    format!("{} (our question): {}", r.id, r.statement)
                } else {
                    format!("{}: {}", r.id, r.statement)
                };
                vec![
                    claim,
                    r.section.clone(),
                    r.paper_figure.clone().unwrap_or_else(|| "–".into()),
                    ours.join("; "),
                    verdict_text(r),
                    r.plot.clone().unwrap_or_else(|| "–".into()),
                ]
            })
            .collect();
        doc.push(Block::Table {
            header: ["Claim", "Where", "Paper", "Ours", "Verdict", "Plot"]
                .map(String::from)
                .to_vec(),
            rows,
        });
        let notes: Vec<String> = results
            .iter()
            .filter(|r| r.paper == file.paper && r.verdict != Verdict::Holds)
            .filter_map(|r| r.note.as_ref().map(|n| format!("{}: {n}", r.id)))
            .collect();
        if !notes.is_empty() {
            doc.push(Block::Paragraph("Why ours may differ:".into()));
            doc.push(Block::List(notes));
        }
    }
    doc
}

#[derive(Serialize)]
struct Json<'a> {
    bench_root: &'a Path,
    /// The papers' claims, each once.
    tally: BTreeMap<&'static str, usize>,
    tally_by_paper: BTreeMap<&'a str, BTreeMap<&'static str, usize>>,
    /// Our own questions, apart.
    tally_ours: BTreeMap<&'static str, usize>,
    claims: &'a [ClaimResult],
}

/// Writes the three files into `out_dir` (each whole or absent).
pub fn write(
    out_dir: &Path,
    bench_root: &Path,
    files: &[ClaimsFile],
    results: &[ClaimResult],
) -> Result<Written> {
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let doc = document(bench_root, files, results);
    let w = Written {
        markdown: out_dir.join("claims.md"),
        html: out_dir.join("claims.html"),
        json: out_dir.join("claims.json"),
        table_markdown: doc.markdown(),
    };
    let json = Json {
        bench_root,
        tally: tally(results, false),
        tally_by_paper: tally_by_paper(results),
        tally_ours: tally(results, true),
        claims: results,
    };
    for (path, text) in [
        (&w.markdown, w.table_markdown.clone()),
        (&w.html, doc.html("c2tcp: claims")),
        (&w.json, serde_json::to_string_pretty(&json)? + "\n"),
    ] {
        wholefile::write(path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(w)
}
