// SPDX-License-Identifier: GPL-2.0-only
//! Sweeps: a scenario's `[sweep]` table maps a key to the values `c2tcp
//! bench` runs it with, one run per value. A key names what it changes
//! ([`SweepKey`]): a link field (`queue`, `delay_ms`, `loss`, `downlink`), a
//! field of the flows with one label (`"short.size_bytes"`, `"short.count"`),
//! or a parameter of the flows whose scheme takes it (`target_ms`).
//!
//! This module is the sweep's logic over the flows' schemes as given;
//! `plan/` looks the schemes up (`Scenario::with_value`, `with_scheme`,
//! `set_param` in `plan/edit.rs`), and its check requires every value of a
//! table to make a valid scenario (`plan::CheckedScenario::check`).
use anyhow::{bail, Context, Result};

use crate::scenario::{Flow, Scenario};
use crate::scheme::Scheme;

/// Link fields a sweep can change (`downlink`: a trace or `constant:MBPS`).
pub const LINK_KEYS: &[&str] = &["queue", "delay_ms", "loss", "downlink"];
/// Fields of the flows with one label a sweep can change: their size, and
/// how many there are (the last one copied, or the first ones kept).
pub const FLOW_FIELDS: &[&str] = &["size_bytes", "count"];
/// Flows of one label a `count` sweep may ask for.
const MAX_COUNT: i64 = 64;

/// What a sweep key changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepKey<'a> {
    /// One of [`LINK_KEYS`].
    Link(&'a str),
    /// `<label>.<field>`: a field of every flow labelled `label`.
    Flows { label: &'a str, field: &'a str },
    /// A parameter of the flows whose scheme takes it.
    Param(&'a str),
}

impl<'a> SweepKey<'a> {
    pub fn of(key: &'a str) -> SweepKey<'a> {
        if let Some(k) = LINK_KEYS.iter().find(|k| **k == key) {
            return SweepKey::Link(k);
        }
        match key.rsplit_once('.') {
            Some((label, field)) => SweepKey::Flows { label, field },
            None => SweepKey::Param(key),
        }
    }
}

/// Checks that the sweep key `key` of `sc` names something a sweep can
/// change (`schemes`: each flow's, in order).
pub(crate) fn check_key(
    sc: &Scenario,
    key: &str,
    values: &[toml::Value],
    schemes: &[Scheme],
) -> Result<()> {
    if values.is_empty() {
        bail!("sweep.{key}: give at least one value");
    }
    match SweepKey::of(key) {
        SweepKey::Link(_) => {}
        SweepKey::Flows { label, field } => {
            if !FLOW_FIELDS.contains(&field) {
                bail!(
                    "sweep.{key}: `{field}` is not a flow field that can be swept ({})",
                    FLOW_FIELDS.join(", ")
                );
            }
            if !sc.flows.iter().any(|f| f.label.as_deref() == Some(label)) {
                let labels: Vec<&str> =
                    sc.flows.iter().filter_map(|f| f.label.as_deref()).collect();
                bail!(
                    "sweep.{key}: no flow is labelled `{label}` (labels: {})",
                    labels.join(", ")
                );
            }
        }
        SweepKey::Param(_) => {
            if !schemes.iter().any(|s| s.takes(key)) {
                bail!(
                    "sweep.{key}: neither a link field ({}), a flow field (<label>.{}) nor a parameter of \
                     these flows' schemes",
                    LINK_KEYS.join(", "),
                    FLOW_FIELDS.join(", <label>.")
                );
            }
        }
    }
    Ok(())
}

/// `sc` with `value` applied to the swept `key` and no sweep table
/// (`schemes`: each flow's, in order); unchecked.
pub(crate) fn apply(
    sc: &Scenario,
    key: &str,
    value: &toml::Value,
    schemes: &[Scheme],
) -> Result<Scenario> {
    let mut sc = sc.clone();
    sc.sweep.clear();
    let num = || {
        value
            .as_float()
            .or_else(|| value.as_integer().map(|i| i as f64))
    };
    let string = || {
        value
            .as_str()
            .map(str::to_string)
            .with_context(|| format!("sweep.{key}: values must be strings"))
    };
    match SweepKey::of(key) {
        SweepKey::Link("queue") => sc.link.queue = string()?,
        SweepKey::Link("downlink") => sc.link.downlink = string()?,
        SweepKey::Link("delay_ms") => {
            sc.link.delay_ms = num().context("sweep.delay_ms: values must be numbers")?
        }
        SweepKey::Link(_) => sc.link.loss = num().context("sweep.loss: values must be numbers")?,
        SweepKey::Flows { label, field } => {
            let n = value.as_integer().filter(|&n| n >= 1).with_context(|| {
                format!("sweep.{key}: values must be whole numbers of at least 1")
            })?;
            let of_label = |f: &Flow| f.label.as_deref() == Some(label);
            match field {
                "size_bytes" => sc
                    .flows
                    .iter_mut()
                    .filter(|f| of_label(f))
                    .for_each(|f| f.size_bytes = Some(n as u64)),
                "count" => {
                    if n > MAX_COUNT {
                        bail!("sweep.{key}: at most {MAX_COUNT} flows");
                    }
                    // Keep the first n flows of the label; copy its last one to make up n.
                    let at: Vec<usize> = (0..sc.flows.len())
                        .filter(|&i| of_label(&sc.flows[i]))
                        .collect();
                    let Some(&last) = at.last() else {
                        bail!("sweep.{key}: no flow is labelled `{label}`")
                    };
                    let model = sc.flows[last].clone();
                    for &i in at.iter().skip(n as usize).rev() {
                        sc.flows.remove(i);
                    }
                    for _ in at.len()..n as usize {
                        sc.flows.insert(last + 1, model.clone());
                    }
                }
                other => bail!("sweep.{key}: `{other}` is not a flow field that can be swept"),
            }
        }
        SweepKey::Param(_) => {
            set_param(&mut sc, key, value, schemes);
        }
    }
    Ok(sc)
}

/// Sets the flow parameter `key` on every flow whose scheme (in
/// `schemes`) takes it; returns how many did.
pub(crate) fn set_param(
    sc: &mut Scenario,
    key: &str,
    value: &toml::Value,
    schemes: &[Scheme],
) -> usize {
    let mut set = 0;
    for (f, s) in sc.flows.iter_mut().zip(schemes) {
        if s.takes(key) {
            f.params.insert(key.to_string(), value.clone());
            set += 1;
        }
    }
    set
}

/// Drops the swept parameters none of the flows' `schemes` take (after
/// `--scheme` replaced them).
pub(crate) fn drop_untaken_params(sc: &mut Scenario, schemes: &[Scheme]) {
    sc.sweep.retain(|k, _| match SweepKey::of(k) {
        SweepKey::Link(_) | SweepKey::Flows { .. } => true,
        SweepKey::Param(_) => schemes.iter().any(|s| s.takes(k)),
    });
}

#[cfg(test)]
mod tests {
    use crate::plan::CheckedScenario;
    use crate::scenario::tests::{checked, GOOD, SHORT_LONG};

    #[test]
    fn sweeps_apply_to_the_flows_that_take_the_parameter() {
        let mut sc = checked(GOOD);
        sc.sweep
            .insert("target_ms".into(), vec![toml::Value::Integer(25)]);
        CheckedScenario::check(sc.clone()).unwrap();
        let v = sc
            .with_value("target_ms", &toml::Value::Integer(25))
            .unwrap();
        assert_eq!(v.flows[0].param_f64("target_ms"), Some(25.0));
        assert!(!v.flows[1].params.contains_key("target_ms"));
        let q = sc
            .with_value("queue", &toml::Value::String("droptail:bytes=75000".into()))
            .unwrap();
        assert_eq!(q.link.queue, "droptail:bytes=75000");
        sc.sweep
            .insert("nonsense".into(), vec![toml::Value::Integer(1)]);
        assert!(format!("{:#}", CheckedScenario::check(sc).unwrap_err()).contains("sweep.nonsense"));
    }

    #[test]
    fn with_scheme_replaces_every_flow_and_drops_foreign_params() {
        let sc = checked(GOOD).with_scheme("bbr").unwrap();
        assert!(sc
            .flows
            .iter()
            .all(|f| f.scheme == "bbr" && f.params.is_empty()));
        let kept = checked(&GOOD.replace("start_s = 5", "start_s = 5\nkeep_scheme = true"))
            .with_scheme("bbr")
            .unwrap();
        assert_eq!(kept.flows[0].scheme, "bbr");
        assert_eq!(kept.flows[1].scheme, "cubic");
    }

    #[test]
    fn flow_fields_of_one_label_are_swept() {
        let sc = checked(SHORT_LONG);
        let v = sc
            .with_value("short.size_bytes", &toml::Value::Integer(65536))
            .unwrap();
        assert_eq!(
            v.flows.iter().map(|f| f.size_bytes).collect::<Vec<_>>(),
            [Some(10_000_000), Some(65536), None]
        );
        // count: the last flow of the label is copied, in place ...
        let three = sc
            .with_value("short.count", &toml::Value::Integer(3))
            .unwrap();
        let labels: Vec<&str> = three
            .flows
            .iter()
            .map(|f| f.label.as_deref().unwrap())
            .collect();
        assert_eq!(labels, ["long", "short", "short", "short", "other"]);
        assert!(three.flows[1..4]
            .iter()
            .all(|f| f.start_s == 30.0 && f.size_bytes == Some(131072)));
        // ... or the first ones kept.
        let one = three
            .with_value("short.count", &toml::Value::Integer(1))
            .unwrap();
        assert_eq!(one.flows, sc.flows);
        let rate = sc
            .with_value("downlink", &toml::Value::String("constant:54".into()))
            .unwrap();
        assert_eq!(rate.link.downlink, "constant:54");
    }

    #[test]
    fn sweep_errors_name_the_key() {
        let with = |sweep: &str| {
            format!(
                "{:#}",
                CheckedScenario::parse(&format!(
                    "{SHORT_LONG}
[sweep]
{sweep}
"
                ))
                .unwrap_err()
            )
        };
        let e = with(r#""tiny.size_bytes" = [1000]"#);
        assert!(
            e.contains("sweep.tiny.size_bytes")
                && e.contains("no flow is labelled `tiny`")
                && e.contains("long, short"),
            "{e}"
        );
        let e = with(r#""short.start" = [1]"#);
        assert!(
            e.contains("sweep.short.start") && e.contains("size_bytes, count"),
            "{e}"
        );
        let e = with(r#""short.size_bytes" = [65536, 0]"#);
        assert!(
            e.contains("sweep.short.size_bytes[1]") && e.contains("at least 1"),
            "{e}"
        );
        let e = with(r#""short.count" = [2, 500]"#);
        assert!(
            e.contains("sweep.short.count[1]") && e.contains("at most 64"),
            "{e}"
        );
        let e = with(r#"downlink = [54]"#);
        assert!(e.contains("sweep.downlink") && e.contains("strings"), "{e}");
        let e = with(r#"gamma_max = [5, 0.1]"#);
        assert!(
            e.contains("sweep.gamma_max[1]") && e.contains("gamma_max"),
            "{e}"
        );
        let e = with(r#"bogus = [1]"#);
        assert!(
            e.contains("sweep.bogus") && e.contains("downlink") && e.contains("<label>.size_bytes"),
            "{e}"
        );
        // The flows' own fields are swept for every scheme: with_scheme keeps them.
        let sc = checked(&format!(
            "{SHORT_LONG}\n[sweep]\n\"short.count\" = [1, 2]\ngamma_k = [2, 4]\n"
        ));
        let c = sc.with_scheme("cubic").unwrap();
        assert_eq!(c.sweep.keys().collect::<Vec<_>>(), ["short.count"]);
    }
}
