// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp claims BENCH_ROOT`: every paper's claims (`claims/*.toml`,
//! claims/README.md) evaluated over a bench root's parts, written as
//! `claims.md`, `claims.html`, `claims.json`; `--check` only parses.
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

#[derive(clap::Args)]
#[command(
    after_help = "BENCH_ROOT holds one directory per bench part, as `make bench` writes it \
(bench-out/table1, bench-out/target-sweep, ...); each claim names its part. Verdicts: holds, holds, magnitude differs \
(within its bound, but a figure more than 4x or less than 1/4 of the paper's: tallied apart), differs \
(out of bound, or undefined where the runs exist), unsettled (within 25 % of its bound on fewer than \
3 repetitions), not run (its runs are absent), error (the claim cannot be read against these runs); \
\"close\" where the repetitions straddle the bound. The papers' claims are tallied once each, our own \
questions (`ours = true`) apart. Exits 1 when a claim differs, or is unsettled outside its \
bound, without a note saying why.\n\n\
--check parses the files and refuses, naming the line: a bound that breaks the rule for the paper's \
ratio (claims/README.md, Bounds), a paper's claim without the paper's figure, a check of a paper's claim without `paper =` (the \
paper's figure for the quantity or its words), and every misfit of the format.\n\n\
Examples:\n  c2tcp claims bench-out\n  c2tcp claims bench-out --claims claims/c2tcp.toml --out /tmp/claims\n  \
c2tcp claims bench-out --prior docs/claims.json --out /tmp/claims\n  \
c2tcp claims --check --claims claims/natcp.toml"
)]
pub struct Args {
    /// The bench root (not with --check, which reads only the claims files: give them with
    /// --claims)
    #[arg(required_unless_present = "check", conflicts_with = "check")]
    bench_root: Option<PathBuf>,
    /// Claims files or directories of them (default: the repository's or installed claims/)
    #[arg(long = "claims", value_name = "PATH")]
    claims: Vec<PathBuf>,
    /// Where to write claims.{md,html,json} (default: BENCH_ROOT)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Only parse and check the claims files (the format and its bound rule) and say how many
    /// claims each has
    #[arg(long)]
    check: bool,
    /// An earlier claims.json (e.g. docs/claims.json): a check whose bench part is absent
    /// from BENCH_ROOT takes its result from there, naming the bench root it came from,
    /// where it was run and its quantity and bound read as now
    #[arg(long, value_name = "CLAIMS_JSON", conflicts_with = "check")]
    prior: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let paths = if a.claims.is_empty() {
        let root = harness::data::data_root().context("no claims/ found (give --claims PATH)")?;
        vec![root.join("claims")]
    } else {
        a.claims
    };
    let mut files = Vec::new();
    for p in &paths {
        files.extend(report::claims::load_all(p)?);
    }
    let mut papers = std::collections::BTreeSet::new();
    for f in &files {
        if !papers.insert(f.paper.clone()) {
            bail!("paper {:?} appears in two claims files", f.paper);
        }
    }
    if a.check {
        for f in &files {
            let ours = f.claims.iter().filter(|c| c.ours).count();
            println!(
                "{}: {} claims of the paper, {} of our own ({})",
                f.paper,
                f.claims.len() - ours,
                ours,
                f.title
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let root = a.bench_root.expect("clap requires it without --check");
    if !root.is_dir() {
        bail!("{}: no such bench root", root.display());
    }
    let prior = a
        .prior
        .as_deref()
        .map(report::claims::Prior::load)
        .transpose()?;
    let results = report::claims::evaluate_with_prior(&root, &files, prior.as_ref())?;
    let out = a.out.unwrap_or_else(|| root.clone());
    let w = report::claims::write(&out, &root, &files, &results)?;
    println!("{}", w.table_markdown);
    println!(
        "claims: {}  (also {}, {})",
        w.markdown.display(),
        w.html.display(),
        w.json.display()
    );
    let unexplained: Vec<String> = results
        .iter()
        .filter(|r| r.unexplained())
        .map(|r| format!("{}/{}", r.paper, r.id))
        .collect();
    if !unexplained.is_empty() {
        eprintln!(
            "c2tcp claims: {} differ (or are unsettled outside their bound) without a note saying why (give each claim a `note`): {}",
            unexplained.len(),
            unexplained.join(", ")
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
