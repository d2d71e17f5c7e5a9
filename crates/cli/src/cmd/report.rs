// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp report DIR`: the tables and plots of a bench (or a single run).
//! `c2tcp report DIR DIR... --out MERGED` first joins the runs of several
//! bench directories (the shards of one bench) into MERGED.
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use harness::ownership::{self, Claim};

#[derive(clap::Args)]
#[command(
    after_help = "With several directories (the shards of one bench, `c2tcp bench --shard K/N`), their runs \
are first copied into --out, which then holds the whole bench: a run found twice must be the same run \
(same files, same bytes), else nothing is merged; a finished run wins over an unfinished one.\n\n\
Examples:\n  c2tcp report bench-out\n  c2tcp report shard1 shard2 shard3 --out merged"
)]
pub struct Args {
    /// A bench or run directory; several: shard directories to merge into --out
    #[arg(required = true, num_args = 1..)]
    dirs: Vec<PathBuf>,
    /// Scheme the Table-I-style table normalises to
    #[arg(long, default_value = report::DEFAULT_REFERENCE)]
    reference: String,
    /// Parameter label of the reference runs in a sweep, e.g. target_ms=50
    #[arg(long)]
    reference_label: Option<String>,
    /// Where to write the report (default: DIR); with several DIRs, the merged bench directory
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Tables only, no plots
    #[arg(long)]
    no_plots: bool,
    /// Exit 0 even when runs were left out as failed or unreadable (they are still listed)
    #[arg(long)]
    allow_skipped: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    // Before anything is merged or written.
    let reference = harness::bench::check_reference(&a.reference).context("--reference")?;
    let (dir, out_dir, _owner) = match (&a.dirs[..], a.out) {
        ([one], out) => (one.clone(), out, None),
        (_, None) => bail!("several directories are merged: give --out MERGED"),
        (many, Some(merged)) => {
            // The merged directory is a bench directory: one owner at a time.
            let own = match ownership::try_claim(&merged, "c2tcp report")? {
                Claim::Owned(own) => own,
                Claim::Busy(holder) => {
                    eprintln!(
                        "{}",
                        ownership::in_use_message("c2tcp report", &merged, &holder)
                    );
                    return Ok(ExitCode::FAILURE);
                }
            };
            let m = results::merge(many, &merged)?;
            eprintln!(
                "report: merged {} directories into {}: {} runs copied, {} already there{}",
                many.len(),
                merged.display(),
                m.copied,
                m.identical,
                if m.superseded > 0 {
                    format!(", {} unfinished left out for a finished copy", m.superseded)
                } else {
                    String::new()
                }
            );
            (merged, None, Some(own))
        }
    };
    let opts = report::ReportOptions {
        reference_scheme: reference,
        reference_label: a.reference_label,
        out_dir,
        plots: !a.no_plots,
        ..Default::default()
    };
    let r = report::build(&dir, &opts)?;
    print_absolute(&r);
    println!("{}", r.table_markdown);
    for w in &r.warnings {
        eprintln!("report: {w}");
    }
    println!(
        "report: {}  (also {})",
        r.markdown.display(),
        r.html.display()
    );
    for s in &r.skipped {
        eprintln!("report: left out {}: {}", s.dir.display(), s.reason);
    }
    let (line, ok) = verdict(&r, a.allow_skipped);
    eprintln!("{line}");
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The summary line (runs used, left out and why) and whether the report
/// may exit 0: it must have reported something, and left nothing out for
/// an error (failed or unreadable runs) unless `allow_skipped`. Runs still
/// unfinished (interrupted, running) are counted but are no error.
fn verdict(r: &report::Report, allow_skipped: bool) -> (String, bool) {
    use report::SkipKind;
    let errors = r
        .skipped
        .iter()
        .filter(|s| matches!(s.kind, SkipKind::Failed | SkipKind::Unreadable))
        .count();
    let left_out = report::left_out_note(&r.skipped)
        .map(|n| format!("; {n}"))
        .unwrap_or_default();
    let mut line = format!(
        "report: {} run{} used{left_out}",
        r.runs,
        if r.runs == 1 { "" } else { "s" }
    );
    let ok = if r.runs == 0 {
        line.push_str(" — nothing to report");
        false
    } else if errors > 0 && !allow_skipped {
        line.push_str(" — exiting 1 (--allow-skipped: warn only)");
        false
    } else {
        true
    };
    (line, ok)
}

/// The headline figures of every configuration on every trace, in units.
pub fn print_absolute(r: &report::Report) {
    let get = |s: &report::summary::ConfigSummary, k: &str| s.means.get(k).copied().flatten();
    let f = |v: Option<f64>, p: usize| v.map(|x| format!("{x:.p$}")).unwrap_or_else(|| "-".into());
    println!(
        "{:<28} {:<22} {:>9} {:>6} {:>10} {:>10} {:>9}",
        "trace", "scheme", "Mbit/s", "util", "avg q ms", "p95 q ms", "RTT ms"
    );
    for s in &r.summaries {
        let name = if s.config.label.is_empty() {
            s.config.scheme.clone()
        } else {
            format!("{} {}", s.config.scheme, s.config.label)
        };
        println!(
            "{:<28} {:<22} {:>9} {:>6} {:>10} {:>10} {:>9}",
            s.trace,
            name,
            f(get(s, "throughput_mbps"), 2),
            f(get(s, "utilization"), 2),
            f(get(s, "avg_queue_delay_ms"), 1),
            f(get(s, "p95_queue_delay_ms"), 1),
            f(get(s, "avg_rtt_ms"), 1),
        );
    }
    println!();
}
