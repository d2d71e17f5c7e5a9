// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp bench`: a scenario over schemes × traces × swept values ×
//! repetitions, `--jobs` at a time, each run a `c2tcp run` child in its own
//! namespaces; resumable; ends with `c2tcp report`.
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, Result};
use bpfload::usage::BpfUse;
use harness::bench::{self, BenchFlags, Job, RunStatus, Shard, WhenBusy};
use harness::ownership::{self, Claim, Ownership};

#[derive(clap::Args)]
#[command(
    after_help = "Without a scenario the bench runs the authors' set-up (scenarios/c2tcp-default.toml: \
10 ms each way, 100-packet droptail, Target 50 ms) over every downlink trace in $C2TCP_TRACES/mahimahi. \
Rerunning the same command resumes: finished runs are kept, unfinished ones redone. Ctrl-C stops cleanly.\n\n\
A bench directory has one owner: a second bench into it is refused. A run still going in it (say, of a bench that \
was killed, winding down) is waited for, or with --no-wait skipped (exit status 75: rerun later to finish it).\n\n\
A scenario's [bench] table (schemes, traces, reference, reference_label, reps) gives the defaults of those flags, \
so a scenario carries its experiment: `c2tcp bench scenarios/target-sweep.toml --out sweep` is C2TCP's Fig. 20.\n\n\
Scale-out (docs/scale-out.md): --list prints the jobs as JSON lines, --shard K/N runs every N-th of them, \
`c2tcp report DIR... --out MERGED` joins the shards' directories.\n\n\
Examples:\n  c2tcp bench --out bench-out --jobs 2\n  \
c2tcp bench scenarios/target-sweep.toml --out sweep\n  \
c2tcp bench scenarios/c2tcp-variants.toml --shard 2/4 --out table1-shard2"
)]
pub struct Args {
    /// Scenario to run (default: the authors' set-up over every downlink trace)
    scenario: Option<PathBuf>,
    /// Schemes to compare, comma-separated [default: the scenario's [bench] schemes, else its own flows'; without a scenario: cubic,bbr,cubic-codel,c2tcp]
    #[arg(long, value_delimiter = ',')]
    schemes: Vec<String>,
    /// Downlink traces, comma-separated files or directories (their *.down); `all` = $C2TCP_TRACES/mahimahi [default: the scenario's [bench] traces, else its own downlink]
    #[arg(long, value_delimiter = ',')]
    traces: Vec<String>,
    /// Set a knob of the schemes that take it, e.g. variant=paper (part of each run's identity); repeatable
    #[arg(long = "set", value_name = "KNOB=VALUE", value_parser = harness::plan::parse_knob_setting)]
    set: Vec<harness::plan::KnobSetting>,
    /// A scheme file (docs/schemes.md) whose scheme --schemes or the scenario can name; repeatable
    #[arg(long = "scheme-file", value_name = "FILE")]
    scheme_file: Vec<PathBuf>,
    /// Repetitions of every run [default: the scenario's [bench] reps, else 1]
    #[arg(long)]
    reps: Option<u32>,
    /// Runs at a time, 1 to 256 (each uses ~1 core at cellular rates)
    #[arg(short, long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: u16,
    /// Bench directory (runs/, report.md, ...)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Override the scenario's run length: seconds, or `trace` (each downlink trace's own length, one pass)
    #[arg(long, value_name = "S|trace")]
    duration: Option<harness::scenario::RunLength>,
    /// Override the scenario's warm-up, s
    #[arg(long, value_name = "S")]
    warmup: Option<f64>,
    /// Scheme the report normalises to (Table I) [default: the scenario's [bench] reference, else c2tcp]
    #[arg(long)]
    reference: Option<String>,
    /// Parameter label of the reference runs in a sweep, e.g. target_ms=50 [default: the scenario's [bench] one]
    #[arg(long)]
    reference_label: Option<String>,
    /// Base seed (rep N uses seed + N - 1)
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Skip the report at the end
    #[arg(long)]
    no_report: bool,
    /// Skip runs whose directory another process still holds, instead of waiting for them
    #[arg(long)]
    no_wait: bool,
    /// Print the bench's jobs as JSON lines (one run each, all it needs) and run nothing
    #[arg(long)]
    list: bool,
    /// Only the jobs whose index is K-1 modulo N in the listed order, e.g. 2/4
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Run nothing: write the report of what the directory holds (as the bench would at its end)
    #[arg(long, conflicts_with_all = ["list", "no_report"])]
    report_only: bool,
}

/// Exit status when runs were skipped as busy (`--no-wait`): EX_TEMPFAIL.
const EXIT_RUNS_BUSY: u8 = 75;

pub fn run(mut a: Args) -> Result<ExitCode> {
    // Scheme files first: a bad one is refused before anything starts.
    harness::scheme::file::add(&a.scheme_file)?;
    if let Some(p) = &a.scenario {
        a.scenario = Some(harness::data::find_scenario(p)?);
    }
    // The flags merged with the scenario's [bench] table (harness::bench).
    let flags = BenchFlags {
        scenario: a.scenario.clone(),
        schemes: a.schemes.clone(),
        traces: a.traces.clone(),
        set: a.set.clone(),
        reps: a.reps,
        length: a.duration,
        warmup_s: a.warmup,
        reference: a.reference.clone(),
        reference_label: a.reference_label.clone(),
        seed: a.seed,
        out: a.out.clone(),
    };
    let bench = flags.bench()?;
    let reference = bench
        .reference
        .unwrap_or_else(|| report::DEFAULT_REFERENCE.to_string());
    let reference_label = bench.reference_label;
    let mut jobs = bench::expand(&bench.matrix)?;
    if let Some(shard) = a.shard {
        jobs.retain(|j| shard.holds(j.index));
    }
    if a.list {
        let mut out = std::io::stdout().lock();
        for j in &jobs {
            writeln!(out, "{}", j.to_line()?)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if a.report_only {
        write_report(&a.out, reference, reference_label)?;
        return Ok(ExitCode::SUCCESS);
    }
    bpfload::sys::require_root("c2tcp bench")?;
    let interrupt = super::interrupt::install();
    // One bench per directory, for its whole life; refused before anything slow.
    let _owner = match ownership::try_claim(&a.out, "c2tcp bench")? {
        Claim::Owned(own) => own,
        Claim::Busy(holder) => {
            eprintln!(
                "{}",
                ownership::in_use_message("c2tcp bench", &a.out, &holder)
            );
            return Ok(ExitCode::FAILURE);
        }
    };
    let todo_s: f64 = jobs
        .iter()
        .filter(|j| bench::status_of(&j.dir) != Some(RunStatus::Done))
        .map(job_seconds)
        .sum();
    eprintln!(
        "c2tcp bench: {} runs ({} already done), ~{:.0} min of runs at {} at a time, into {}",
        jobs.len(),
        jobs.iter()
            .filter(|j| bench::status_of(&j.dir) == Some(RunStatus::Done))
            .count(),
        todo_s / 60.0 / f64::from(a.jobs),
        usize::from(a.jobs),
        a.out.display()
    );

    // Load what the schemes need once, for every child to share. A
    // congestion control this kernel refuses fails its own runs (their
    // run.json says why); every other run goes ahead.
    let (ccs, objects) = harness::plan::Needs::bpf_of(jobs.iter().map(|j| &j.scenario))?;
    let (_bpf, refused) = BpfUse::acquire_each(&ccs, &objects)?;
    let refused: Vec<(String, String)> = refused
        .into_iter()
        .map(|(cc, e)| (cc, format!("{e:#}")))
        .collect();
    for (cc, why) in &refused {
        eprintln!("c2tcp bench: {cc} cannot run on this host, its runs fail: {why}");
    }

    let progress = Progress::new(&jobs, usize::from(a.jobs));
    let exe = std::env::current_exe().context("locating the c2tcp binary")?;
    let run_job = |job: &Job, own: &Ownership| -> Result<RunStatus> {
        if let Some(why) = refusal_of(job, &refused)? {
            return bench::fail_unstarted(job, &why);
        }
        progress.started(job);
        let r = bench::run_child(&exe, job, own, interrupt);
        progress.finished(job);
        r
    };
    let when_busy = if a.no_wait {
        WhenBusy::Skip
    } else {
        WhenBusy::Wait
    };
    let summary = bench::execute(
        jobs.clone(),
        usize::from(a.jobs),
        when_busy,
        interrupt,
        &run_job,
        &|_, _| {},
        &|msg| progress.note(&format!("c2tcp bench: {msg}")),
    )?;
    progress.done();

    for (job, err) in &summary.failed {
        eprintln!("c2tcp bench: failed: {job}: {err}");
    }
    for (job, holder) in &summary.busy {
        eprintln!("c2tcp bench: skipped, in use by {holder}: {job}");
    }
    if summary.interrupted {
        eprintln!(
            "c2tcp bench: interrupted; rerun the same command to resume ({} runs done)",
            summary.done + summary.skipped_done
        );
        return Ok(ExitCode::from(130));
    }
    if !a.no_report {
        write_report(&a.out, reference, reference_label)?;
    }
    if !refused.is_empty() {
        let names: Vec<&str> = refused.iter().map(|(cc, _)| cc.as_str()).collect();
        eprintln!(
            "c2tcp bench: {} could not be loaded on this host, so the runs that need {} failed (see each run.json; \
             `c2tcp doctor` says what the kernel refused); the other runs and the report are complete",
            names.join(", "),
            if names.len() == 1 { "it" } else { "them" }
        );
    }
    Ok(if !summary.failed.is_empty() {
        ExitCode::FAILURE
    } else if !summary.busy.is_empty() {
        eprintln!(
            "c2tcp bench: {} runs skipped as in use; rerun the same command to finish them",
            summary.busy.len()
        );
        ExitCode::from(EXIT_RUNS_BUSY)
    } else {
        ExitCode::SUCCESS
    })
}

/// Why `job` cannot run here: a congestion control it needs that the kernel
/// refused to load.
fn refusal_of(job: &Job, refused: &[(String, String)]) -> Result<Option<String>> {
    if refused.is_empty() {
        return Ok(None);
    }
    let (ccs, objects) = harness::plan::Needs::bpf_of(std::iter::once(&job.scenario))?;
    let needed = ccs
        .iter()
        .map(|c| c.to_string())
        .chain(objects.iter().map(|o| o.cc.clone()));
    for cc in needed {
        if let Some((_, why)) = refused.iter().find(|(r, _)| *r == cc) {
            return Ok(Some(format!(
                "{cc} could not be loaded on this host: {why}"
            )));
        }
    }
    Ok(None)
}

/// The report over the bench directory, its tables printed.
fn write_report(out: &Path, reference: String, reference_label: Option<String>) -> Result<()> {
    let opts = report::ReportOptions {
        reference_scheme: reference,
        reference_label,
        ..Default::default()
    };
    let r = report::build(out, &opts)?;
    super::report::print_absolute(&r);
    println!("{}", r.table_markdown);
    for w in &r.warnings {
        eprintln!("report: {w}");
    }
    println!(
        "report: {}  (also {})",
        r.markdown.display(),
        r.html.display()
    );
    Ok(())
}

fn job_seconds(j: &Job) -> f64 {
    j.scenario.link.duration_s + 1.0
}

/// One bar for the whole bench, advanced by the seconds of run time done
/// (finished runs plus the running runs' elapsed time), so its ETA is real.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    state: Mutex<(f64, HashMap<PathBuf, Instant>, usize)>,
    total_runs: usize,
}

impl Progress {
    fn new(jobs: &[Job], parallel: usize) -> Progress {
        let todo: Vec<&Job> = jobs
            .iter()
            .filter(|j| bench::status_of(&j.dir) != Some(RunStatus::Done))
            .collect();
        let total_s: f64 = todo.iter().map(|j| job_seconds(j)).sum::<f64>() / parallel as f64;
        let bar = super::run::progress_bar(total_s, false);
        Progress {
            bar,
            state: Mutex::new((0.0, HashMap::new(), 0)),
            total_runs: todo.len(),
        }
    }

    fn started(&self, job: &Job) {
        self.state
            .lock()
            .unwrap()
            .1
            .insert(job.dir.clone(), Instant::now());
        self.refresh(Some(job));
    }

    fn finished(&self, job: &Job) {
        {
            let mut s = self.state.lock().unwrap();
            s.1.remove(&job.dir);
            s.0 += job_seconds(job);
            s.2 += 1;
        }
        self.refresh(None);
    }

    fn refresh(&self, starting: Option<&Job>) {
        let Some(bar) = &self.bar else {
            if let Some(j) = starting {
                eprintln!("c2tcp bench: running {}", j.label());
            }
            return;
        };
        let s = self.state.lock().unwrap();
        let running: f64 = s.1.values().map(|t| t.elapsed().as_secs_f64()).sum();
        let parallel = s.1.len().max(1) as f64;
        bar.set_position(((s.0 + running) / parallel.max(1.0) * 10.0) as u64);
        let msg = match starting {
            Some(j) => format!("{}/{} done; {}", s.2, self.total_runs, j.label()),
            None => format!("{}/{} done", s.2, self.total_runs),
        };
        bar.set_message(msg);
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// A line for the user, above the bar when there is one.
    fn note(&self, msg: &str) {
        match &self.bar {
            Some(bar) => bar.println(msg),
            None => eprintln!("{msg}"),
        }
    }
}
