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

/// Counts of each verdict, keyed as claims.json writes verdicts.
pub fn tally(results: &[ClaimResult]) -> BTreeMap<&'static str, usize> {
    let mut t = BTreeMap::new();
    for r in results {
        *t.entry(r.verdict.key()).or_insert(0) += 1;
    }
    t
}

fn ours(c: &CheckResult) -> String {
    let value = c
        .value
        .map(|v| format!("{} = {}", c.quantity, crate::number(v)))
        .unwrap_or_else(|| c.quantity.clone());
    let mut s = format!("{value} (want {})", c.bound);
    if let Some(r) = &c.reason {
        s += &format!(" — {r}");
    }
    s
}

pub fn document(bench_root: &Path, files: &[ClaimsFile], results: &[ClaimResult]) -> Document {
    let mut doc = Document::default();
    doc.push(Block::Heading(1, "Claims: the papers beside ours".into()));
    let counts: Vec<String> = tally(results)
        .into_iter()
        .map(|(k, n)| format!("{n} {}", k.replace('-', " ")))
        .collect();
    doc.push(Block::Paragraph(format!(
        "{} claims over the bench parts under `{}`: {}. A claim holds when every check's value is within its bound; \
         bounds come from the paper (claims/README.md), never from our results.",
        results.len(),
        bench_root.display(),
        counts.join(", ")
    )));
    for file in files {
        doc.push(Block::Heading(2, file.title.clone()));
        let rows: Vec<Vec<String>> = results
            .iter()
            .filter(|r| r.paper == file.paper)
            .map(|r| {
                let ours: Vec<String> = r.checks.iter().map(ours).collect();
                vec![
                    format!("{}: {}", r.id, r.statement),
                    r.section.clone(),
                    r.paper_figure.clone().unwrap_or_else(|| "–".into()),
                    ours.join("; "),
                    r.verdict.text().into(),
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
    tally: BTreeMap<&'static str, usize>,
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
        tally: tally(results),
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
