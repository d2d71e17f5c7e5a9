// SPDX-License-Identifier: GPL-2.0-only
//! Changes to a scenario that need the scheme registry (which flows take a
//! knob, what a new scheme drops): `--scheme`, `--set`, `--target`, a swept
//! value, and `c2tcp run`'s flags as a whole ([`RunFlags`]). None of them
//! checks the result: whoever makes a scenario to run checks it once
//! ([`CheckedScenario::check`]), after the last change.
use std::path::Path;

use anyhow::{bail, Context, Result};

use super::checked::CheckedScenario;
use super::lookup::schemes_of;
use crate::scenario::{RunLength, Scenario};
use crate::scheme::{self, knobs::TARGET_MS};
use crate::sweep;

/// One `--set KNOB=VALUE`: a flow parameter as a scenario file would
/// give it.
pub type KnobSetting = (String, toml::Value);

/// Parses `--set KNOB=VALUE`: VALUE as a TOML value (`50`, `1.5`,
/// `"jsac"`), a bare word as a string (`variant=paper`).
pub fn parse_knob_setting(arg: &str) -> std::result::Result<KnobSetting, String> {
    let (key, value) = arg
        .split_once('=')
        .ok_or_else(|| format!("`{arg}`: give KNOB=VALUE, e.g. variant=paper"))?;
    let key = key.trim();
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("`{arg}`: `{key}` is not a knob name"));
    }
    let value = value.trim();
    let parsed = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.to_string()));
    Ok((key.to_string(), parsed))
}

impl Scenario {
    /// This scenario with `value` applied to the swept `key`, and no sweep
    /// table.
    pub fn with_value(&self, key: &str, value: &toml::Value) -> Result<Scenario> {
        sweep::apply(self, key, value, &schemes_of(self)?)
    }

    /// Sets the flow parameter `key` on every flow whose scheme takes it
    /// (`c2tcp run --target`); returns how many did.
    pub fn set_param(&mut self, key: &str, value: &toml::Value) -> Result<usize> {
        let schemes = schemes_of(self)?;
        Ok(sweep::set_param(self, key, value, &schemes))
    }

    /// Applies `--set KNOB=VALUE`s: each on every flow whose scheme takes
    /// it, its value checked against that knob (an error names the
    /// `--set`). Returns the settings some flow took.
    pub fn set_knobs(&mut self, sets: &[KnobSetting]) -> Result<Vec<KnobSetting>> {
        let schemes = schemes_of(self)?;
        let mut taken = Vec::new();
        for (key, value) in sets {
            for knob in schemes
                .iter()
                .filter_map(|s| s.knobs.iter().find(|k| k.name == key))
            {
                knob.check(value)
                    .with_context(|| format!("--set {key}={value}"))?;
            }
            if sweep::set_param(self, key, value, &schemes) > 0 {
                taken.push((key.clone(), value.clone()));
            }
        }
        Ok(taken)
    }

    /// Replaces every flow's scheme (`c2tcp run --scheme`) but those that
    /// keep theirs, dropping the parameters the new scheme does not take,
    /// and the swept ones no flow takes any more.
    pub fn with_scheme(&self, name: &str) -> Result<Scenario> {
        let sch = scheme::lookup(name)?;
        let mut sc = self.clone();
        for f in sc.flows.iter_mut().filter(|f| !f.keep_scheme) {
            f.scheme = name.to_string();
            f.params.retain(|k, _| sch.takes(k));
        }
        let schemes = schemes_of(&sc)?;
        sweep::drop_untaken_params(&mut sc, &schemes);
        Ok(sc)
    }
}

/// What `c2tcp run`'s flags say about the scenario: each overrides the
/// scenario file's field, or describes a one-flow scenario without one.
#[derive(Debug, Clone, Default)]
pub struct RunFlags {
    pub scheme: Option<String>,
    /// C2TCP's Target, ms (`--target`).
    pub target_ms: Option<f64>,
    pub set: Vec<KnobSetting>,
    pub downlink: Option<String>,
    pub uplink: Option<String>,
    pub delay_ms: Option<f64>,
    pub queue: Option<String>,
    pub length: Option<RunLength>,
    pub warmup_s: Option<f64>,
    pub pcap: bool,
    /// `--tunnel sprout|none`: the flows through SproutTunnel or directly.
    pub tunnel: Option<String>,
}

impl RunFlags {
    /// The run's scenario: the file's with the flags applied, or the
    /// one-flow scenario the flags describe (its other fields the model's
    /// defaults); checked once, after the last change, so a typo fails
    /// before any set-up.
    pub fn scenario(&self, file: Option<&Path>) -> Result<CheckedScenario> {
        let read = file.map(Scenario::read).transpose()?;
        let mut sc = match &read {
            Some(sc) => {
                let mut sc = match &self.scheme {
                    Some(s) => sc.with_scheme(s)?,
                    None => sc.clone(),
                };
                if let Some(d) = &self.downlink {
                    sc.link.downlink = d.clone();
                }
                sc
            }
            None => {
                let Some(downlink) = &self.downlink else {
                    bail!("give a scenario file, or at least --downlink TRACE (e.g. constant:12)");
                };
                Scenario::single_flow("run", downlink, self.scheme.as_deref().unwrap_or("c2tcp"))
            }
        };
        if let Some(t) = self.target_ms {
            let took = sc.set_param(TARGET_MS.name, &toml::Value::Float(t))?;
            if took == 0 && file.is_none() {
                bail!("--target: scheme `{}` takes no Target", sc.flows[0].scheme);
            }
        }
        let taken = sc.set_knobs(&self.set)?;
        if let Some((key, _)) = self
            .set
            .iter()
            .find(|(k, _)| !taken.iter().any(|(t, _)| t == k))
        {
            let schemes: Vec<&str> = sc.flows.iter().map(|f| f.scheme.as_str()).collect();
            bail!(
                "--set {key}: no flow's scheme ({}) takes `{key}` (see --list-schemes)",
                schemes.join(", ")
            );
        }
        if let Some(u) = &self.uplink {
            sc.link.uplink = Some(u.clone());
        }
        if let Some(d) = self.delay_ms {
            sc.link.delay_ms = d;
        }
        if self.pcap {
            sc.link.pcap = true;
        }
        if let Some(q) = &self.queue {
            sc.link.queue = q.clone();
            sc.link.downlink_queue = None;
            sc.link.uplink_queue = None;
        }
        if let Some(d) = self.length {
            sc.link.set_length(d);
        }
        if let Some(w) = self.warmup_s {
            sc.link.warmup_s = w;
        }
        if let Some(word) = &self.tunnel {
            let t = crate::tunnel::TunnelOptions::from_word(word)
                .map_err(|e| anyhow::anyhow!("--tunnel {e}"))?;
            // `sprout` keeps the scenario's own [tunnel] settings when it has them.
            if t.is_none() || sc.tunnel.is_none() {
                sc.tunnel = t;
            }
        }
        let changed = read.as_ref() != Some(&sc);
        let checked = CheckedScenario::check(sc);
        match file {
            None => checked,
            Some(p) if changed => {
                checked.with_context(|| format!("in scenario {} with the flags given", p.display()))
            }
            Some(p) => checked.with_context(|| format!("in scenario {}", p.display())),
        }
    }
}
