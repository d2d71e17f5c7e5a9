// SPDX-License-Identifier: GPL-2.0-only
//! Every figure of a report drawn into `plots/`, and where each went, for
//! the document to show.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::figures::{self, Colors, DelayStat};
use crate::layout::{self, Run};
use crate::plot;
use crate::summary::{self, ConfigSummary};
use crate::ReportOptions;

#[derive(Default)]
pub(crate) struct Figures {
    pub files: Vec<PathBuf>,
    /// Trace → relative SVG paths (scatter mean, scatter p95, CDF).
    pub per_trace: BTreeMap<String, Vec<String>>,
    /// (trace, param) → relative SVG paths.
    pub sweeps: Vec<((String, String), String)>,
    /// Run dir → relative SVG path.
    pub timeseries: BTreeMap<PathBuf, String>,
}

pub(crate) fn draw_figures(
    runs: &[Run],
    summaries: &[ConfigSummary],
    out_dir: &Path,
    options: &ReportOptions,
) -> Result<Figures> {
    let plots = out_dir.join("plots");
    std::fs::create_dir_all(&plots).with_context(|| format!("creating {}", plots.display()))?;
    let colors = Colors::new(runs);
    let mut f = Figures::default();
    let emit = |panels: &[plot::Panel],
                stem: String,
                size: (u32, u32),
                files: &mut Vec<PathBuf>|
     -> Result<String> {
        files.extend(
            plot::render(panels, &plots, &stem, size)
                .with_context(|| format!("plotting {stem}"))?,
        );
        Ok(format!("plots/{stem}.svg"))
    };
    let traces: BTreeSet<&str> = runs.iter().map(|r| r.info.id.trace.as_str()).collect();
    for trace in traces {
        let name = layout::component(trace);
        let mut paths = Vec::new();
        for stat in [DelayStat::Mean, DelayStat::P95] {
            let panel = figures::throughput_delay(trace, summaries, runs, stat, &colors);
            paths.push(emit(
                &[panel],
                format!("scatter-{name}-{}", stat.name()),
                (900, 560),
                &mut f.files,
            )?);
        }
        let cdf = figures::delay_cdf(trace, runs, &colors);
        paths.push(emit(
            &[cdf],
            format!("cdf-{name}"),
            (900, 560),
            &mut f.files,
        )?);
        f.per_trace.insert(trace.to_owned(), paths);
    }
    for sweep in figures::sweeps(runs, &colors) {
        let stem = format!(
            "sweep-{}-{}",
            layout::component(&sweep.trace),
            layout::component(&sweep.param)
        );
        let height = 420 * sweep.panels.len() as u32;
        let path = emit(&sweep.panels, stem, (900, height), &mut f.files)?;
        f.sweeps.push(((sweep.trace, sweep.param), path));
    }
    if options.timeseries_plots {
        for run in runs {
            let title = format!(
                "{} on {} rep{}",
                summary::Config::of(run).name(),
                run.info.id.trace,
                run.info.id.rep
            );
            let stem = format!(
                "timeseries-{}-{}-{}-rep{}",
                layout::component(&run.info.id.trace),
                layout::component(&run.info.id.scheme),
                layout::component(if run.info.label.is_empty() {
                    "default"
                } else {
                    &run.info.label
                }),
                run.info.id.rep
            );
            let path = emit(
                &figures::timeseries(&title, run),
                stem,
                (1000, 640),
                &mut f.files,
            )?;
            f.timeseries.insert(run.dir.clone(), path);
        }
    }
    Ok(f)
}
