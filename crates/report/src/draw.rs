// SPDX-License-Identifier: GPL-2.0-only
//! Every figure of a report drawn into `plots/`, and where each went, for
//! the document to show.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::figures::{self, Colors, DelayStat, Figure};
use crate::layout::{self, Run};
use crate::plot;
use crate::summary::{self, ConfigSummary};
use crate::ReportOptions;

#[derive(Default)]
pub(crate) struct Figures {
    pub files: Vec<PathBuf>,
    /// Trace → relative SVG paths (scatter mean, scatter p95, CDF).
    pub per_trace: BTreeMap<String, Vec<String>>,
    /// Per swept parameter: (caption, relative SVG path) of its figures.
    pub sweeps: Vec<(String, Vec<(String, String)>)>,
    /// The flows' shares over time: relative SVG path.
    pub shares: Option<String>,
    /// Run dir → relative SVG path.
    pub timeseries: BTreeMap<PathBuf, String>,
}

pub(crate) fn draw_figures(
    runs: &[Run],
    summaries: &[ConfigSummary],
    shares: Option<&figures::Shares>,
    out_dir: &Path,
    options: &ReportOptions,
) -> Result<Figures> {
    let plots = out_dir.join("plots");
    std::fs::create_dir_all(&plots).with_context(|| format!("creating {}", plots.display()))?;
    let colors = Colors::new(runs);
    let mut f = Figures::default();
    let emit = |figure: &Figure, files: &mut Vec<PathBuf>| -> Result<String> {
        let stem = &figure.stem;
        files.extend(
            plot::render(&figure.panels, figure.columns, &plots, stem, figure.size())
                .with_context(|| format!("plotting {stem}"))?,
        );
        Ok(format!("plots/{stem}.svg"))
    };
    let single = |stem: String, panels: Vec<plot::Panel>, size: (u32, u32)| Figure {
        stem,
        caption: String::new(),
        columns: 1,
        panel_size: (size.0, size.1 / panels.len().max(1) as u32),
        panels,
    };
    let traces: BTreeSet<&str> = runs.iter().map(|r| r.info.id.trace.as_str()).collect();
    for trace in traces {
        let name = layout::component(trace);
        let mut paths = Vec::new();
        for stat in [DelayStat::Mean, DelayStat::P95] {
            let panel = figures::throughput_delay(trace, summaries, runs, stat, &colors);
            paths.push(emit(
                &single(
                    format!("scatter-{name}-{}", stat.name()),
                    vec![panel],
                    (900, 560),
                ),
                &mut f.files,
            )?);
        }
        let cdf = figures::delay_cdf(trace, runs, &colors);
        paths.push(emit(
            &single(format!("cdf-{name}"), vec![cdf], (900, 560)),
            &mut f.files,
        )?);
        f.per_trace.insert(trace.to_owned(), paths);
    }
    for sweep in figures::sweeps(runs, &colors) {
        let mut drawn = Vec::new();
        for figure in &sweep.figures {
            drawn.push((figure.caption.clone(), emit(figure, &mut f.files)?));
        }
        f.sweeps.push((sweep.param, drawn));
    }
    if let Some(shares) = shares {
        f.shares = Some(emit(&shares.figure, &mut f.files)?);
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
                &single(stem, figures::timeseries(&title, run), (1000, 640)),
                &mut f.files,
            )?;
            f.timeseries.insert(run.dir.clone(), path);
        }
    }
    Ok(f)
}
