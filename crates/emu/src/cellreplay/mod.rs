// SPDX-License-Identifier: GPL-2.0-only
//! CellReplay's link model (Sentosa, Chandrasekaran, Godfrey, Hassanieh,
//! NSDI 2025; `williamsentosa95/cellreplay`, a Mahimahi fork), beside
//! Mahimahi's: read from the paper and the authors' `cellular_queue.cc`,
//! written anew here.
//!
//! Mahimahi replays one saturated ("heavy") trace: every workload sees the
//! capacity a backlogged sender measured, plus a fixed delay. CellReplay
//! records two things at once: the heavy trace (Mahimahi's format), and
//! every few ms a short train of packets, which gives the path's base
//! one-way delay at that moment and the times the train's packets arrived
//! ("light" delivery opportunities, what a short burst gets from a cell
//! that has not yet granted it more). On replay a packet goes through two
//! stages:
//!
//! 1. **Light stage** ([`stage::LightStage`], at arrival). A packet that
//!    comes after the link has been idle (its earliest release, now + base
//!    delay, is more than `idle` after the previous packet's release)
//!    starts a new train: the base delay is read from the light trace at
//!    this moment (interpolated between its rows) and the packet is
//!    released after it. Later packets of the train take the train's light
//!    opportunities in turn (each carries [`OPPORTUNITY_BYTES`], small
//!    packets share one, opportunities whose time passed unused are lost)
//!    and are released at train start + base delay + the opportunity's
//!    offset. A packet that finds the train used up goes on to the heavy
//!    stage, released into it after max(base delay, the train's last offset).
//!    An optional per-size latency offset ([`SizeOffsets`]) is added when it
//!    does not reorder packets; a packet is never released before the one
//!    ahead of it (it then goes to the heavy stage).
//! 2. **Heavy stage** (at release). A light-stage packet leaves at once if
//!    the heavy queue is empty and nothing is being sent; every other
//!    packet joins the bottleneck queue (droptail, CoDel, …, as for
//!    Mahimahi's model) served by the heavy trace's opportunities.
//!
//! So a lone packet after idle sees the recorded base delay, a burst that
//! fits the train sees the light opportunities' pace, and a backlog sees
//! the heavy trace's rate, which is where the link stays while the queue
//! holds packets.
//!
//! Differences from the authors' code, each deliberate: times are µs (the
//! base delay is interpolated to the µs rather than truncated to a ms); a
//! light opportunity carries 1500 bytes like a heavy one (the authors'
//! recorder sends 1400-byte packets and their shell refuses larger ones,
//! our MTU is 1500); both traces start with the emulation, not at the first
//! packet; the idle time defaults to 0, the authors' shell default (their
//! calibration script tunes it per network).
//!
//! Files (plain or gzip): the light trace, one row per train,
//! `TIME_MS BASE_DELAY_MS OFFSET_MS...` (offsets of the train's packets
//! after its first, the first being 0; at least three rows; the last row's
//! time is the loop period), as `record/trace-processor` writes it; the
//! heavy trace in Mahimahi's format; the size offsets `SIZE OFFSET_MS`
//! for sizes 100, 200, … bytes.
pub mod light_trace;
pub mod size_offsets;
pub mod stage;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};

pub use light_trace::LightTrace;
pub use size_offsets::SizeOffsets;
pub use stage::LightStage;

use crate::rate_spec::TraceSpec;
use crate::trace::Trace;
pub use crate::trace::OPPORTUNITY_BYTES;

/// The prefix of a CellReplay link spec.
pub const PREFIX: &str = "cellreplay:";

/// One direction's CellReplay model, minus the heavy trace (the link's own).
#[derive(Debug, Clone)]
pub struct CellReplay {
    pub light: Arc<LightTrace>,
    pub offsets: Option<Arc<SizeOffsets>>,
    /// Idle time after which the next packet starts a new train, µs.
    pub idle_us: u64,
}

impl CellReplay {
    /// The light stage, its trace's time 0 at `start` (µs).
    pub fn stage(&self, start: u64) -> LightStage {
        LightStage::new(
            self.light.clone(),
            self.offsets.clone(),
            self.idle_us,
            start,
        )
    }
}

/// `cellreplay:LIGHT,HEAVY[,offsets=FILE][,idle=MS]` taken apart.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub light: String,
    /// A heavy trace file or a rate spec (`constant:MBPS`).
    pub heavy: TraceSpec,
    pub offsets: Option<String>,
    pub idle_ms: f64,
}

impl Spec {
    /// None when `spec` is not a CellReplay spec.
    pub fn parse(spec: &str) -> Result<Option<Spec>> {
        let Some(body) = spec.strip_prefix(PREFIX) else {
            return Ok(None);
        };
        let usage = "cellreplay:LIGHT,HEAVY[,offsets=FILE][,idle=MS]";
        let mut parts = body.split(',').map(str::trim);
        let (Some(light), Some(heavy)) = (parts.next(), parts.next()) else {
            bail!("`{spec}`: expected {usage}");
        };
        if light.is_empty() || heavy.is_empty() || heavy.contains('=') {
            bail!("`{spec}`: expected {usage} (the light trace, then the heavy one)");
        }
        let mut out = Spec {
            light: light.into(),
            heavy: TraceSpec::parse(heavy)?,
            offsets: None,
            idle_ms: 0.0,
        };
        for kv in parts {
            match kv.split_once('=') {
                Some(("offsets", f)) if !f.is_empty() => out.offsets = Some(f.into()),
                Some(("idle", ms)) => {
                    out.idle_ms = ms
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite() && (0.0..=60_000.0).contains(x))
                        .with_context(|| {
                            format!("`{spec}`: idle `{ms}` is not a time in ms (0 to 60000)")
                        })?
                }
                _ => bail!("`{spec}`: `{kv}` is not offsets=FILE or idle=MS ({usage})"),
            }
        }
        Ok(Some(out))
    }

    /// Loads the files, each path passed through `resolve` first (the
    /// harness finds them as it finds traces). Returns the model and the
    /// heavy trace, which the link replays.
    pub fn load(&self, resolve: impl Fn(&str) -> Result<PathBuf>) -> Result<(CellReplay, Trace)> {
        let light = LightTrace::load(&resolve(&self.light)?)?;
        let (heavy, _) = self.heavy.load(&resolve)?;
        let offsets = match &self.offsets {
            Some(f) => Some(Arc::new(SizeOffsets::load(&resolve(f)?)?)),
            None => None,
        };
        Ok((
            CellReplay {
                light: Arc::new(light),
                offsets,
                idle_us: (self.idle_ms * 1000.0).round() as u64,
            },
            heavy,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_name_themselves() {
        assert_eq!(Spec::parse("x.down").unwrap(), None);
        let s = Spec::parse("cellreplay:l.txt, h.down ,offsets=o.txt,idle=12.5")
            .unwrap()
            .unwrap();
        assert_eq!(
            s,
            Spec {
                light: "l.txt".into(),
                heavy: TraceSpec::File("h.down".into()),
                offsets: Some("o.txt".into()),
                idle_ms: 12.5
            }
        );
        for (bad, says) in [
            ("cellreplay:l.txt", "expected"),
            ("cellreplay:l.txt,idle=3", "the light trace, then"),
            ("cellreplay:l,h,idle=-1", "not a time"),
            ("cellreplay:l,h,foo=1", "`foo=1`"),
        ] {
            let e = format!("{:#}", Spec::parse(bad).unwrap_err());
            assert!(e.contains(bad) && e.contains(says), "{bad}: {e}");
        }
    }
}
