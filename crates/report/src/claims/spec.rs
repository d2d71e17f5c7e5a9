// SPDX-License-Identifier: GPL-2.0-only
//! The claims file format (`claims/<paper>.toml`, documented in
//! `claims/README.md`): each claim of a paper as data — where in the paper,
//! the statement, the paper's figure, the bench part that tests it, and one or
//! more checks, each a quantity computed from that bench's results with a
//! bound. Parsing is typed: an unknown field, metric, quantity kind or a check
//! without a bound is refused with the file and line (toml's span).
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
    /// The paper's figure as printed (`8.95×`, `≈ 10 ms`), if it gives one.
    #[serde(default)]
    pub paper_figure: Option<String>,
    /// The bench part that tests it: a directory under the bench root
    /// (`scripts/bench.sh`'s part names: `table1`, `target-sweep`, ...).
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
        if r.across == Across::Means && !matches!(quantity, Quantity::Ratio { pair: None, .. }) {
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
        Ok(Check {
            quantity,
            across: r.across,
            at_least: r.at_least,
            at_most: r.at_most,
        })
    }
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
        let inside = Path::new(&c.bench)
            .components()
            .all(|p| matches!(p, std::path::Component::Normal(_)));
        if c.bench.is_empty() || !inside {
            bail!(
                "{}: claim {:?}: bench {:?} must be a directory under the bench root (relative, no ..)",
                origin.display(),
                c.id,
                c.bench
            );
        }
    }
    Ok(file)
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
