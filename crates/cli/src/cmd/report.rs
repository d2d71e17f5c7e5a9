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
    println!("{}", r.table_markdown);
    for w in &r.warnings {
        eprintln!("report: {w}");
    }
    println!("report: {}  (also {})", r.markdown.display(), r.html.display());
    Ok(ExitCode::SUCCESS)
}
