// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp run`: one scenario, or one flow described by flags, through the
//! emulator between a server namespace and a UE namespace; writes the run's
//! logs, metrics, time series and a report into `--out`.
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use harness::bench::{self, RunStatus};
use harness::ownership::{self, Claim};
use harness::plan::RunFlags;
use harness::runner::{self, RunOptions};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(clap::Args)]
#[command(after_help = after_help())]
pub struct Args {
    /// A scenario (TOML, see scenarios/); without one, the flags describe a single flow
    scenario: Option<PathBuf>,
    /// Scheme of the flow (replaces every flow's scheme in a scenario); see --list-schemes
    #[arg(long)]
    scheme: Option<String>,
    /// C2TCP's Target, ms
    #[arg(long, value_name = "MS")]
    target: Option<f64>,
    /// Set a knob of the flows' scheme (any --list-schemes shows), e.g. variant=paper; repeatable
    #[arg(long = "set", value_name = "KNOB=VALUE", value_parser = harness::plan::parse_knob_setting)]
    set: Vec<harness::plan::KnobSetting>,
    /// A scheme file (docs/schemes.md) whose scheme --scheme or the scenario can name; repeatable
    #[arg(long = "scheme-file", value_name = "FILE")]
    scheme_file: Vec<PathBuf>,
    /// Downlink trace (server -> UE)
    #[arg(long, value_name = "TRACE")]
    downlink: Option<String>,
    /// Uplink trace; default: the .up sibling of a .down trace, else constant 48 Mbit/s
    #[arg(long, value_name = "TRACE")]
    uplink: Option<String>,
    /// One-way propagation delay each way, ms [default: 10]
    #[arg(long, value_name = "MS")]
    delay: Option<f64>,
    /// Queue of both directions, QUEUE[:ARGS] [default: droptail:packets=100]
    #[arg(long, value_name = "QUEUE")]
    queue: Option<String>,
    /// Run length, s, or `trace`: the downlink trace's own length, one pass [default: 60]
    #[arg(long, value_name = "S|trace")]
    duration: Option<harness::scenario::RunLength>,
    /// Seconds at the start not measured [default: 0]
    #[arg(long, value_name = "S")]
    warmup: Option<f64>,
    /// Output directory
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Seed of the emulator's random loss and PIE
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Route every flow through a tunnel over the link: sprout (SproutTunnel, one end in each
    /// namespace; the scenario's [tunnel] table, docs/sprout.md) or none (directly, whatever the
    /// scenario says)
    #[arg(long, value_name = "sprout|none")]
    tunnel: Option<String>,
    /// Also write downlink.pcapng and uplink.pcapng (what the link did to
    /// every packet; docs/emulator.md) in the run directory
    #[arg(long)]
    pcap: bool,
    /// No progress bar or summary
    #[arg(short, long)]
    quiet: bool,
    /// List the schemes and their parameters, then exit
    #[arg(long)]
    list_schemes: bool,
    /// One job of `c2tcp bench --list` (a file, or - for stdin): runs it into --out (default: its run directory)
    #[arg(long, value_name = "FILE|-")]
    job: Option<PathBuf>,
    /// When --out holds files that are not a run of ours, write into a fresh subdirectory of it (run-1, run-2, ...)
    #[arg(long)]
    subdir: bool,
}

/// The help after the options: the queues as emu registers them.
fn after_help() -> String {
    let before = "Examples:\n  \
c2tcp run --scheme c2tcp --target 50 --downlink TMobile-LTE-driving.down --out out/c2tcp\n  \
c2tcp run scenarios/c2tcp-default.toml --scheme cubic --out out/cubic\n  \
c2tcp run --scheme c2tcp --set variant=paper --set alpha=2 --downlink constant:12 --out out/paper\n  \
c2tcp run --scheme-file my-quic.toml --scheme my-quic --downlink constant:12 --out out/mine\n  \
c2tcp run scenarios/sprout-competing.toml --tunnel sprout --out out/via-sprout\n\n\
Schemes: built in, or files (docs/schemes.md): schemes/*.toml of the repository or PREFIX/share/c2tcp, \
$C2TCP_SCHEMES (a folder of them), --scheme-file.\n\n\
";
    let after = "Traces (--downlink, --uplink, a scenario's link): a Mahimahi file (looked up as given, \
then in $C2TCP_TRACES and $C2TCP_TRACES/mahimahi), constant:MBPS, steps:START_S:MBPS,...@PERIOD_S, or \
CellReplay's cellreplay:LIGHT,HEAVY[,offsets=FILE][,idle=MS]. Flags given with a scenario override it.";
    format!("{before}{}\n{after}", emu::queue::help())
}

/// What an existing `--out` holds.
enum OutDir {
    /// Absent, or empty but for a stale lock: the run makes it its own.
    Fresh,
    /// A run directory of ours (a readable run.json, or a bench's job.json
    /// before its run started): the run replaces it.
    Ours,
    /// Anything else: never adopted, never mixed with.
    Foreign(String),
}

fn classify_out(out: &Path) -> Result<OutDir> {
    if !out.exists() {
        return Ok(OutDir::Fresh);
    }
    if !out.is_dir() {
        return Ok(OutDir::Foreign("it is not a directory".into()));
    }
    let mut others: Vec<String> = std::fs::read_dir(out)
        .with_context(|| format!("reading {}", out.display()))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != results::LOCK)
        .collect();
    if others.is_empty() {
        return Ok(OutDir::Fresh);
    }
    // A bench's run directory before its run.json exists.
    if out.join(results::JOB_JSON).is_file() && !out.join(results::RUN_JSON).exists() {
        return Ok(OutDir::Ours);
    }
    if out.join(results::RUN_JSON).is_file() {
        return match results::RunInfo::read(out) {
            Ok(_) => Ok(OutDir::Ours),
            Err(e) => Ok(OutDir::Foreign(format!("{e:#}"))),
        };
    }
    others.sort();
    Ok(OutDir::Foreign(format!(
        "it holds files that are not a run of ours ({}{})",
        others[..others.len().min(3)].join(", "),
        if others.len() > 3 { ", ..." } else { "" }
    )))
}

/// The first `DIR/run-N` that does not exist yet.
fn fresh_subdir(out: &Path) -> PathBuf {
    (1..)
        .map(|n| out.join(format!("run-{n}")))
        .find(|p| !p.exists())
        .expect("a free run-N")
}

fn list_schemes() {
    for (name, s) in harness::scheme::listing() {
        println!("{name:<14} {}", s.summary);
        for k in &s.knobs {
            let range = match k.word {
                Some(_) => "a word".to_string(),
                None => format!("{}..{}", k.min, k.max),
            };
            println!("{:<14}   {} ({range}): {}", "", k.name, k.about);
        }
    }
}

/// What the flags say about the scenario (`harness::plan::RunFlags`).
fn flags_of(a: &Args) -> RunFlags {
    RunFlags {
        scheme: a.scheme.clone(),
        target_ms: a.target,
        set: a.set.clone(),
        downlink: a.downlink.clone(),
        uplink: a.uplink.clone(),
        delay_ms: a.delay,
        queue: a.queue.clone(),
        length: a.duration,
        warmup_s: a.warmup,
        pcap: a.pcap,
        tunnel: a.tunnel.clone(),
    }
}

pub fn progress_bar(total_s: f64, quiet: bool) -> Option<ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = ProgressBar::new((total_s * 10.0) as u64);
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:40}] {elapsed_precise} / ETA {eta}")
            .unwrap()
            .progress_chars("=> "),
    );
    pb.enable_steady_tick(Duration::from_millis(200));
    Some(pb)
}

pub fn run(mut a: Args) -> Result<ExitCode> {
    // Scheme files first: a bad one is refused before anything starts.
    harness::scheme::file::add(&a.scheme_file)?;
    if a.list_schemes {
        list_schemes();
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(p) = &a.scenario {
        a.scenario = Some(harness::data::find_scenario(p)?);
    }
    let interrupt = super::interrupt::install();
    // The scenario, checked once: a bench's job (the child's half of the
    // bench's protocol), or the file and the flags.
    let (checked, job) = match &a.job {
        Some(path) => match bench::start_job(path)? {
            Some((checked, job)) => (checked, Some(job)),
            None => {
                eprintln!("c2tcp run: the bench that started this run is gone; not starting");
                return Ok(ExitCode::from(130));
            }
        },
        None => (flags_of(&a).scenario(a.scenario.as_deref())?, None),
    };
    // After the scenario and its schemes are checked: those errors need no root.
    bpfload::sys::require_root("c2tcp run")?;
    let Some(mut out) = a.out.clone().or(job.as_ref().map(|j| j.dir.clone())) else {
        bail!("--out DIR is required")
    };
    // A lone run owns its directory: new, empty, or a run of ours, which it
    // replaces whole; anything else is refused (a bench's job directory is
    // the bench's to clear).
    let mut replace = false;
    if job.is_none() {
        match classify_out(&out)? {
            OutDir::Fresh => {}
            OutDir::Ours => replace = true,
            OutDir::Foreign(_) if a.subdir && out.is_dir() => out = fresh_subdir(&out),
            OutDir::Foreign(why) => bail!(
                "--out {}: {why}; a run writes only into a new or empty directory or one of its \
                 own runs (--subdir: into a fresh run-N inside it)",
                out.display()
            ),
        }
    }
    // One run per directory, held until this process (and, for a bench's
    // run, the bench) is gone.
    let claim = match job {
        Some(_) => bench::own_run_dir(&out)?,
        None => ownership::try_claim(&out, "c2tcp run")?,
    };
    let _owner = match claim {
        Claim::Owned(own) => own,
        Claim::Busy(holder) => {
            eprintln!("{}", ownership::in_use_message("c2tcp run", &out, &holder));
            return Ok(ExitCode::FAILURE);
        }
    };
    if replace {
        // Nothing of the earlier run may read as this one's.
        _owner.clear()?;
        if !a.quiet {
            eprintln!("c2tcp run: replacing the earlier run in {}", out.display());
        }
    }
    let exe = std::env::current_exe().context("locating the c2tcp binary")?;
    let mut opts = match &job {
        Some(job) => job.options(&out, &exe),
        None => {
            let mut o = RunOptions::new(&out, &exe, harness::identity::of_run(checked.scenario()));
            o.seed = a.seed;
            o.scenario_dir = a
                .scenario
                .as_deref()
                .and_then(Path::parent)
                .map(Path::to_path_buf);
            o
        }
    };
    let pb = progress_bar(checked.scenario().link.duration_s, a.quiet);
    if let Some(pb) = &pb {
        pb.set_message(format!("{} ", opts.identity.scheme));
        let pb = pb.clone();
        opts.progress = Some(Arc::new(move |done, _total| {
            pb.set_position((done * 10.0) as u64)
        }));
    }
    let status = runner::run(checked, &opts, interrupt);
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let status = status?;
    // An interrupted run has no results to summarise or report: only the
    // line below says where its partial files are.
    if a.job.is_none() && status == RunStatus::Done {
        let rep = report::build(&out, &report::ReportOptions::default());
        if !a.quiet {
            summarize(&out, status);
            match rep {
                Ok(r) => println!("report: {}", r.markdown.display()),
                Err(e) => eprintln!("c2tcp: the report could not be written: {e:#}"),
            }
        }
    }
    Ok(match status {
        RunStatus::Done => ExitCode::SUCCESS,
        RunStatus::Interrupted => {
            eprintln!(
                "c2tcp run: interrupted; partial results kept in {}",
                out.display()
            );
            ExitCode::from(130)
        }
        RunStatus::Failed => ExitCode::FAILURE,
    })
}

/// Prints the run's headline figures.
fn summarize(out: &Path, status: RunStatus) {
    let Ok(a) = results::read_analysis(out) else {
        return;
    };
    let f = |v: Option<f64>| v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "-".into());
    println!("{status:?}: {}", out.display());
    println!(
        "{:<24} {:>10} {:>8} {:>10} {:>10} {:>9} {:>8}",
        "flow", "Mbit/s", "util", "avg q ms", "p95 q ms", "RTT ms", "FCT s"
    );
    let rows = a
        .flows
        .iter()
        .map(|fl| (fl.name.clone(), &fl.metrics))
        .chain([("all".to_string(), &a.aggregate)]);
    for (name, m) in rows {
        println!(
            "{:<24} {:>10.2} {:>8} {:>10} {:>10} {:>9} {:>8}",
            name,
            m.throughput_mbps,
            m.utilization
                .map(|u| format!("{u:.2}"))
                .unwrap_or_else(|| "-".into()),
            f(m.avg_queue_delay_ms),
            f(m.p95_queue_delay_ms),
            f(m.avg_rtt_ms),
            m.fct_s
                .map(|x| format!("{x:.2}"))
                .unwrap_or_else(|| "-".into()),
        );
    }
}

#[cfg(test)]
mod tests {
    use clap::{Args as _, Command};
    use harness::scenario::{DEFAULT_DELAY_MS, DEFAULT_DURATION_S, DEFAULT_QUEUE};

    /// The flags' help states the defaults of a scenario without a file;
    /// the scenario model owns them.
    #[test]
    fn the_help_states_the_scenario_models_defaults() {
        let help = super::Args::augment_args(Command::new("run"))
            .render_help()
            .to_string();
        for default in [
            format!("[default: {DEFAULT_DELAY_MS}]"),
            format!("[default: {DEFAULT_QUEUE}]"),
            format!("[default: {DEFAULT_DURATION_S}]"),
        ] {
            assert!(help.contains(&default), "{default} missing from:\n{help}");
        }
    }
}
