// SPDX-License-Identifier: GPL-2.0-only
//! The claims file format (`claims/<paper>.toml`, documented in
//! `claims/README.md`): each claim of a paper as data — where in the paper,
//! the statement, the paper's figure, the bench part that tests it, and one or
//! more checks, each a quantity computed from that bench's results with a
//! bound. Parsing is typed: an unknown field, metric, quantity kind or a check
//! without a bound is refused with the file and line (toml's span), and so
//! is a bound that breaks the format's rule for the paper's own ratio
//! ([`rule_bound`]) or a paper claim without the paper's figure.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::summary::METRICS;

/// One paper's claims file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimsFile {
    /// Short key, the file's stem by convention: `c2tcp`, `sprout`, `natcp`, `dfcsd`.
    pub paper: String,
    /// The paper as cited: authors, title, venue.
    pub title: String,
    #[serde(rename = "claim")]
    pub claims: Vec<Claim>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Unique within the file: `table1-cubic-delay`.
    pub id: String,
    /// Where in the paper: `§VII-D, Table I`.
    pub section: String,
    /// What the paper says, in a sentence.
    pub statement: String,
    /// The paper's figure as printed (`8.95×`, `≈ 10 ms`), or its words
    /// where it prints none (`the lowest`); required of a paper's claim.
    #[serde(default)]
    pub paper_figure: Option<String>,
    /// Our question, not the paper's (a set-up it did not test, a number
    /// it does not print): tallied apart from the paper's claims, and needs
    /// no paper figure.
    #[serde(default)]
    pub ours: bool,
    /// The bench part that tests it: a directory under the bench root
    /// (`scripts/bench.sh`'s part names: `table1`, `target-sweep`, ...).
    /// A check may read another part (`Check::bench`).
    pub bench: String,
    /// The plot that shows it, relative to the bench part's directory.
    #[serde(default)]
    pub plot: Option<String>,
    /// Why ours may differ from the paper's (set-up, scheme), in a sentence.
    #[serde(default)]
    pub note: Option<String>,
    /// All must hold for the claim to hold.
    #[serde(rename = "check")]
    pub checks: Vec<Check>,
}

/// A metric of `metrics.json`'s aggregate, as `report::summary::METRICS`
/// names it, or `fct_s:<flow>`: the mean completion time of the sized flows
/// so labelled (DFCSD's short and long flows).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Metric(pub String);

impl TryFrom<String> for Metric {
    type Error = String;
    fn try_from(key: String) -> Result<Self, String> {
        let fct_flow = key.strip_prefix(FCT_PREFIX).is_some_and(|f| !f.is_empty());
        if fct_flow || METRICS.iter().any(|m| m.key == key) {
            Ok(Metric(key))
        } else {
            let known: Vec<&str> = METRICS.iter().map(|m| m.key).collect();
            Err(format!(
                "unknown metric {key:?}; known: {}",
                known.join(", ")
            ))
        }
    }
}

/// The prefix of a flow's completion time metric.
pub const FCT_PREFIX: &str = "fct_s:";

impl From<Metric> for String {
    fn from(m: Metric) -> String {
        m.0
    }
}

/// Which configurations of a bench a quantity reads: one scheme, optionally
/// narrowed to a label, to parameter values, or to one trace.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Selector {
    pub scheme: String,
    /// The run's label exactly (`variant=jsac`); `""` selects unlabelled runs.
    #[serde(default)]
    pub label: Option<String>,
    /// Parameter values the run must have (`{ target_ms = 50 }`).
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    /// One trace only (default: every trace the bench ran).
    #[serde(default)]
    pub trace: Option<String>,
    /// One flow of a multi-flow run, by its name in metrics.json's `flows`
    /// (the scenario's flow label: `call-down`): that flow's metrics
    /// instead of the run's aggregate.
    #[serde(default)]
    pub flow: Option<String>,
    /// `to` of a plain ratio only: the bench part this side reads, when not
    /// the check's (Sprout §5.7: a flow through SproutTunnel ÷ the same
    /// flow direct, two parts run apart). Traces pair by name.
    #[serde(default)]
    pub bench: Option<String>,
}

/// How per-trace values become the one figure a check bounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Across {
    /// Mean over traces (Table I's "averaged across all traces").
    #[default]
    Mean,
    /// The smallest: an `at_least` bound then holds on every trace.
    Min,
    /// The largest: an `at_most` bound then holds on every trace.
    Max,
    /// For a ratio only: the mean over traces of `of`'s metric ÷ the mean
    /// of `to`'s (Sprout's "delay reduction (from avg. delay)"), where
    /// `mean` averages the per-trace ratios.
    Means,
}

/// What a check computes on each trace, from the configurations' means over
/// repetitions.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "what", rename_all = "lowercase")]
pub enum Quantity {
    /// `metric` of `of`.
    Value { metric: Metric, of: Selector },
    /// `metric` of `of` ÷ `metric` of `to`; with `pair`, configurations are
    /// paired by that parameter's value (Cubic and C2TCP at equal buffers)
    /// and every pair is one sample.
    Ratio {
        metric: Metric,
        of: Selector,
        to: Selector,
        pair: Option<String>,
    },
    /// Largest ÷ smallest `metric` among `of`'s configurations (a sweep).
    Spread { metric: Metric, of: Selector },
    /// `metric` at `of`'s largest value of parameter `over` ÷ at its smallest.
    Growth {
        metric: Metric,
        of: Selector,
        over: String,
    },
    /// `of`'s configurations as a curve of `metric` against `x_metric`
    /// (points ordered by x), read at `to`'s `x_metric` by linear
    /// interpolation, ÷ `to`'s `metric`. Undefined when `to`'s x lies
    /// outside the curve (the curve does not reach that point).
    Interp {
        metric: Metric,
        x_metric: Metric,
        of: Selector,
        to: Selector,
    },
    /// Mean over `of`'s configurations of |`metric` − `over`| ÷ `over`,
    /// `over` being the parameter the metric should track (`target_ms`).
    Tracking {
        metric: Metric,
        of: Selector,
        over: String,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct Check {
    #[serde(flatten)]
    pub quantity: Quantity,
    pub across: Across,
    pub at_least: Option<f64>,
    pub at_most: Option<f64>,
    /// What the paper gives for this quantity: its figure (a ratio it
    /// prints, whose bounds must follow the format's rule, [`rule_bound`];
    /// or, for a value, an absolute figure the bounds admit) or its words
    /// ("the lowest"). Required of a paper's claim.
    pub paper: Option<PaperFigure>,
    /// The bench part this check reads, when not its claim's.
    pub bench: Option<String>,
    /// The traces it reads (default: every trace the part ran).
    pub traces: Vec<String>,
}

/// A check as written; `Check::try_from` gives it its type, so a misfit is a
/// parse error at the check's line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    what: Kind,
    metric: Metric,
    of: Selector,
    #[serde(default)]
    to: Option<Selector>,
    #[serde(default)]
    over: Option<String>,
    #[serde(default)]
    pair: Option<String>,
    #[serde(default)]
    x_metric: Option<Metric>,
    #[serde(default)]
    across: Across,
    #[serde(default)]
    at_least: Option<f64>,
    #[serde(default)]
    at_most: Option<f64>,
    #[serde(default)]
    paper: Option<PaperFigure>,
    #[serde(default)]
    bench: Option<String>,
    #[serde(default)]
    traces: Vec<String>,
}

/// A check's `paper`: the paper's figure for the quantity, or its words
/// where it prints none.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum PaperFigure {
    Figure(f64),
    Words(String),
}

impl PaperFigure {
    /// The figure, when the paper prints one.
    pub fn figure(&self) -> Option<f64> {
        match self {
            PaperFigure::Figure(f) => Some(*f),
            PaperFigure::Words(_) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Value,
    Ratio,
    Spread,
    Growth,
    Interp,
    Tracking,
}

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawCheck::deserialize(d)?;
        Check::try_from(raw).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<RawCheck> for Check {
    type Error = String;
    fn try_from(r: RawCheck) -> Result<Self, String> {
        let name = format!("{:?}", r.what).to_lowercase();
        let need_to = |to: Option<Selector>| to.ok_or(format!("what = \"{name}\" needs `to`"));
        let need_over = |over: Option<String>| {
            over.ok_or(format!("what = \"{name}\" needs `over` (a parameter)"))
        };
        let refuse = |field: &str, present: bool| {
            if present {
                Err(format!("what = \"{name}\" takes no `{field}`"))
            } else {
                Ok(())
            }
        };
        let metric_name = r.metric.0.clone();
        if r.of.bench.is_some() {
            return Err(
                "`of` takes no `bench`: the check's `bench` (or its claim's) is the part `of` reads"
                    .into(),
            );
        }
        let quantity = match r.what {
            Kind::Value | Kind::Spread => {
                refuse("to", r.to.is_some())?;
                refuse("over", r.over.is_some())?;
                refuse("pair", r.pair.is_some())?;
                refuse("x_metric", r.x_metric.is_some())?;
                if matches!(r.what, Kind::Value) {
                    Quantity::Value {
                        metric: r.metric,
                        of: r.of,
                    }
                } else {
                    Quantity::Spread {
                        metric: r.metric,
                        of: r.of,
                    }
                }
            }
            Kind::Ratio => {
                refuse("over", r.over.is_some())?;
                refuse("x_metric", r.x_metric.is_some())?;
                Quantity::Ratio {
                    metric: r.metric,
                    of: r.of,
                    to: need_to(r.to)?,
                    pair: r.pair,
                }
            }
            Kind::Growth | Kind::Tracking => {
                refuse("to", r.to.is_some())?;
                refuse("pair", r.pair.is_some())?;
                refuse("x_metric", r.x_metric.is_some())?;
                let over = need_over(r.over)?;
                if matches!(r.what, Kind::Growth) {
                    Quantity::Growth {
                        metric: r.metric,
                        of: r.of,
                        over,
                    }
                } else {
                    Quantity::Tracking {
                        metric: r.metric,
                        of: r.of,
                        over,
                    }
                }
            }
            Kind::Interp => {
                refuse("over", r.over.is_some())?;
                refuse("pair", r.pair.is_some())?;
                Quantity::Interp {
                    metric: r.metric,
                    x_metric: r
                        .x_metric
                        .ok_or("what = \"interp\" needs `x_metric` (the curve's x axis)")?,
                    of: r.of,
                    to: need_to(r.to)?,
                }
            }
        };
        let plain_ratio = matches!(quantity, Quantity::Ratio { pair: None, .. });
        if let Some(to) = quantity_to(&quantity) {
            if let Some(b) = &to.bench {
                if !plain_ratio {
                    return Err(format!(
                        "`to`'s bench {b:?}: only a plain ratio (what = \"ratio\" without `pair`) reads its two sides from two parts"
                    ));
                }
                part_path(b)?;
            }
        }
        for sel in [Some(quantity_of(&quantity)), quantity_to(&quantity)]
            .into_iter()
            .flatten()
        {
            if sel.flow.as_deref().is_some_and(|f| f.trim().is_empty()) {
                return Err("flow = \"\": name a flow of metrics.json's `flows`".into());
            }
            if sel.flow.is_some() && metric_name.starts_with(FCT_PREFIX) {
                return Err(format!(
                    "{metric_name}: a completion time names its flow already; `flow` takes another metric"
                ));
            }
        }
        if r.across == Across::Means && !plain_ratio {
            return Err(
                "across = \"means\" (ratio of the means) needs what = \"ratio\" without `pair`"
                    .into(),
            );
        }
        if r.at_least.is_none() && r.at_most.is_none() {
            return Err("a check needs a bound: `at_least`, `at_most` or both".into());
        }
        if let (Some(lo), Some(hi)) = (r.at_least, r.at_most) {
            if lo > hi {
                return Err(format!("at_least {lo} is above at_most {hi}"));
            }
        }
        match &r.paper {
            // A ratio's figure bounds it by the rule; an absolute figure (a
            // value, a tracking error, a sweep's spread) only needs bounds
            // that admit it.
            Some(PaperFigure::Figure(p)) => match quantity {
                Quantity::Ratio { .. } | Quantity::Interp { .. } | Quantity::Growth { .. } => {
                    follows_rule(*p, r.at_least, r.at_most)?
                }
                _ => admits(*p, r.at_least, r.at_most)?,
            },
            Some(PaperFigure::Words(w)) if w.trim().is_empty() => {
                return Err("paper = \"\": give the paper's figure or its words".into())
            }
            _ => {}
        }
        if let Some(b) = &r.bench {
            part_path(b)?;
        }
        Ok(Check {
            quantity,
            across: r.across,
            at_least: r.at_least,
            at_most: r.at_most,
            paper: r.paper,
            bench: r.bench,
            traces: r.traces,
        })
    }
}

/// The bound the format's rule gives a ratio the paper prints, `paper`
/// (claims/README.md, "Bounds"), in the direction the claim states:
///
/// - above 1 (`at_least`): half the paper's figure, and never less than
///   its square root, the point halfway between parity and the paper's
///   figure on a log scale. A ratio above 1 is so always checked above 1,
///   and a "2× lower" cannot hold at "equal" (√2 = 1.41).
/// - below 1 stated as "lower" (`at_most`): the mirror, twice the paper's
///   figure and never more than its square root.
/// - at or below 1 stated as a share (`at_least`, "0.91× Cubic's
///   throughput"): half the paper's figure.
pub fn rule_bound(paper: f64, at_least: bool) -> f64 {
    match (at_least, paper > 1.0) {
        (true, true) => f64::max(paper / 2.0, paper.sqrt()),
        (true, false) => paper / 2.0,
        (false, _) => f64::min(paper * 2.0, paper.sqrt()),
    }
}

/// Bounds written to three decimals pass the rule within this.
const RULE_ROUNDING: f64 = 0.0005;

/// An absolute figure of the paper must lie within its check's bounds.
fn admits(paper: f64, at_least: Option<f64>, at_most: Option<f64>) -> Result<(), String> {
    if !paper.is_finite() {
        return Err(format!(
            "paper = {paper}: the paper's figure must be a number"
        ));
    }
    if at_least.is_some_and(|lo| lo > paper) || at_most.is_some_and(|hi| hi < paper) {
        return Err(format!(
            "the paper's own figure {paper} is outside the bounds: a bound comes from the paper's figure and must admit it"
        ));
    }
    Ok(())
}

/// A check that gives the paper's figure bounds it by the rule: the paper's
/// figure itself within the bounds, and the bound on its side of 1 at least
/// as far from parity as `rule_bound` says.
fn follows_rule(paper: f64, at_least: Option<f64>, at_most: Option<f64>) -> Result<(), String> {
    if !(paper.is_finite() && paper > 0.0) {
        return Err(format!(
            "paper = {paper}: the paper's ratio must be a positive number"
        ));
    }
    if at_least.is_some_and(|lo| lo > paper) || at_most.is_some_and(|hi| hi < paper) {
        return Err(format!(
            "the paper's own figure {paper} is outside the bounds: a bound comes from the paper's figure and must admit it"
        ));
    }
    if paper > 1.0 {
        let Some(lo) = at_least else {
            return Err(format!(
                "the paper's ratio {paper} is above 1: it needs `at_least` (at least {:.3}, claims/README.md \"Bounds\"); \
                 an `at_most` alone is on the wrong side of 1",
                rule_bound(paper, true)
            ));
        };
        let want = rule_bound(paper, true);
        if lo <= 1.0 || lo < want - RULE_ROUNDING {
            return Err(format!(
                "at_least = {lo} for a paper ratio of {paper}: a ratio above 1 is checked at max(half, square root) = {want:.3} \
                 (claims/README.md \"Bounds\"){}",
                if lo <= 1.0 { ", never at 1 or below (it would hold at parity)" } else { "" }
            ));
        }
    } else {
        if let Some(lo) = at_least {
            let want = rule_bound(paper, true);
            if lo < want - RULE_ROUNDING {
                return Err(format!(
                    "at_least = {lo} for a paper ratio of {paper}: below half the paper's figure ({want:.3})"
                ));
            }
        }
        if let Some(hi) = at_most {
            let want = rule_bound(paper, false);
            if hi >= 1.0 || hi > want + RULE_ROUNDING {
                return Err(format!(
                    "at_most = {hi} for a paper ratio of {paper}: a ratio below 1 stated as lower is checked at min(twice, square root) = {want:.3} \
                     (claims/README.md \"Bounds\")"
                ));
            }
        }
    }
    Ok(())
}

/// A quantity's `of`.
fn quantity_of(q: &Quantity) -> &Selector {
    match q {
        Quantity::Value { of, .. }
        | Quantity::Ratio { of, .. }
        | Quantity::Spread { of, .. }
        | Quantity::Growth { of, .. }
        | Quantity::Interp { of, .. }
        | Quantity::Tracking { of, .. } => of,
    }
}

/// A quantity's `to`, where it has one.
fn quantity_to(q: &Quantity) -> Option<&Selector> {
    match q {
        Quantity::Ratio { to, .. } | Quantity::Interp { to, .. } => Some(to),
        _ => None,
    }
}

/// A bench part must be a directory under the bench root.
fn part_path(bench: &str) -> Result<(), String> {
    let inside = Path::new(bench)
        .components()
        .all(|p| matches!(p, std::path::Component::Normal(_)));
    if bench.is_empty() || !inside {
        return Err(format!(
            "bench {bench:?} must be a directory under the bench root (relative, no ..)"
        ));
    }
    Ok(())
}

impl Check {
    /// The bound as a reader sees it: `≥ 3`, `≤ 1.5`, `in [0.8, 1.2]`.
    pub fn bound_text(&self) -> String {
        match (self.at_least, self.at_most) {
            (Some(lo), Some(hi)) => format!("in [{lo}, {hi}]"),
            (Some(lo), None) => format!("≥ {lo}"),
            (None, Some(hi)) => format!("≤ {hi}"),
            (None, None) => String::new(),
        }
    }

    pub fn holds(&self, value: f64) -> bool {
        self.at_least.is_none_or(|lo| value >= lo) && self.at_most.is_none_or(|hi| value <= hi)
    }
}

/// Parses a claims file; errors name the file and, through toml, the line.
pub fn parse(text: &str, origin: &Path) -> Result<ClaimsFile> {
    let file: ClaimsFile = toml::from_str(text)
        .with_context(|| format!("{}: not a valid claims file", origin.display()))?;
    let mut seen = BTreeMap::new();
    for (i, c) in file.claims.iter().enumerate() {
        if let Some(first) = seen.insert(c.id.as_str(), i) {
            bail!(
                "{}: claim id {:?} used twice (claims {} and {})",
                origin.display(),
                c.id,
                first + 1,
                i + 1
            );
        }
        if c.checks.is_empty() {
            bail!(
                "{}: claim {:?} has no [[claim.check]]: nothing would test it",
                origin.display(),
                c.id
            );
        }
        if let Err(e) = part_path(&c.bench) {
            bail!("{}: claim {:?}: {e}", origin.display(), c.id);
        }
        let figure = c.paper_figure.as_deref().map(str::trim).unwrap_or("");
        if !c.ours && figure.is_empty() {
            bail!(
                "{}: claim {:?} gives no paper_figure: a paper's claim says what the paper prints (a number, or its words, \
                 e.g. \"the lowest\"); a claim that is not the paper's says `ours = true`",
                origin.display(),
                c.id
            );
        }
        if let Some(k) = c
            .checks
            .iter()
            .position(|k| k.paper.is_none())
            .filter(|_| !c.ours)
        {
            let line = check_line(text, &c.id, k)
                .map(|l| format!(", line {l}"))
                .unwrap_or_default();
            bail!(
                "{}{line}: claim {:?}, check {}: a paper's claim checks what the paper gives: say it with `paper = ` \
                 (its figure for the quantity, or its words, e.g. \"the lowest\"; claims/README.md, Bounds)",
                origin.display(),
                c.id,
                k + 1
            );
        }
    }
    Ok(file)
}

/// The line (1-based) of claim `id`'s check number `k` (0-based) in the
/// file's text: the `k`-th `[[claim.check]]` after the claim's `id` line.
fn check_line(text: &str, id: &str, k: usize) -> Option<usize> {
    let id_line = format!("id = {}", toml::Value::String(id.to_owned()));
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&id_line))?;
    lines[start..]
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim() == "[[claim.check]]")
        .nth(k)
        .map(|(i, _)| start + i + 1)
}

pub fn load(path: &Path) -> Result<ClaimsFile> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse(&text, path)
}

/// Every `*.toml` of a directory, or the one file given, in name order.
pub fn load_all(path: &Path) -> Result<Vec<ClaimsFile>> {
    if !path.is_dir() {
        return Ok(vec![load(path)?]);
    }
    let mut files: Vec<_> = std::fs::read_dir(path)
        .with_context(|| format!("reading {}", path.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("reading {}", path.display()))?;
    files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    if files.is_empty() {
        bail!("{}: no claims files (*.toml)", path.display());
    }
    files.iter().map(|p| load(p)).collect()
}
