// SPDX-License-Identifier: GPL-2.0-only
//! Random loss at the queue's entrance, from a seeded generator so runs
//! are repeatable. Two models:
//!
//! - **Bernoulli** (mm-loss): each packet is lost with probability `P`,
//!   independently. Written as the bare number, `0.01`.
//! - **Gilbert–Elliott**: a two-state Markov chain, stepped once per
//!   packet. In the Good state a packet is lost with probability `good`
//!   (default 0), in the Bad state with probability `bad` (default 1);
//!   after each packet the chain moves Good→Bad with probability `p` and
//!   Bad→Good with probability `r`. So losses come in bursts: with the
//!   defaults (Gilbert's model) the long-run loss rate is p/(p+r) and a
//!   burst of consecutive losses lasts 1/r packets on average. Written as
//!   `ge:p=0.01,r=0.25[,good=0][,bad=1]`. These are netem's `gemodel`
//!   parameters p, r, 1-h (`bad`) and 1-k (`good`).
//!
//! The chain starts in Good. Per packet: one or two uniform draws, no
//! allocation.
use std::fmt;
use std::str::FromStr;

use anyhow::{bail, Context};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Gilbert–Elliott's four parameters (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GilbertElliott {
    /// P(Good → Bad) after a packet.
    pub p: f64,
    /// P(Bad → Good) after a packet.
    pub r: f64,
    /// Loss probability in Good (netem's 1-k).
    pub good: f64,
    /// Loss probability in Bad (netem's 1-h).
    pub bad: f64,
}

impl GilbertElliott {
    /// The long-run share of packets in Bad: p / (p + r).
    pub fn bad_share(&self) -> f64 {
        if self.p + self.r == 0.0 {
            0.0 // never leaves Good
        } else {
            self.p / (self.p + self.r)
        }
    }

    /// The long-run loss rate.
    pub fn mean_loss(&self) -> f64 {
        let b = self.bad_share();
        (1.0 - b) * self.good + b * self.bad
    }
}

/// A direction's loss model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LossModel {
    /// Each packet lost with this probability (0: no loss).
    Bernoulli(f64),
    GilbertElliott(GilbertElliott),
}

impl Default for LossModel {
    fn default() -> Self {
        LossModel::Bernoulli(0.0)
    }
}

impl From<f64> for LossModel {
    fn from(p: f64) -> Self {
        LossModel::Bernoulli(p)
    }
}

impl LossModel {
    /// The long-run loss rate (what a log header records).
    pub fn mean_loss(&self) -> f64 {
        match self {
            LossModel::Bernoulli(p) => *p,
            LossModel::GilbertElliott(ge) => ge.mean_loss(),
        }
    }

    /// Every probability in [0, 1]; `what` names the setting in the error.
    pub fn validate(&self, what: &str) -> anyhow::Result<()> {
        match self {
            LossModel::Bernoulli(p) => validate(*p, what).map(|_| ()),
            LossModel::GilbertElliott(ge) => {
                for (name, v) in [("p", ge.p), ("r", ge.r), ("good", ge.good), ("bad", ge.bad)] {
                    validate(v, &format!("{what}: ge's {name}"))?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for LossModel {
    type Err = anyhow::Error;

    /// `P`, or `ge:p=P,r=R[,good=G][,bad=B]`.
    fn from_str(s: &str) -> anyhow::Result<LossModel> {
        let s = s.trim();
        let Some(args) = s.strip_prefix("ge:") else {
            let p: f64 = s.parse().with_context(|| {
                format!("`{s}` is neither a loss probability nor ge:p=P,r=R[,good=G][,bad=B]")
            })?;
            let m = LossModel::Bernoulli(p);
            m.validate(&format!("`{s}`"))?;
            return Ok(m);
        };
        let (mut p, mut r) = (None, None);
        let (mut good, mut bad) = (0.0, 1.0);
        for kv in args.split(',').filter(|kv| !kv.trim().is_empty()) {
            let Some((k, v)) = kv.split_once('=') else {
                bail!("`{s}`: `{kv}` is not key=value");
            };
            let v: f64 = v
                .trim()
                .parse()
                .with_context(|| format!("`{s}`: {k}=`{v}` is not a number"))?;
            match k.trim() {
                "p" => p = Some(v),
                "r" => r = Some(v),
                "good" => good = v,
                "bad" => bad = v,
                other => {
                    bail!("`{s}`: unknown Gilbert–Elliott parameter `{other}` (p, r, good, bad)")
                }
            }
        }
        let (Some(p), Some(r)) = (p, r) else {
            bail!("`{s}`: Gilbert–Elliott needs p= (Good→Bad) and r= (Bad→Good)");
        };
        let m = LossModel::GilbertElliott(GilbertElliott { p, r, good, bad });
        m.validate(&format!("`{s}`"))?;
        Ok(m)
    }
}

impl fmt::Display for LossModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LossModel::Bernoulli(p) => write!(f, "{p}"),
            LossModel::GilbertElliott(g) => {
                write!(f, "ge:p={},r={},good={},bad={}", g.p, g.r, g.good, g.bad)
            }
        }
    }
}

pub struct Loss {
    model: LossModel,
    in_bad: bool,
    rng: StdRng,
}

impl Loss {
    pub fn new(model: impl Into<LossModel>, seed: u64) -> Loss {
        Loss {
            model: model.into(),
            in_bad: false,
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// Whether the next packet is lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self.model {
            LossModel::Bernoulli(p) => p > 0.0 && self.rng.gen::<f64>() < p,
            LossModel::GilbertElliott(ge) => {
                let (p_loss, p_move) = if self.in_bad {
                    (ge.bad, ge.r)
                } else {
                    (ge.good, ge.p)
                };
                let lost = p_loss > 0.0 && self.rng.gen::<f64>() < p_loss;
                if p_move > 0.0 && self.rng.gen::<f64>() < p_move {
                    self.in_bad = !self.in_bad;
                }
                lost
            }
        }
    }
}

/// Checks a loss probability given on the command line or in a config.
pub fn validate(p: f64, what: &str) -> anyhow::Result<f64> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        anyhow::bail!("{what} must be a probability between 0 and 1, got {p}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_is_close_to_p_and_seeded() {
        let mut l = Loss::new(0.1, 42);
        let lost = (0..100_000).filter(|_| l.lose()).count();
        assert!((9_000..11_000).contains(&lost), "{lost}");
        let mut a = Loss::new(0.3, 1);
        let mut b = Loss::new(0.3, 1);
        assert!((0..1000).all(|_| a.lose() == b.lose()));
        let mut none = Loss::new(0.0, 1);
        assert!((0..1000).all(|_| !none.lose()));
        assert!(validate(1.5, "--downlink-loss")
            .unwrap_err()
            .to_string()
            .contains("--downlink-loss"));
    }

    /// Loss rate and mean length of runs of consecutive losses over `n`
    /// packets.
    fn measure(model: LossModel, seed: u64, n: usize) -> (f64, f64) {
        let mut l = Loss::new(model, seed);
        let (mut lost, mut bursts, mut prev) = (0usize, 0usize, false);
        for _ in 0..n {
            let x = l.lose();
            lost += x as usize;
            bursts += (x && !prev) as usize;
            prev = x;
        }
        (lost as f64 / n as f64, lost as f64 / bursts.max(1) as f64)
    }

    #[test]
    fn gilbert_loss_rate_and_burst_length_match_the_parameters() {
        // p = 0.01, r = 0.25: 3.85 % loss in bursts of 4 packets on average.
        let m: LossModel = "ge:p=0.01,r=0.25".parse().unwrap();
        let n = 2_000_000;
        let (rate, burst) = measure(m, 7, n);
        let want_rate = 0.01 / 0.26;
        // Bursts are ~N·p(1-π_B) ≈ 19 000 independent geometric runs: the
        // rate's relative standard error is ~1 %, the mean burst's ~0.6 %;
        // the bounds are ~5 standard errors.
        assert!(
            (rate / want_rate - 1.0).abs() < 0.05,
            "rate {rate} vs {want_rate}"
        );
        assert!((burst / 4.0 - 1.0).abs() < 0.04, "burst {burst} vs 4");
        // Same long-run rate from Bernoulli has bursts of ~1.04 packets: the
        // model, not chance, makes them long.
        let (b_rate, b_burst) = measure(LossModel::Bernoulli(want_rate), 7, n);
        assert!(
            (b_rate / want_rate - 1.0).abs() < 0.05 && b_burst < 1.1,
            "{b_rate} {b_burst}"
        );
        // Elliott's extension: some loss in Good, not all in Bad.
        let ge: LossModel = "ge:p=0.05,r=0.2,good=0.01,bad=0.5".parse().unwrap();
        let (rate, _) = measure(ge, 3, n);
        let want = 0.8 * 0.01 + 0.2 * 0.5;
        assert!((rate / want - 1.0).abs() < 0.05, "rate {rate} vs {want}");
        assert!((ge.mean_loss() - want).abs() < 1e-12);
        // Seeded.
        assert_eq!(measure(ge, 9, 10_000), measure(ge, 9, 10_000));
        assert_ne!(measure(ge, 9, 10_000), measure(ge, 10, 10_000));
    }

    #[test]
    fn parsing_and_errors_name_the_setting() {
        assert_eq!(
            "0.02".parse::<LossModel>().unwrap(),
            LossModel::Bernoulli(0.02)
        );
        let ge: LossModel = "ge:p=0.1,r=0.5,bad=0.9".parse().unwrap();
        assert_eq!(ge.to_string(), "ge:p=0.1,r=0.5,good=0,bad=0.9");
        assert_eq!(ge.to_string().parse::<LossModel>().unwrap(), ge);
        for (s, says) in [
            ("x", "neither a loss probability"),
            ("1.5", "between 0 and 1"),
            ("ge:p=0.1", "needs p="),
            ("ge:p=0.1,r=2", "r must be a probability"),
            ("ge:p=0.1,r=0.2,k=1", "unknown Gilbert"),
            ("ge:p=0.1,r", "not key=value"),
        ] {
            let e = format!("{:#}", s.parse::<LossModel>().unwrap_err());
            assert!(e.contains(says), "{s}: {e}");
        }
    }
}
