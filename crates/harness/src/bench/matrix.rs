// SPDX-License-Identifier: GPL-2.0-only
//! What a bench runs ([`Matrix`]: a scenario over schemes × traces × swept
//! values × repetitions) and where it comes from: `c2tcp bench`'s flags
//! ([`BenchFlags`]) first, then the scenario's `[bench]` table, then the
//! authors' set-up when no scenario is given.
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};

use crate::data::traces_dir;
use crate::plan::{CheckedScenario, KnobSetting};
use crate::scenario::{check_reps, RunLength, Scenario};

/// The authors' set-up, run when no scenario is given.
const DEFAULT_SCENARIO: &str = include_str!("../../../../scenarios/c2tcp-default.toml");
/// The schemes it compares.
pub const DEFAULT_SCHEMES: &[&str] = &["cubic", "bbr", "cubic-codel", "c2tcp"];

/// What the bench runs.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// Checked as given; each job's own scenario is checked again as it
    /// is made (`jobs::expand`), with its scheme and value applied.
    pub scenario: CheckedScenario,
    /// Directory of the scenario file, for relative trace paths.
    pub scenario_dir: Option<PathBuf>,
    /// Downlink traces to substitute (empty: the scenario's own link).
    pub traces: Vec<PathBuf>,
    pub schemes: Vec<String>,
    /// `--set KNOB=VALUE`s, applied to each job's flows that take them
    /// (and named in its params, so they are part of its identity).
    pub set: Vec<KnobSetting>,
    pub reps: u32,
    /// Seed of repetition 1 (rep N uses seed + N - 1).
    pub seed: u64,
    pub out: PathBuf,
}

/// `c2tcp bench`'s flags, each None or empty when not given.
#[derive(Debug, Clone, Default)]
pub struct BenchFlags {
    /// The scenario file (found already), or None for the authors' set-up.
    pub scenario: Option<PathBuf>,
    pub schemes: Vec<String>,
    pub traces: Vec<String>,
    pub set: Vec<KnobSetting>,
    pub reps: Option<u32>,
    pub length: Option<RunLength>,
    pub warmup_s: Option<f64>,
    pub reference: Option<String>,
    pub reference_label: Option<String>,
    pub seed: u64,
    pub out: PathBuf,
}

/// A bench as its flags and its scenario's `[bench]` table say.
#[derive(Debug, Clone)]
pub struct Bench {
    pub matrix: Matrix,
    /// The scheme the report normalises to; None: the report's default.
    pub reference: Option<String>,
    pub reference_label: Option<String>,
}

impl BenchFlags {
    /// Merges the flags with the scenario's `[bench]` table (a flag wins)
    /// and checks each value with the same words whichever gave it, the
    /// message naming which.
    pub fn bench(&self) -> Result<Bench> {
        let (mut scenario, default_setup) = match &self.scenario {
            Some(p) => (Scenario::read(p)?, false),
            None => (
                Scenario::from_toml(DEFAULT_SCENARIO).context("the built-in authors' scenario")?,
                true,
            ),
        };
        if let Some(d) = self.length {
            scenario.link.set_length(d);
        }
        if let Some(w) = self.warmup_s {
            scenario.link.warmup_s = w;
        }
        let checked = CheckedScenario::check(scenario).with_context(|| match &self.scenario {
            Some(p) => format!("in scenario {}", p.display()),
            None => "the built-in authors' scenario".to_string(),
        })?;
        let table = checked.scenario().bench.clone().unwrap_or_default();
        let first = |flag: &[String], table: &[String], default: &[&str]| -> Vec<String> {
            match (flag.is_empty(), table.is_empty(), default_setup) {
                (false, _, _) => flag.to_vec(),
                (true, false, _) => table.to_vec(),
                (true, true, true) => default.iter().map(|s| s.to_string()).collect(),
                (true, true, false) => Vec::new(),
            }
        };
        let trace_specs = first(&self.traces, &table.traces, &["all"]);
        let schemes = first(&self.schemes, &table.schemes, DEFAULT_SCHEMES);
        let table_src = |field: &str| match &self.scenario {
            Some(p) => format!("{}: [bench] {field}", p.display()),
            None => format!("[bench] {field}"),
        };
        if let Some(r) = self.reps {
            check_reps(r).map_err(|e| anyhow!("--reps: {e}"))?;
        } else if let Some(r) = table.reps {
            check_reps(r).map_err(|e| anyhow!("{}: {e}", table_src("reps")))?;
        }
        let reference = match (&self.reference, &table.reference) {
            (Some(r), _) => Some(check_reference(r).context("--reference")?),
            (None, Some(r)) => Some(check_reference(r).with_context(|| table_src("reference"))?),
            (None, None) => None,
        };
        for s in &schemes {
            crate::scheme::lookup(s).context("--schemes")?;
        }
        let matrix = Matrix {
            scenario: checked,
            scenario_dir: self
                .scenario
                .as_deref()
                .and_then(Path::parent)
                .map(Path::to_path_buf),
            traces: collect_traces(&trace_specs)?,
            schemes,
            set: self.set.clone(),
            reps: self.reps.or(table.reps).unwrap_or(1),
            seed: self.seed,
            out: std::path::absolute(&self.out)
                .with_context(|| format!("--out {}", self.out.display()))?,
        };
        Ok(Bench {
            matrix,
            reference,
            reference_label: self.reference_label.clone().or(table.reference_label),
        })
    }
}

/// The reference scheme must be one the registry knows (a typo would
/// leave every table without its reference, silently).
pub fn check_reference(name: &str) -> Result<String> {
    crate::scheme::lookup(name)?;
    Ok(name.to_string())
}

/// `--traces`: files, directories (their `*.down`), `all` for
/// `$C2TCP_TRACES/mahimahi`, or names found where traces are kept.
fn collect_traces(specs: &[String]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for spec in specs {
        let path = if spec == "all" {
            traces_dir()?.join("mahimahi")
        } else {
            PathBuf::from(spec)
        };
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&path)
                .with_context(|| format!("reading {}", path.display()))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "down"))
                .collect();
            if found.is_empty() {
                bail!("--traces: no *.down trace in {}", path.display());
            }
            found.sort();
            out.extend(found);
        } else if path.is_file() {
            out.push(path);
        } else {
            out.push(crate::data::resolve_trace(spec, None)?);
        }
    }
    Ok(out)
}
