// SPDX-License-Identifier: GPL-2.0-only
//! Evaluates claims over a bench root: each claim's bench part is read once
//! (finished runs, repetitions averaged per configuration, as the report
//! does), each check's quantity computed per trace and reduced across traces,
//! and the claim given a verdict.
//!
//! Verdicts, strongest first: `error` (the claim cannot be read against
//! these runs: a selector matching several configurations where it needs
//! one), `differs` (a check computed and out of bound, or undefined where the
//! runs exist), `not run` (runs a check needs are absent), `unsettled` (a
//! check within 25 % of its bound with fewer than three repetitions behind
//! it: not called either way), `holds, magnitude differs` (every check
//! within its bound, but one's figure more than 4× or less than ¼ of the
//! paper's: the direction holds, the size does not), `holds`.
//!
//! Magnitude: a check whose `paper` is a figure shows ours ÷ the paper's,
//! and a plain ratio shows its two components (the means over the traces
//! of `of`'s and of `to`'s metric), so that a ratio reached by two
//! offsetting errors, or a one-sided bound passed far beyond the paper's
//! figure, is seen.
//!
//! Repetitions: the figure a check bounds is computed from the means over
//! repetitions, and again from each repetition alone (the k-th repetition of
//! every configuration, which share the emulator's seed); the smallest and
//! largest of those is the check's spread. A verdict whose spread straddles
//! its bound (some repetitions hold, some do not) is marked close.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::prior::Prior;
use super::quantity::{describe, matches, per_trace, ratio_parts, summary_mean, Miss};
use super::spec::{Across, Check, Claim, ClaimsFile, Quantity, Selector};
use crate::summary::{self, ConfigSummary};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Holds,
    HoldsMagnitudeDiffers,
    Unsettled,
    NotRun,
    Differs,
    Error,
}

impl Verdict {
    /// As claims.json writes it.
    pub fn key(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::HoldsMagnitudeDiffers => "holds-magnitude-differs",
            Verdict::Unsettled => "unsettled",
            Verdict::NotRun => "not-run",
            Verdict::Differs => "differs",
            Verdict::Error => "error",
        }
    }

    /// As the tables write it.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::HoldsMagnitudeDiffers => "holds, magnitude differs",
            Verdict::Unsettled => "unsettled",
            Verdict::NotRun => "not run",
            Verdict::Differs => "differs",
            Verdict::Error => "error",
        }
    }
}

/// A check this close to its bound (a fraction of the bound) is not called
/// on fewer than [`SETTLING_REPS`] repetitions.
pub const NEAR_BOUND: f64 = 0.25;
pub const SETTLING_REPS: usize = 3;
/// A figure more than this many times the paper's, or less than its
/// inverse, holds in direction only.
pub const MAGNITUDE_FACTOR: f64 = 4.0;

/// One check's outcome.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckResult {
    /// What was computed, for a reader: `cubic ÷ c2tcp [variant=jsac], avg_queue_delay_ms`.
    pub quantity: String,
    pub bound: String,
    /// The figure the bound applies to (reduced across traces).
    pub value: Option<f64>,
    /// The per-trace values it came from (docs/claims.json leaves them out).
    #[serde(default)]
    pub per_trace: Vec<(String, f64)>,
    /// The paper's figure for the quantity, when it prints one.
    pub paper: Option<f64>,
    /// Ours ÷ the paper's figure.
    pub magnitude: Option<f64>,
    /// A plain ratio's two components: the means over the traces of `of`'s
    /// and of `to`'s metric (what the ratio is made of, beside the paper's).
    pub components: Option<(f64, f64)>,
    /// The figure from each repetition alone: its smallest and largest.
    pub spread: Option<(f64, f64)>,
    /// The fewest repetitions of any configuration it read.
    pub reps: usize,
    /// Some repetitions hold and some do not.
    pub close: bool,
    /// The figure is within its bound (whatever the verdict: an unsettled
    /// check may be either side).
    pub within: bool,
    /// The bench part it read.
    pub bench: String,
    pub verdict: Verdict,
    /// Why it is not run, undefined, unsettled or an error.
    pub reason: Option<String>,
    /// The bench root of an earlier evaluation this result was carried
    /// from (`--prior`, [`super::prior`]); none when computed here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClaimResult {
    pub paper: String,
    pub id: String,
    pub section: String,
    pub statement: String,
    pub paper_figure: Option<String>,
    pub bench: String,
    pub note: Option<String>,
    /// Our question, not the paper's.
    pub ours: bool,
    /// The plot, as a path relative to the bench root, when it exists.
    pub plot: Option<String>,
    pub checks: Vec<CheckResult>,
    pub verdict: Verdict,
    /// A check that decides the verdict is close (its repetitions straddle
    /// its bound).
    pub close: bool,
}

impl ClaimResult {
    /// A verdict of "differs" must say why (the claim's note), and so must
    /// an "unsettled" one whose figure is outside its bound (it would differ
    /// if called).
    pub fn unexplained(&self) -> bool {
        let out_of_bound = self.verdict == Verdict::Unsettled
            && self
                .checks
                .iter()
                .any(|c| c.verdict == Verdict::Unsettled && !c.within);
        (self.verdict == Verdict::Differs || out_of_bound)
            && self.note.as_deref().is_none_or(|n| n.trim().is_empty())
    }
}

/// The configurations of each bench part, read once.
#[derive(Default)]
struct Benches {
    parts: BTreeMap<String, Option<Vec<ConfigSummary>>>,
}

impl Benches {
    fn get(&mut self, root: &Path, part: &str) -> Result<Option<&[ConfigSummary]>> {
        if !self.parts.contains_key(part) {
            let dir = root.join(part);
            let summaries = if dir.is_dir() {
                let (runs, _skipped) = results::discover(&dir)?;
                Some(summary::summarise(&runs))
            } else {
                None
            };
            self.parts.insert(part.to_owned(), summaries);
        }
        Ok(self.parts[part].as_deref())
    }

    /// A part `get` found.
    fn loaded(&self, part: &str) -> &[ConfigSummary] {
        self.parts[part].as_deref().expect("a part get found")
    }
}

/// The part a plain ratio's `to` names, when not the check's.
fn to_bench(q: &Quantity) -> Option<&str> {
    match q {
        Quantity::Ratio { to, .. } => to.bench.as_deref(),
        _ => None,
    }
}

/// Evaluates every claim of `files` over the parts under `root`.
pub fn evaluate(root: &Path, files: &[ClaimsFile]) -> Result<Vec<ClaimResult>> {
    evaluate_with_prior(root, files, None)
}

/// As [`evaluate`], a check whose part is absent from `root` taking its
/// result from `prior` where that has it ([`super::prior`]).
pub fn evaluate_with_prior(
    root: &Path,
    files: &[ClaimsFile],
    prior: Option<&Prior>,
) -> Result<Vec<ClaimResult>> {
    let mut benches = Benches::default();
    let mut out = Vec::new();
    for file in files {
        for claim in &file.claims {
            let mut checks = Vec::new();
            for (index, check) in claim.checks.iter().enumerate() {
                let part = check.bench.as_deref().unwrap_or(&claim.bench);
                let to_part = to_bench(&check.quantity).unwrap_or(part);
                // Load both first: `get` borrows the cache mutably.
                let missing = [part, to_part]
                    .into_iter()
                    .map(|p| benches.get(root, p).map(|s| s.is_none().then_some(p)))
                    .collect::<Result<Vec<_>>>()?;
                checks.push(match missing.into_iter().flatten().next() {
                    Some(absent) => {
                        let here = not_run(
                            check,
                            part,
                            format!("no bench part {}", root.join(absent).display()),
                        );
                        prior
                            .and_then(|p| p.check(&file.paper, &claim.id, index, &here))
                            .unwrap_or(here)
                    }
                    None => {
                        evaluate_check(check, benches.loaded(part), benches.loaded(to_part), part)
                    }
                });
            }
            out.push(evaluate_claim(root, &file.paper, claim, checks));
        }
    }
    Ok(out)
}

fn evaluate_claim(
    root: &Path,
    paper: &str,
    claim: &Claim,
    checks: Vec<CheckResult>,
) -> ClaimResult {
    let verdict = checks
        .iter()
        .map(|c| c.verdict)
        .max()
        .unwrap_or(Verdict::NotRun);
    let close = checks.iter().any(|c| c.close && c.verdict == verdict);
    let plot = claim.plot.as_ref().and_then(|p| {
        let rel: PathBuf = Path::new(&claim.bench).join(p);
        root.join(&rel)
            .exists()
            .then(|| rel.to_string_lossy().into_owned())
    });
    ClaimResult {
        paper: paper.to_owned(),
        id: claim.id.clone(),
        section: claim.section.clone(),
        statement: claim.statement.clone(),
        paper_figure: claim.paper_figure.clone(),
        bench: claim.bench.clone(),
        note: claim.note.clone(),
        ours: claim.ours,
        plot,
        checks,
        verdict,
        close,
    }
}

fn not_run(check: &Check, bench: &str, reason: String) -> CheckResult {
    let mut quantity = describe(&check.quantity);
    if check.across == Across::Means {
        quantity.push_str(", means over traces");
    }
    if !check.traces.is_empty() {
        quantity.push_str(&format!(" on {}", check.traces.join(", ")));
    }
    CheckResult {
        quantity,
        bound: check.bound_text(),
        value: None,
        per_trace: Vec::new(),
        paper: check.paper.as_ref().and_then(|p| p.figure()),
        magnitude: None,
        components: None,
        spread: None,
        reps: 0,
        close: false,
        within: false,
        bench: bench.to_owned(),
        verdict: Verdict::NotRun,
        reason: Some(reason),
        from: None,
    }
}

/// A check over a part: its figure from the repetitions' means, then from
/// each repetition alone for the spread, and the verdict with the
/// repetitions taken into account (module comment).
/// `to_summaries` is `to`'s part (`summaries` itself unless `to` names
/// another).
fn evaluate_check(
    check: &Check,
    summaries: &[ConfigSummary],
    to_summaries: &[ConfigSummary],
    bench: &str,
) -> CheckResult {
    let mut result = compute(check, summaries, to_summaries, bench);
    let Some(value) = result.value else {
        return result;
    };
    if !matches!(result.verdict, Verdict::Holds | Verdict::Differs) {
        return result;
    }
    // Each selector over its own part (the same one unless `to` names another).
    let read: Vec<&ConfigSummary> = selectors(&check.quantity)
        .into_iter()
        .flat_map(|sel| {
            let part = if sel.bench.is_some() {
                to_summaries
            } else {
                summaries
            };
            part.iter()
                .filter(|s| reads_trace(check, &s.trace) && matches(s, sel))
        })
        .collect();
    result.reps = read.iter().map(|s| s.reps).min().unwrap_or(0);
    let most = read.iter().map(|s| s.reps).max().unwrap_or(0);
    let by_rep: Vec<f64> = (0..most)
        .filter_map(|k| {
            let alone: Vec<ConfigSummary> = summaries.iter().map(|s| s.repetition(k)).collect();
            let to_alone: Vec<ConfigSummary> =
                to_summaries.iter().map(|s| s.repetition(k)).collect();
            compute(check, &alone, &to_alone, bench).value
        })
        .collect();
    if let (Some(lo), Some(hi)) = (
        by_rep.iter().copied().reduce(f64::min),
        by_rep.iter().copied().reduce(f64::max),
    ) {
        result.spread = Some((lo, hi));
        result.close = check.holds(lo) != check.holds(hi);
    }
    let near = [check.at_least, check.at_most]
        .into_iter()
        .flatten()
        .any(|b| (value - b).abs() <= NEAR_BOUND * b.abs());
    if result.verdict == Verdict::Holds
        && result
            .magnitude
            .is_some_and(|m| !(1.0 / MAGNITUDE_FACTOR..=MAGNITUDE_FACTOR).contains(&m))
    {
        result.verdict = Verdict::HoldsMagnitudeDiffers;
    }
    if near && result.reps < SETTLING_REPS {
        result.verdict = Verdict::Unsettled;
        result.reason = Some(format!(
            "within {:.0} % of its bound on {} repetition{}: needs {SETTLING_REPS} before it is called",
            NEAR_BOUND * 100.0,
            result.reps,
            if result.reps == 1 { "" } else { "s" }
        ));
    }
    result
}

/// The selectors a quantity reads.
fn selectors(q: &Quantity) -> Vec<&Selector> {
    match q {
        Quantity::Value { of, .. }
        | Quantity::Spread { of, .. }
        | Quantity::Growth { of, .. }
        | Quantity::Tracking { of, .. } => vec![of],
        Quantity::Ratio { of, to, .. } | Quantity::Interp { of, to, .. } => vec![of, to],
    }
}

fn reads_trace(check: &Check, trace: &str) -> bool {
    check.traces.is_empty() || check.traces.iter().any(|t| t == trace)
}

/// A check's figure over one view of the part (the means, or one
/// repetition), with the verdict its value gives; the traces are the
/// check's part's, `to`'s configurations on each come from `to_summaries`.
fn compute(
    check: &Check,
    summaries: &[ConfigSummary],
    to_summaries: &[ConfigSummary],
    bench: &str,
) -> CheckResult {
    let mut base = not_run(check, bench, String::new());
    let mut traces: Vec<&str> = summaries.iter().map(|s| s.trace.as_str()).collect();
    traces.dedup();
    traces.retain(|t| reads_trace(check, t));
    if traces.is_empty() {
        base.reason = Some(if check.traces.is_empty() {
            format!("in {bench}: no finished runs")
        } else {
            format!(
                "in {bench}: none of the traces {} ran",
                check.traces.join(", ")
            )
        });
        return base;
    }
    let mut samples: Vec<(String, f64)> = Vec::new();
    // Each trace's (of, to) behind its ratio, for `across = "means"`.
    let mut parts: Vec<(f64, f64)> = Vec::new();
    let mut misses: Vec<(String, Miss)> = Vec::new();
    for trace in traces {
        let on_trace: Vec<&ConfigSummary> = summaries.iter().filter(|s| s.trace == trace).collect();
        let to_trace: Vec<&ConfigSummary> =
            to_summaries.iter().filter(|s| s.trace == trace).collect();
        let plain = matches!(check.quantity, Quantity::Ratio { pair: None, .. });
        let got = per_trace(&check.quantity, &on_trace, &to_trace).and_then(|values| {
            if plain {
                parts.push(ratio_parts(&check.quantity, &on_trace, &to_trace)?);
            }
            Ok(values)
        });
        match got {
            Ok(values) => samples.extend(values.into_iter().map(|v| (trace.to_owned(), v))),
            Err(miss) => misses.push((trace.to_owned(), miss)),
        }
    }
    let first = |pick: fn(&Miss) -> Option<&String>| {
        misses
            .iter()
            .find_map(|(t, m)| pick(m).map(|r| format!("{t}: {r}")))
    };
    if let Some(r) = first(|m| match m {
        Miss::Ambiguous(r) => Some(r),
        _ => None,
    }) {
        base.verdict = Verdict::Error;
        base.reason = Some(r);
        return base;
    }
    let undefined = first(|m| match m {
        Miss::Undefined(r) => Some(r),
        _ => None,
    });
    base.per_trace = samples.clone();
    if samples.is_empty() {
        if let Some(r) = undefined {
            base.verdict = Verdict::Differs;
            base.reason = Some(r);
        } else {
            base.reason = Some(format!(
                "in {bench}: {}",
                first(|m| match m {
                    Miss::Absent(r) => Some(r),
                    _ => None,
                })
                .unwrap_or_else(|| "no finished runs".into())
            ));
        }
        return base;
    }
    let values = samples.iter().map(|(_, v)| *v);
    let value = match check.across {
        Across::Mean => summary_mean(values),
        Across::Min => values.fold(f64::INFINITY, f64::min),
        Across::Max => values.fold(f64::NEG_INFINITY, f64::max),
        // Over the same traces as the per-trace ratios, so the means' ratio
        // is the sums' ratio; `ratio` refused a zero denominator per trace.
        Across::Means => {
            parts.iter().map(|p| p.0).sum::<f64>() / parts.iter().map(|p| p.1).sum::<f64>()
        }
    };
    base.value = Some(value);
    base.within = check.holds(value);
    base.magnitude = base.paper.filter(|p| *p != 0.0).map(|p| value / p);
    if !parts.is_empty() {
        let n = parts.len() as f64;
        base.components = Some((
            parts.iter().map(|p| p.0).sum::<f64>() / n,
            parts.iter().map(|p| p.1).sum::<f64>() / n,
        ));
    }
    base.verdict = if undefined.is_some() {
        // Defined on some traces only: the claim cannot hold everywhere.
        base.reason = undefined;
        Verdict::Differs
    } else if check.holds(value) {
        base.reason = None;
        Verdict::Holds
    } else {
        base.reason = None;
        Verdict::Differs
    };
    base
}
