// SPDX-License-Identifier: GPL-2.0-only
//! Per trace: throughput against delay, one marker per configuration (C2TCP
//! Table I's schemes, Fig. 15; the mobile edge, Fig. 17; Sprout Fig. 7),
//! and the queueing-delay CDF.
use std::collections::BTreeMap;

use super::{Colors, DelayStat};
use crate::layout::Run;
use crate::plot::{Panel, Point, Scale, Series};
use crate::summary::{Config, ConfigSummary};

/// One marker per configuration (its repetitions' mean), the repetitions faint.
pub fn throughput_delay(
    trace: &str,
    summaries: &[ConfigSummary],
    runs: &[Run],
    stat: DelayStat,
    colors: &Colors,
) -> Panel {
    let what = match stat {
        DelayStat::Mean => "Avg. queueing delay",
        DelayStat::P95 => "95th percentile queueing delay",
    };
    let mut panel = Panel::new(
        format!("{trace}: throughput vs {}", what.to_lowercase()),
        format!("{what} (ms, log scale; better →)"),
        "Throughput (Mbit/s)",
        Scale::ReversedLog,
    );
    for s in summaries.iter().filter(|s| s.trace == trace) {
        let (Some(x), Some(y)) = (
            s.means.get(stat.key()).copied().flatten(),
            s.means.get("throughput_mbps").copied().flatten(),
        ) else {
            continue;
        };
        let faint = runs
            .iter()
            .filter(|r| r.info.id.trace == trace && Config::of(r) == s.config)
            .filter_map(|r| {
                stat.get(&r.analysis.aggregate)
                    .map(|d| (d, r.analysis.aggregate.throughput_mbps))
            })
            .collect();
        panel.series.push(Series {
            color: colors.of(&s.config),
            points: vec![Point {
                x,
                y,
                label: Some(s.config.name()),
            }],
            markers: true,
            faint,
            ..Series::default()
        });
    }
    panel
}

/// Queueing-delay CDF per configuration; repetitions averaged quantile by quantile.
pub fn delay_cdf(trace: &str, runs: &[Run], colors: &Colors) -> Panel {
    let mut panel = Panel::new(
        format!("{trace}: queueing delay CDF"),
        "Queueing delay (ms, log scale)",
        "Fraction of packets",
        Scale::Log,
    );
    panel.y_range = Some((0.0, 1.0));
    let mut by_config: BTreeMap<Config, Vec<&Run>> = BTreeMap::new();
    for r in runs.iter().filter(|r| r.info.id.trace == trace) {
        by_config.entry(Config::of(r)).or_default().push(r);
    }
    for (config, reps) in by_config {
        let mut per_quantile: BTreeMap<u64, (f64, f64, usize)> = BTreeMap::new();
        for r in &reps {
            for p in &r.analysis.delay_cdf.points {
                let e = per_quantile
                    .entry((p.quantile * 1e6).round() as u64)
                    .or_insert((p.quantile, 0.0, 0));
                e.1 += p.queue_delay_ms;
                e.2 += 1;
            }
        }
        let points = per_quantile
            .values()
            .map(|&(q, sum, n)| Point::new(sum / n as f64, q))
            .collect();
        panel
            .series
            .push(Series::line(config.name(), colors.of(&config), points));
    }
    panel
}
