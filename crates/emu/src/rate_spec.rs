// SPDX-License-Identifier: GPL-2.0-only
//! Link rates given on the command line instead of a trace file, and the
//! rate limits every trace (file or spec) is checked against.
//!
//! - `constant:MBPS` — a constant rate, e.g. `constant:12` (one MTU
//!   opportunity per ms). The trace loops every second, or every 3 s when a
//!   second would hold a fraction of an opportunity (so `constant:100`
//!   delivers exactly 100 Mbit/s, not 99.996).
//! - `steps:START_S:MBPS,START_S:MBPS,...@PERIOD_S` — piecewise-constant
//!   rates from each start time on, the first at 0, looping every
//!   PERIOD_S seconds, e.g. `steps:0:24,10:6,20:0,21:12@30`.
//!
//! Anything else names a trace file (plain or `.gz`). Rates above
//! [`MAX_MBPS`] are refused (nothing has been measured there); rates above
//! [`VALIDATED_MBPS`] are accepted with a warning ([`rate_warning`]).
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::synth;
use crate::trace::Trace;

/// The highest rate a spec or `trace synth` may ask for: 10 Gbit/s, the
/// 5G-Advanced peak the emulator's benchmark aims at. Beyond it a trace
/// would only measure the emulator's ceiling, not the link.
pub const MAX_MBPS: f64 = 10_000.0;

/// The highest rate docs/emulator.md shows the emulator delivering at
/// ≥ 0.95 of capacity with p99 scheduling error ≤ 200 µs on the 2-core
/// development machine (`make bench-emulator`, idle: 0.991-1.000 in five
/// of five runs at 4 Gbit/s, 0.81 at 8). Above it a run may measure the
/// emulator rather than the link, so we warn.
pub const VALIDATED_MBPS: f64 = 4_000.0;

/// Checks one rate of a spec (or of `trace synth`): finite, ≥ 0 (> 0 when
/// `positive`), at most [`MAX_MBPS`].
pub fn check_mbps(what: &str, mbps: f64, positive: bool) -> Result<()> {
    if !mbps.is_finite() || mbps < 0.0 || (positive && mbps == 0.0) {
        bail!(
            "{what}: {mbps} Mbit/s is not a rate (needs a finite number {} 0)",
            if positive { ">" } else { ">=" }
        );
    }
    if mbps > MAX_MBPS {
        bail!(
            "{what}: {mbps} Mbit/s is above the {MAX_MBPS} Mbit/s the emulator is built and measured for \
             (docs/emulator.md); a faster trace would measure the emulator, not the link"
        );
    }
    Ok(())
}

/// A rate spec taken apart and checked, its trace not made yet: the
/// schedule and its period, and the spec as written (the trace's name).
#[derive(Debug, Clone, PartialEq)]
pub struct RateSpec {
    text: String,
    schedule: Vec<(f64, f64)>,
    period_ms: u64,
}

impl RateSpec {
    /// Parses and checks `constant:…`/`steps:…` (everything the trace's
    /// making would refuse, refused here); None when `spec` is not a rate
    /// spec (a file name).
    pub fn parse(spec: &str) -> Result<Option<RateSpec>> {
        let (schedule, period_ms) = if let Some(mbps) = spec.strip_prefix("constant:") {
            let mbps: f64 = mbps
                .trim()
                .parse()
                .with_context(|| format!("`{spec}`: constant:<Mbit/s> needs a number"))?;
            check_mbps(spec, mbps, true)?;
            (vec![(0.0, mbps)], constant_period_ms(mbps))
        } else if let Some(body) = spec.strip_prefix("steps:") {
            let Some((schedule, period)) = body.rsplit_once('@') else {
                bail!("`{spec}`: steps:START_S:MBPS,...@PERIOD_S needs its period, e.g. steps:0:24,10:6@20");
            };
            let period_s: f64 = period.trim().parse().with_context(|| {
                format!("`{spec}`: period `{period}` is not a number of seconds")
            })?;
            if !(period_s.is_finite() && period_s >= 0.001) {
                bail!("`{spec}`: the period must be at least 0.001 s, got {period_s}");
            }
            let schedule = synth::parse_schedule(spec, schedule)?;
            for (t, mbps) in &schedule {
                check_mbps(&format!("`{spec}` at {t} s"), *mbps, false)?;
                if *t >= period_s {
                    bail!("`{spec}`: the step at {t} s is not inside the {period_s} s period");
                }
            }
            (schedule, (period_s * 1000.0).round() as u64)
        } else {
            return Ok(None);
        };
        synth::check_schedule(&schedule, period_ms).with_context(|| format!("`{spec}`"))?;
        Ok(Some(RateSpec {
            text: spec.to_string(),
            schedule,
            period_ms,
        }))
    }

    /// The spec as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The trace, named by the spec.
    pub fn trace(&self) -> Result<Trace> {
        let opportunities = synth::from_rate(&self.schedule, self.period_ms)
            .with_context(|| format!("`{}`", self.text))?;
        Ok(Trace {
            path: PathBuf::from(&self.text),
            opportunities,
        })
    }
}

/// Parses `constant:…`/`steps:…` into a trace named by the spec; None when
/// `spec` is not a rate spec (a file name).
pub fn parse(spec: &str) -> Result<Option<Trace>> {
    RateSpec::parse(spec)?.map(|r| r.trace()).transpose()
}

/// One trace as users name it: a rate spec, or a trace file (plain or
/// gzip) named as given, found where the caller looks for traces.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceSpec {
    Rate(RateSpec),
    File(String),
}

impl TraceSpec {
    /// A rate spec if it is one (checked), else a file name.
    pub fn parse(spec: &str) -> Result<TraceSpec> {
        Ok(match RateSpec::parse(spec)? {
            Some(r) => TraceSpec::Rate(r),
            None => TraceSpec::File(spec.to_string()),
        })
    }

    /// The trace, a file found by `resolve` first; and its name: the
    /// rate spec, or the file's path as found.
    pub fn load(&self, resolve: &dyn Fn(&str) -> Result<PathBuf>) -> Result<(Trace, String)> {
        match self {
            TraceSpec::Rate(r) => Ok((r.trace()?, r.text.clone())),
            TraceSpec::File(f) => {
                let path = resolve(f)?;
                Ok((Trace::load(&path)?, path.display().to_string()))
            }
        }
    }
}

impl std::fmt::Display for TraceSpec {
    /// As written.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceSpec::Rate(r) => f.write_str(&r.text),
            TraceSpec::File(name) => f.write_str(name),
        }
    }
}

/// One second when it holds a whole number of 1500-byte opportunities,
/// else three (whole for any rate given to 0.004 Mbit/s).
fn constant_period_ms(mbps: f64) -> u64 {
    let per_s = mbps * 1000.0 / synth::MBPS_PER_OPPORTUNITY_PER_MS;
    if (per_s - per_s.round()).abs() < 1e-6 {
        1000
    } else {
        3000
    }
}

/// A warning for a trace whose peak (over whole seconds) is above
/// [`VALIDATED_MBPS`], naming it; None below.
pub fn rate_warning(trace: &Trace) -> Option<String> {
    let peak = trace.summary().peak_mbps;
    // A whole second holds whole opportunities: 4000 Mbit/s peaks a hair above.
    (peak > VALIDATED_MBPS + 0.1).then(|| {
        format!(
            "warning: {} peaks at {peak:.0} Mbit/s, above the {VALIDATED_MBPS:.0} Mbit/s the emulator is \
             validated for on a 2-core machine (docs/emulator.md): check the run's delivered ÷ capacity \
             and scheduling error before trusting it",
            trace.path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A rate spec's trace, or a file's.
    fn load(spec: &str) -> Result<Trace> {
        TraceSpec::parse(spec)?
            .load(&|f| Ok(PathBuf::from(f)))
            .map(|(t, _)| t)
    }

    fn err(spec: &str) -> String {
        format!("{:#}", load(spec).unwrap_err())
    }

    /// Found by fuzz/fuzz_targets/rate_spec.rs: a period of 10^127 s (or
    /// a week at 10 Gbit/s) was generated before anything checked it,
    /// until the fuzzer's time and memory limits stopped it. Now refused,
    /// at once, with the reason.
    #[test]
    fn a_period_too_long_or_too_large_is_refused_before_it_is_made() {
        let start = std::time::Instant::now();
        let e = err(&format!("steps:0:24,10:6@{}", "6".repeat(128)));
        assert!(e.contains("longer than a week"), "{e}");
        let e = err("steps:0:10000@604800");
        assert!(
            e.contains("delivery opportunities") && e.contains("shorten its period"),
            "{e}"
        );
        // 1 Gbit/s for 20 minutes is the most a trace may hold.
        let e = err("steps:0:1000@1201");
        assert!(e.contains("100083333 delivery opportunities"), "{e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn constant_rates_are_exact_and_loop() {
        let t = load("constant:12").unwrap();
        assert_eq!(t.opportunities, (1..=1000).collect::<Vec<_>>());
        assert_eq!(t.path, Path::new("constant:12"));
        let t = load("constant:100").unwrap();
        assert_eq!(t.period_ms(), 3000);
        assert!((t.summary().mean_mbps - 100.0).abs() < 1e-9);
        let t = load("constant:0.5").unwrap();
        assert!((t.summary().mean_mbps - 0.5).abs() < 1e-9);
    }

    #[test]
    fn steps_follow_their_schedule_and_period() {
        let t = load("steps:0:24,1:0,1.5:12@2").unwrap();
        assert_eq!(t.period_ms(), 2000);
        let count = |a, b| t.opportunities.iter().filter(|&&x| x > a && x <= b).count();
        assert_eq!(
            (count(0, 1000), count(1000, 1500), count(1500, 2000)),
            (2000, 0, 500)
        );
    }

    #[test]
    fn bad_and_absurd_rates_are_refused_with_the_spec_named() {
        for (spec, says) in [
            ("constant:x", "needs a number"),
            ("constant:0", "not a rate"),
            ("constant:-3", "not a rate"),
            ("constant:inf", "not a rate"),
            ("constant:100000", "above the 10000"),
            ("steps:0:24,10:6", "needs its period"),
            ("steps:0:24,10:20000@20", "above the 10000"),
            ("steps:0:24,30:6@20", "not inside"),
            ("steps:1:24@20", "start at 0"),
            ("steps:0:0@5", "no capacity"),
            // 1.25 opportunities a ms over 0.8 ms, but no whole ms of it.
            ("steps:0:0,0.0012:15@0.002", "no capacity"),
        ] {
            let e = err(spec);
            assert!(e.contains(spec) && e.contains(says), "{spec}: {e}");
        }
        assert!(err("/nonexistent/x.down").contains("/nonexistent/x.down"));
        // Refused when parsed, before any trace is made.
        assert!(RateSpec::parse("steps:0:0,0.0012:15@0.002").is_err());
        assert!(RateSpec::parse("steps:0:0,0.001:15@0.002")
            .unwrap()
            .is_some());
    }

    #[test]
    fn fast_traces_warn() {
        assert!(rate_warning(&load("constant:4000").unwrap()).is_none());
        let w = rate_warning(&load("constant:8000").unwrap()).unwrap();
        assert!(
            w.contains("constant:8000") && w.contains("8000 Mbit/s"),
            "{w}"
        );
    }

    #[test]
    fn gzip_traces_read_as_the_plain_file() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let text = "1\n1\n3\n7\n";
        let plain = dir.path().join("t.down");
        std::fs::write(&plain, text).unwrap();
        let gz = dir.path().join("t.down.gz");
        let mut enc = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::default(),
        );
        enc.write_all(text.as_bytes()).unwrap();
        enc.finish().unwrap();
        let (a, b) = (
            load(plain.to_str().unwrap()).unwrap(),
            load(gz.to_str().unwrap()).unwrap(),
        );
        assert_eq!(a.opportunities, b.opportunities);
        assert_eq!(b.path, gz);
        // A damaged gzip file is an error naming it, not a short trace.
        let bytes = std::fs::read(&gz).unwrap();
        std::fs::write(&gz, &bytes[..bytes.len() - 6]).unwrap();
        let e = err(gz.to_str().unwrap());
        assert!(e.contains("t.down.gz") && e.contains("cannot read"), "{e}");
    }
}
