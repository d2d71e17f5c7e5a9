// SPDX-License-Identifier: GPL-2.0-only
//! A knob: a parameter a scheme takes in a scenario's flow (a number in a
//! range, or a word), how one value of it is checked, and how a TOML value
//! reads as a number and prints as one.
use anyhow::{bail, Result};

/// A parameter a scheme accepts in a scenario's flow: a number in
/// [min, max], or, when `word` is set, a string that `word` accepts.
#[derive(Debug, Clone, Copy)]
pub struct Knob {
    pub name: &'static str,
    pub about: &'static str,
    pub min: f64,
    pub max: f64,
    pub word: Option<fn(&str) -> Result<(), String>>,
    /// The value a flow that does not give it gets (a scheme file's
    /// `default`); None: the scheme's own default applies.
    pub default: Option<f64>,
    /// The per-namespace sysctl this knob sets in the run's namespaces (a
    /// `kernel` scheme file's knob), instead of being a flow parameter.
    pub sysctl: Option<&'static str>,
}

impl Knob {
    /// Checks one value of this knob: a word `word` accepts, or a number
    /// in range; the error names the knob.
    pub fn check(&self, value: &toml::Value) -> Result<()> {
        let key = self.name;
        if let Some(word) = self.word {
            return match value.as_str() {
                Some(w) => word(w).map_err(|e| anyhow::anyhow!("{key}: {e}")),
                None => bail!("{key}: must be a string ({})", self.about),
            };
        }
        match as_number(value) {
            Some(v) if self.sysctl.is_some() && v.fract() != 0.0 => {
                bail!(
                    "{key}: {v} is not a whole number (it sets {})",
                    self.sysctl.unwrap_or_default()
                )
            }
            Some(v) if v.is_finite() && v >= self.min && v <= self.max => Ok(()),
            Some(v) => bail!(
                "{key}: {v} is out of range [{}, {}] ({})",
                self.min,
                self.max,
                self.about
            ),
            None => bail!("{key}: must be a number ({})", self.about),
        }
    }
}

/// A TOML number as `f64` (integers too).
pub fn as_number(v: &toml::Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

/// A number as a placeholder prints it: integers without a fraction.
pub(crate) fn number_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
