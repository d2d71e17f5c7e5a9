// SPDX-License-Identifier: GPL-2.0-only
//! The papers' figures, as panels for `plot::render`, one kind a module:
//! - `scatter`: throughput vs delay per trace, delay on a reversed log axis
//!   (C2TCP Fig. 15 and 17, Sprout Fig. 7), for mean and 95th-percentile
//!   delay; queueing-delay CDFs per trace;
//! - `timeseries`: capacity, throughput and delay over time per run
//!   (C2TCP Fig. 7);
//! - `sweep`: a swept parameter across traces: delay and throughput against
//!   its value (buffer sweep, Fig. 21), throughput against delay with each
//!   point labelled by its value (Target sweep, Fig. 20), completion times
//!   against it (DFCSD);
//! - `share`: each flow's throughput over time where flows share a link,
//!   with Jain's index over the measurement window (friendliness, Fig. 18-19).
mod scatter;
mod share;
mod sweep;
mod timeseries;

use std::collections::{BTreeMap, BTreeSet};

use crate::layout::Run;
use crate::plot::Panel;
use crate::summary::Config;

pub use scatter::{delay_cdf, throughput_delay};
pub use share::{shares, ShareRow, Shares, SHARE_BIN_S};
pub use sweep::sweeps;
pub use timeseries::timeseries;

/// A figure to draw: its panels in a grid of `columns`, each panel
/// `panel_size` pixels, into `plots/<stem>.{svg,png}`.
#[derive(Clone, Debug)]
pub struct Figure {
    pub stem: String,
    /// What it shows, for the document's heading and alt text.
    pub caption: String,
    pub panels: Vec<Panel>,
    pub columns: usize,
    pub panel_size: (u32, u32),
}

impl Figure {
    /// The whole figure's size in pixels.
    pub fn size(&self) -> (u32, u32) {
        let columns = self.columns.clamp(1, self.panels.len().max(1));
        let rows = self.panels.len().div_ceil(columns).max(1);
        (
            self.panel_size.0 * columns as u32,
            self.panel_size.1 * rows as u32,
        )
    }
}

/// Stable colour per configuration across all figures. Each scheme's first
/// configuration takes the scheme's own colour (schemes in order), the other
/// configurations of a sweep come after them: a sweep figure colours by
/// scheme, and with 3 schemes × 5 values numbered in one run of 15 the
/// schemes' colours met again modulo the 10-colour palette.
pub struct Colors(BTreeMap<Config, usize>);

impl Colors {
    pub fn new(runs: &[Run]) -> Colors {
        Colors::of_configs(runs.iter().map(Config::of).collect())
    }

    fn of_configs(configs: BTreeSet<Config>) -> Colors {
        let mut seen_schemes = BTreeSet::new();
        let (firsts, rest): (Vec<_>, Vec<_>) = configs
            .into_iter()
            .partition(|c| seen_schemes.insert(c.scheme.clone()));
        Colors(
            firsts
                .into_iter()
                .chain(rest)
                .enumerate()
                .map(|(i, c)| (c, i))
                .collect(),
        )
    }

    fn of(&self, config: &Config) -> usize {
        self.0.get(config).copied().unwrap_or(0)
    }

    /// A scheme's colour: that of its first configuration.
    fn of_scheme(&self, scheme: &str) -> usize {
        self.0
            .iter()
            .find(|(c, _)| c.scheme == scheme)
            .map_or(0, |(_, &i)| i)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayStat {
    Mean,
    P95,
}

impl DelayStat {
    fn key(self) -> &'static str {
        match self {
            DelayStat::Mean => "avg_queue_delay_ms",
            DelayStat::P95 => "p95_queue_delay_ms",
        }
    }

    fn get(self, m: &metrics::Metrics) -> Option<f64> {
        match self {
            DelayStat::Mean => m.avg_queue_delay_ms,
            DelayStat::P95 => m.p95_queue_delay_ms,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DelayStat::Mean => "mean",
            DelayStat::P95 => "p95",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scheme_of_a_sweep_gets_its_own_colour() {
        let configs = ["cubic", "dfcsd", "drwa"]
            .iter()
            .flat_map(|s| {
                [2, 10, 20, 40, 80].map(|d| Config {
                    scheme: s.to_string(),
                    label: format!("delay_ms={d}"),
                })
            })
            .collect();
        let colors = Colors::of_configs(configs);
        let schemes: BTreeSet<usize> = ["cubic", "dfcsd", "drwa"]
            .iter()
            .map(|s| colors.of_scheme(s) % 10)
            .collect();
        assert_eq!(schemes.len(), 3, "{schemes:?}");
        // Configurations stay distinct too, as far as there are colours.
        let all: BTreeSet<usize> = colors.0.values().copied().collect();
        assert_eq!(all.len(), 15);
    }
}
