// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp report DIR`: the tables and plots of a bench (or a single run).
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// A bench or run directory
    dir: PathBuf,
    /// Scheme the Table-I-style table normalises to
    #[arg(long, default_value = "c2tcp")]
    reference: String,
    /// Parameter label of the reference runs in a sweep, e.g. target_ms=50
    #[arg(long)]
    reference_label: Option<String>,
    /// Where to write the report (default: DIR)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Tables only, no plots
    #[arg(long)]
    no_plots: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let opts = report::ReportOptions {
        reference_scheme: a.reference,
        reference_label: a.reference_label,
        out_dir: a.out,
        plots: !a.no_plots,
        ..Default::default()
    };
    let r = report::build(&a.dir, &opts)?;
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
    Ok(ExitCode::SUCCESS)
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
