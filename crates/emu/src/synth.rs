// SPDX-License-Identifier: GPL-2.0-only
//! Synthetic traces: a cellular link as Sprout models it (§3 of the
//! paper: packet deliveries are a Poisson process whose rate λ moves in
//! Brownian motion, with "sticky" outages when λ reaches 0 that end at an
//! escape rate λz), plus constant, step and rate-schedule traces.
//!
//! Rates convert to opportunities at 1500 bytes each: 12 Mbit/s is one
//! opportunity per ms. Timestamps are 1-based ms (an opportunity at the end
//! of each ms), so a trace of D ms ends at D and loops with period D.
use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal, Poisson};

/// Mbit/s carried by one opportunity per ms.
pub const MBPS_PER_OPPORTUNITY_PER_MS: f64 = 12.0;

fn per_ms(mbps: f64) -> f64 {
    mbps / MBPS_PER_OPPORTUNITY_PER_MS
}

/// The cellular model's knobs. Rates in Mbit/s, σ in Mbit/s per √s.
#[derive(Debug, Clone)]
pub struct Cellular {
    pub duration_ms: u64,
    pub seed: u64,
    /// The rate the Brownian motion is pulled back to.
    pub mean_mbps: f64,
    pub max_mbps: f64,
    /// Noise power: Sprout's σ = 200 packets/s/√s is 2.4 Mbit/s/√s.
    pub sigma_mbps: f64,
    /// Pull towards the mean, per second (0: pure Brownian motion, as in
    /// Sprout's model; a little keeps a long trace's mean near `mean_mbps`).
    pub reversion: f64,
    /// Outage escape rate λz per second (Sprout: 1).
    pub escape_rate: f64,
}

impl Default for Cellular {
    /// An LTE-like link: about 10 Mbit/s on average, swinging between
    /// ~2 and ~20, with an outage of ~1 s every minute or so.
    fn default() -> Self {
        Cellular {
            duration_ms: 60_000,
            seed: 1,
            mean_mbps: 10.0,
            max_mbps: 30.0,
            sigma_mbps: 4.0,
            reversion: 0.2,
            escape_rate: 1.0,
        }
    }
}

impl Cellular {
    pub fn generate(&self) -> Result<Vec<u64>> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if self.duration_ms == 0
            || !positive(self.mean_mbps)
            || !positive(self.max_mbps)
            || self.max_mbps < self.mean_mbps
        {
            bail!(
                "synth needs duration > 0 and 0 < mean <= max (got mean {} max {})",
                self.mean_mbps,
                self.max_mbps
            );
        }
        if self.sigma_mbps < 0.0 || self.reversion < 0.0 || self.escape_rate <= 0.0 {
            bail!("synth needs sigma >= 0, reversion >= 0 and escape rate > 0");
        }
        let mut rng = StdRng::seed_from_u64(self.seed);
        let dt: f64 = 0.001;
        let noise = Normal::new(0.0, self.sigma_mbps * dt.sqrt()).expect("finite σ");
        let mut rate = self.mean_mbps;
        let mut out =
            Vec::with_capacity((per_ms(self.mean_mbps) * self.duration_ms as f64 * 1.2) as usize);
        for ms in 1..=self.duration_ms {
            if rate <= 0.0 {
                // In an outage: leave it with probability λz·dt, restarting low.
                if rand::Rng::gen::<f64>(&mut rng) < self.escape_rate * dt {
                    rate = self.mean_mbps * 0.25;
                } else {
                    continue;
                }
            }
            rate += self.reversion * (self.mean_mbps - rate) * dt + noise.sample(&mut rng);
            rate = rate.min(self.max_mbps);
            if rate <= 0.0 {
                rate = 0.0;
                continue;
            }
            let n = Poisson::new(per_ms(rate))
                .expect("positive rate")
                .sample(&mut rng) as u64;
            out.extend(std::iter::repeat_n(ms, n as usize));
        }
        close_period(&mut out, self.duration_ms);
        Ok(out)
    }
}

/// The most opportunities a generated trace may hold: 100 million (800 MB
/// as the emulator keeps them; 1 Gbit/s for 20 minutes). A rate spec or
/// `trace synth`/`from-rate` asking for more is refused, not allocated.
pub const MAX_OPPORTUNITIES: u64 = 100_000_000;

/// Makes the trace end at `duration_ms` so it loops with that period (adds
/// one opportunity at the end if the last ms had none).
fn close_period(out: &mut Vec<u64>, duration_ms: u64) {
    if out.last() != Some(&duration_ms) {
        out.push(duration_ms);
    }
}

/// Checks a rate schedule as [`from_rate`] takes it, without making the
/// trace: the segments, the rates, the length and the number of
/// opportunities it would hold. Returns that number.
pub fn check_schedule(schedule: &[(f64, f64)], duration_ms: u64) -> Result<f64> {
    if schedule.is_empty() || duration_ms == 0 {
        bail!("a rate schedule needs at least one segment and a duration > 0");
    }
    if schedule[0].0 != 0.0 {
        bail!(
            "the rate schedule must start at 0 s (first segment starts at {} s)",
            schedule[0].0
        );
    }
    for (i, w) in schedule.windows(2).enumerate() {
        if w[1].0 <= w[0].0 {
            bail!(
                "segment {} starts at {} s, not after the previous one ({} s)",
                i + 2,
                w[1].0,
                w[0].0
            );
        }
    }
    if let Some((t, r)) = schedule.iter().find(|(_, r)| !(r.is_finite() && *r >= 0.0)) {
        bail!("rate at {t} s is {r}: rates must be finite and >= 0 Mbit/s");
    }
    // What a trace may be, checked before it is made: generating first
    // would run out of memory (or time) on a period of 10^120 s.
    if duration_ms > crate::trace::MAX_TIMESTAMP_MS {
        bail!(
            "a {} s trace is longer than a week ({} s), the longest trace c2tcp runs",
            duration_ms as f64 / 1000.0,
            crate::trace::MAX_TIMESTAMP_MS / 1000
        );
    }
    let total: f64 = schedule
        .iter()
        .enumerate()
        .map(|(i, &(start, mbps))| {
            let end = schedule
                .get(i + 1)
                .map_or(duration_ms as f64, |n| n.0 * 1000.0);
            per_ms(mbps) * (end.min(duration_ms as f64) - start * 1000.0).max(0.0)
        })
        .sum();
    if total > MAX_OPPORTUNITIES as f64 {
        bail!(
            "the schedule makes {total:.0} delivery opportunities, more than the {MAX_OPPORTUNITIES} \
             a trace may hold in memory (e.g. 1 Gbit/s for 20 minutes): shorten its period"
        );
    }
    // The credit from_rate's walk accumulates: each segment's rate over the
    // ms its own test gives it (not its exact span), so that a schedule
    // refused there for giving no opportunity is refused here too.
    let mut credit = 0.0;
    for (k, &(start, mbps)) in schedule.iter().enumerate() {
        let from = if k == 0 {
            1
        } else {
            first_ms(start, duration_ms)
        };
        let to = schedule
            .get(k + 1)
            .map_or(duration_ms + 1, |n| first_ms(n.0, duration_ms));
        credit += per_ms(mbps) * to.saturating_sub(from) as f64;
    }
    if credit < 1.0 - 1e-9 {
        bail!("the schedule has no capacity at all (every rate is 0)");
    }
    Ok(total)
}

/// The first ms (1-based, to `duration_ms` + 1) whose start time reaches
/// `start_s` by [`from_rate`]'s own test: found near `start_s`, then
/// stepped to where the test turns true.
fn first_ms(start_s: f64, duration_ms: u64) -> u64 {
    let reaches = |ms: u64| start_s <= (ms - 1) as f64 / 1000.0 + 1e-9;
    let near = (start_s * 1000.0).floor().max(0.0) as u64 + 1;
    let mut ms = near.clamp(1, duration_ms + 1);
    while ms > 1 && reaches(ms - 1) {
        ms -= 1;
    }
    while ms <= duration_ms && !reaches(ms) {
        ms += 1;
    }
    ms
}

/// A piecewise-constant rate: `(start_s, mbps)` segments, sorted by start,
/// the first at 0, the last lasting until `duration_ms`. Opportunities are
/// spread evenly (fractions carry over), so the trace holds the rate exactly.
pub fn from_rate(schedule: &[(f64, f64)], duration_ms: u64) -> Result<Vec<u64>> {
    let total = check_schedule(schedule, duration_ms)?;
    let mut out = Vec::with_capacity(total as usize + 2);
    let mut credit = 0.0f64;
    let mut seg = 0;
    for ms in 1..=duration_ms {
        let t = (ms - 1) as f64 / 1000.0;
        while seg + 1 < schedule.len() && schedule[seg + 1].0 <= t + 1e-9 {
            seg += 1;
        }
        credit += per_ms(schedule[seg].1);
        // The epsilon keeps 1000 Mbit/s (83.33… per ms) from losing an
        // opportunity to rounding every third ms.
        while credit >= 1.0 - 1e-9 {
            out.push(ms);
            credit -= 1.0;
        }
    }
    if out.is_empty() {
        bail!("the schedule has no capacity at all (every rate is 0)");
    }
    close_period(&mut out, duration_ms);
    Ok(out)
}

/// A constant rate for `duration_ms`.
pub fn constant(mbps: f64, duration_ms: u64) -> Result<Vec<u64>> {
    from_rate(&[(0.0, mbps)], duration_ms)
}

/// Parses a rate schedule: one `SECONDS MBPS` pair per line (or per
/// comma-separated item), `#` comments allowed. Errors name `what` and line.
pub fn parse_schedule(what: &str, text: &str) -> Result<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    for (i, raw) in text.split(['\n', ',']).enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut it = line
            .split(|c: char| c.is_whitespace() || c == ':')
            .filter(|s| !s.is_empty());
        let (Some(a), Some(b), None) = (it.next(), it.next(), it.next()) else {
            bail!("{what}:{}: expected `SECONDS MBPS`, got `{line}`", i + 1);
        };
        let t: f64 = a
            .parse()
            .with_context(|| format!("{what}:{}: `{a}` is not a number of seconds", i + 1))?;
        let r: f64 = b
            .parse()
            .with_context(|| format!("{what}:{}: `{b}` is not a rate in Mbit/s", i + 1))?;
        out.push((t, r));
    }
    Ok(out)
}

/// Writes a trace, one timestamp per line.
pub fn write(path: &Path, opportunities: &[u64]) -> Result<()> {
    let f = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = std::io::BufWriter::new(f);
    for t in opportunities {
        writeln!(w, "{t}")?;
    }
    w.flush()
        .with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Trace;

    fn summary(opps: Vec<u64>) -> crate::trace::Summary {
        Trace {
            path: "x".into(),
            opportunities: opps,
        }
        .summary()
    }

    #[test]
    fn constant_rates_are_exact() {
        let t = constant(12.0, 1000).unwrap();
        assert_eq!(t, (1..=1000).collect::<Vec<_>>());
        let t = constant(1000.0, 3000).unwrap();
        assert_eq!(t.len(), 250_000);
        assert_eq!(*t.last().unwrap(), 3000);
        assert!((summary(t).mean_mbps - 1000.0).abs() < 0.01);
        assert!(constant(0.0, 10).is_err());
    }

    #[test]
    fn steps_follow_the_schedule() {
        let s = parse_schedule("steps", "0 12\n1 24 # doubled\n2.5:0, 3 6").unwrap();
        assert_eq!(s, vec![(0.0, 12.0), (1.0, 24.0), (2.5, 0.0), (3.0, 6.0)]);
        let t = from_rate(&s, 4000).unwrap();
        let in_range = |a: u64, b: u64| t.iter().filter(|&&x| x > a && x <= b).count();
        assert_eq!(in_range(0, 1000), 1000);
        assert_eq!(in_range(1000, 2500), 3000);
        assert_eq!(in_range(2500, 3000), 0);
        assert_eq!(in_range(3000, 4000), 500);
        let e = parse_schedule("f.txt", "0 12\n1 x\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("f.txt:2"), "{e}");
        assert!(from_rate(&[(1.0, 5.0)], 10)
            .unwrap_err()
            .to_string()
            .contains("start at 0"));
    }

    #[test]
    fn cellular_is_seeded_lte_like_and_has_outages() {
        let a = Cellular::default().generate().unwrap();
        assert_eq!(
            a,
            Cellular::default().generate().unwrap(),
            "same seed, same trace"
        );
        let b = Cellular {
            seed: 2,
            ..Default::default()
        }
        .generate()
        .unwrap();
        assert_ne!(a, b);
        let summaries: Vec<_> = (1..=5)
            .map(|seed| {
                summary(
                    Cellular {
                        seed,
                        duration_ms: 120_000,
                        ..Default::default()
                    }
                    .generate()
                    .unwrap(),
                )
            })
            .collect();
        for (seed, s) in summaries.iter().enumerate() {
            assert!(
                s.mean_mbps > 4.0 && s.mean_mbps < 16.0,
                "seed {}: {s:?}",
                seed + 1
            );
            assert!(
                s.peak_mbps > s.mean_mbps * 1.2,
                "seed {}: rate varies: {s:?}",
                seed + 1
            );
        }
        let outage: u64 = summaries.iter().map(|s| s.outage_ms).sum();
        assert!(
            outage > 500,
            "10 minutes of synthetic link include outages: {outage} ms"
        );
    }
}
