// SPDX-License-Identifier: GPL-2.0-only
//! A check's quantity on one trace's configurations (`eval.rs` reduces
//! them across traces and gives the verdict): the configurations its
//! selectors pick (exactly one where one is needed), the metric read from
//! each, and the value (a value, a ratio, paired ratios, a spread, a
//! growth, a curve read at a point, a tracking error); why a trace gives
//! none ([`Miss`]); and a quantity and a selector in words.
use super::spec::{Metric, Quantity, Selector, FCT_PREFIX};
use crate::summary::ConfigSummary;

/// Why a trace gives no sample.
pub(super) enum Miss {
    /// A side has no runs (or the metric is undefined in them).
    Absent(String),
    /// The runs exist but the quantity is undefined there.
    Undefined(String),
    /// The claim is ambiguous against these runs.
    Ambiguous(String),
}

/// A plain ratio's numerator and denominator on one trace (its per-trace
/// value, and what `across = "means"` sums; the parse allows `means` on
/// nothing else). `to_trace` is the same trace's configurations in `to`'s
/// part (`on_trace` itself unless `to` names another part).
pub(super) fn ratio_parts(
    q: &Quantity,
    on_trace: &[&ConfigSummary],
    to_trace: &[&ConfigSummary],
) -> Result<(f64, f64), Miss> {
    match q {
        Quantity::Ratio {
            metric,
            of,
            to,
            pair: None,
        } => Ok((
            get(one(on_trace, of)?, of, metric)?,
            get(one(to_trace, to)?, to, metric)?,
        )),
        _ => unreachable!("only a plain ratio has parts; the parse allows `means` on nothing else"),
    }
}

/// The sample(s) a quantity gives on one trace; `to_trace` as for
/// [`ratio_parts`] (only a plain ratio reads it).
pub(super) fn per_trace(
    q: &Quantity,
    on_trace: &[&ConfigSummary],
    to_trace: &[&ConfigSummary],
) -> Result<Vec<f64>, Miss> {
    match q {
        Quantity::Value { metric, of } => Ok(vec![get(one(on_trace, of)?, of, metric)?]),
        Quantity::Ratio { pair: None, .. } => {
            let (a, b) = ratio_parts(q, on_trace, to_trace)?;
            Ok(vec![ratio(a, b)?])
        }
        Quantity::Ratio {
            metric,
            of,
            to,
            pair: Some(param),
        } => {
            let tos = all(on_trace, to)?;
            let mut out = Vec::new();
            for a in all(on_trace, of)? {
                let key = number(a, param)?;
                let partners: Vec<_> = tos
                    .iter()
                    .filter(|b| number(b, param).ok() == Some(key))
                    .collect();
                match partners[..] {
                    [] => {}
                    [b] => out.push(ratio(get(a, of, metric)?, get(b, to, metric)?)?),
                    _ => return Err(ambiguous(to, partners.len())),
                }
            }
            if out.is_empty() {
                return Err(Miss::Absent(format!(
                    "no {} with a {} of {} to pair with",
                    to.scheme, param, of.scheme
                )));
            }
            Ok(out)
        }
        Quantity::Spread { metric, of } => {
            let values = all(on_trace, of)?
                .iter()
                .map(|c| get(c, of, metric))
                .collect::<Result<Vec<_>, _>>()?;
            if values.len() < 2 {
                return Err(Miss::Absent(format!(
                    "{} ran with one configuration only",
                    of.scheme
                )));
            }
            let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            Ok(vec![ratio(hi, lo)?])
        }
        Quantity::Growth { metric, of, over } => {
            let pts = curve(on_trace, of, |c| number(c, over), metric)?;
            Ok(vec![ratio(pts[pts.len() - 1].1, pts[0].1)?])
        }
        Quantity::Tracking { metric, of, over } => {
            let pts = curve(on_trace, of, |c| number(c, over), metric)?;
            let errors = pts.iter().map(|(p, v)| (v - p).abs() / p);
            Ok(vec![summary_mean(errors)])
        }
        Quantity::Interp {
            metric,
            x_metric,
            of,
            to,
        } => {
            let pts = curve(on_trace, of, |c| get(c, of, x_metric), metric)?;
            let point = one(on_trace, to)?;
            let (x0, y0) = (get(point, to, x_metric)?, get(point, to, metric)?);
            let (lo, hi) = (pts[0].0, pts[pts.len() - 1].0);
            if x0 < lo || x0 > hi {
                return Err(Miss::Undefined(format!(
                    "{}'s {} {x0:.1} lies outside {}'s curve [{lo:.1}, {hi:.1}]",
                    to.scheme, x_metric.0, of.scheme
                )));
            }
            let i = pts.iter().position(|p| p.0 >= x0).unwrap_or(pts.len() - 1);
            let y = if i == 0 || pts[i].0 == pts[i - 1].0 {
                pts[i].1
            } else {
                let (a, b) = (pts[i - 1], pts[i]);
                a.1 + (b.1 - a.1) * (x0 - a.0) / (b.0 - a.0)
            };
            Ok(vec![ratio(y, y0)?])
        }
    }
}

/// `of`'s configurations as (x, metric) points ordered by x; two at least.
fn curve(
    on_trace: &[&ConfigSummary],
    of: &Selector,
    x: impl Fn(&ConfigSummary) -> Result<f64, Miss>,
    metric: &Metric,
) -> Result<Vec<(f64, f64)>, Miss> {
    let mut pts = all(on_trace, of)?
        .iter()
        .map(|c| Ok((x(c)?, get(c, of, metric)?)))
        .collect::<Result<Vec<_>, Miss>>()?;
    if pts.len() < 2 {
        return Err(Miss::Absent(format!(
            "{} ran with one configuration only",
            of.scheme
        )));
    }
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(pts)
}

fn ratio(a: f64, b: f64) -> Result<f64, Miss> {
    if b == 0.0 || !a.is_finite() || !b.is_finite() {
        return Err(Miss::Undefined(format!("ratio {a} ÷ {b} undefined")));
    }
    Ok(a / b)
}

/// `metric` of configuration `c`, picked by `sel`: of its aggregate, or
/// of the flow `sel` names.
fn get(c: &ConfigSummary, sel: &Selector, metric: &Metric) -> Result<f64, Miss> {
    let value = match (metric.0.strip_prefix(FCT_PREFIX), &sel.flow) {
        (Some(flow), _) => c.fct_s.get(flow).copied(),
        (None, Some(flow)) => {
            let Some(of_flow) = c.flows.get(flow) else {
                return Err(Miss::Absent(format!(
                    "{} has no flow {flow:?} in its metrics.json",
                    c.config.name()
                )));
            };
            of_flow.get(&metric.0).copied().flatten()
        }
        (None, None) => c.means.get(&metric.0).copied().flatten(),
    };
    value.ok_or_else(|| Miss::Absent(format!("{} undefined for {}", metric.0, c.config.name())))
}

fn number(c: &ConfigSummary, param: &str) -> Result<f64, Miss> {
    c.params.get(param).and_then(|v| v.as_f64()).ok_or_else(|| {
        Miss::Ambiguous(format!(
            "{} has no numeric parameter {param}",
            c.config.name()
        ))
    })
}

pub(super) fn matches(c: &ConfigSummary, sel: &Selector) -> bool {
    c.config.scheme == sel.scheme
        && sel.label.as_ref().is_none_or(|l| *l == c.config.label)
        && sel.trace.as_ref().is_none_or(|t| *t == c.trace)
        && sel.params.iter().all(|(k, want)| {
            c.params
                .get(k)
                .is_some_and(|have| match (have.as_f64(), want.as_f64()) {
                    (Some(h), Some(w)) => h == w,
                    _ => have == want,
                })
        })
}

fn all<'a>(on_trace: &[&'a ConfigSummary], sel: &Selector) -> Result<Vec<&'a ConfigSummary>, Miss> {
    let found: Vec<_> = on_trace
        .iter()
        .copied()
        .filter(|c| matches(c, sel))
        .collect();
    if found.is_empty() {
        return Err(Miss::Absent(format!(
            "no finished runs of {}",
            selector_name(sel)
        )));
    }
    Ok(found)
}

fn one<'a>(on_trace: &[&'a ConfigSummary], sel: &Selector) -> Result<&'a ConfigSummary, Miss> {
    let found = all(on_trace, sel)?;
    match found[..] {
        [c] => Ok(c),
        _ => Err(ambiguous(sel, found.len())),
    }
}

fn ambiguous(sel: &Selector, n: usize) -> Miss {
    Miss::Ambiguous(format!(
        "{} matches {n} configurations where one is needed (narrow it with label or params)",
        selector_name(sel)
    ))
}

pub fn selector_name(sel: &Selector) -> String {
    let mut narrow: Vec<String> = Vec::new();
    if let Some(l) = &sel.label {
        narrow.push(if l.is_empty() {
            "unlabelled".into()
        } else {
            l.clone()
        });
    }
    narrow.extend(sel.params.iter().map(|(k, v)| format!("{k}={v}")));
    if let Some(t) = &sel.trace {
        narrow.push(t.clone());
    }
    if let Some(f) = &sel.flow {
        narrow.push(format!("flow {f}"));
    }
    if let Some(b) = &sel.bench {
        narrow.push(format!("in {b}"));
    }
    if narrow.is_empty() {
        sel.scheme.clone()
    } else {
        format!("{} [{}]", sel.scheme, narrow.join(", "))
    }
}

/// A quantity in words: `avg_queue_delay_ms: cubic ÷ c2tcp [variant=jsac]`.
pub fn describe(q: &Quantity) -> String {
    match q {
        Quantity::Value { metric, of } => format!("{} of {}", metric.0, selector_name(of)),
        Quantity::Ratio {
            metric,
            of,
            to,
            pair,
        } => format!(
            "{}: {} ÷ {}{}",
            metric.0,
            selector_name(of),
            selector_name(to),
            pair.as_ref()
                .map(|p| format!(" (paired by {p})"))
                .unwrap_or_default()
        ),
        Quantity::Spread { metric, of } => {
            format!("{}: max ÷ min over {}'s runs", metric.0, selector_name(of))
        }
        Quantity::Growth { metric, of, over } => format!(
            "{}: {} at largest ÷ smallest {over}",
            metric.0,
            selector_name(of)
        ),
        Quantity::Interp {
            metric,
            x_metric,
            of,
            to,
        } => format!(
            "{}: {}'s curve at {}'s {} ÷ {}'s",
            metric.0,
            selector_name(of),
            selector_name(to),
            x_metric.0,
            to.scheme
        ),
        Quantity::Tracking { metric, of, over } => format!(
            "{}: mean |value − {over}| ÷ {over} over {}'s runs",
            metric.0,
            selector_name(of)
        ),
    }
}

/// The mean of `values` (NaN when there are none).
pub(super) fn summary_mean(values: impl Iterator<Item = f64>) -> f64 {
    let (n, s) = values.fold((0usize, 0.0), |(n, s), v| (n + 1, s + v));
    s / n as f64
}
