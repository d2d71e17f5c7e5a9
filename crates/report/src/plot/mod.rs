// SPDX-License-Identifier: GPL-2.0-only
//! One kind of chart, drawn with plotters into SVG and PNG: series of (x, y)
//! points as lines, markers or a filled area, over a linear, logarithmic or
//! reversed logarithmic x axis (delay axes run right-to-left so that up and
//! to the right is better, as in the C2TCP and Sprout papers). Panels stack
//! vertically into one figure, or fill a grid row by row.
//!
//! Log axes are drawn as a linear axis of log10(x) with ticks at 1-2-5
//! values, which lets one code path serve all three scales.
//!
//! Text needs a font even in SVG (plotters measures labels); bitmaps need
//! one to draw. We read a TrueType file at run time (fonts-dejavu-core on
//! Debian, or C2TCP_FONT) instead of linking fontconfig.
mod axis;
mod panel;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

use panel::draw_panel;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    Log,
    /// Log, large values on the left.
    ReversedLog,
}

impl Scale {
    fn axis_at(self, x: f64) -> f64 {
        match self {
            Scale::Linear => x,
            Scale::Log => x.log10(),
            Scale::ReversedLog => -x.log10(),
        }
    }

    fn value_at(self, u: f64) -> f64 {
        match self {
            Scale::Linear => u,
            Scale::Log => 10f64.powf(u),
            Scale::ReversedLog => 10f64.powf(-u),
        }
    }

    fn is_log(self) -> bool {
        self != Scale::Linear
    }
}

#[derive(Clone, Debug)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    /// Written beside the marker.
    pub label: Option<String>,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Point {
        Point { x, y, label: None }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Series {
    pub name: String,
    /// Index into the palette: the same configuration keeps its colour.
    pub color: usize,
    pub points: Vec<Point>,
    pub line: bool,
    pub markers: bool,
    /// Filled down to y = 0 in a light tint (capacity).
    pub area: bool,
    /// Small faded markers, e.g. the repetitions behind a mean.
    pub faint: Vec<(f64, f64)>,
}

impl Series {
    /// Points joined by a line.
    pub fn line(name: impl Into<String>, color: usize, points: Vec<Point>) -> Series {
        Series {
            name: name.into(),
            color,
            points,
            line: true,
            ..Series::default()
        }
    }

    /// A line with a marker on each point (sweeps).
    pub fn marked_line(name: impl Into<String>, color: usize, points: Vec<Point>) -> Series {
        Series {
            markers: true,
            ..Series::line(name, color, points)
        }
    }
}

#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub x_scale: Scale,
    /// Default: the data's, padded where markers would sit on the frame.
    /// Set it to give panels of one figure the same x axis (a run's time).
    pub x_range: Option<(f64, f64)>,
    /// Default: from 0 (or the data's minimum if negative) to 5% above the max.
    pub y_range: Option<(f64, f64)>,
    /// Vertical guide lines (e.g. the end of the warm-up).
    pub x_marks: Vec<f64>,
    pub series: Vec<Series>,
}

impl Panel {
    pub fn new(
        title: impl Into<String>,
        x_desc: impl Into<String>,
        y_desc: impl Into<String>,
        x_scale: Scale,
    ) -> Panel {
        Panel {
            title: title.into(),
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
            x_scale,
            x_range: None,
            y_range: None,
            x_marks: Vec::new(),
            series: Vec::new(),
        }
    }

    fn has_data(&self) -> bool {
        self.series
            .iter()
            .any(|s| s.points.iter().any(|p| self.usable(p.x)))
    }

    fn usable(&self, x: f64) -> bool {
        x.is_finite() && (!self.x_scale.is_log() || x > 0.0)
    }
}

/// Tableau 10: distinct, colour-blind-friendly enough, prints well.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Where fonts are looked for, in order, after `$C2TCP_FONT`.
pub const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

/// Registers a font once per process; Err says what to install.
pub fn ensure_font() -> Result<(), String> {
    static FONT: OnceLock<Result<(), String>> = OnceLock::new();
    FONT.get_or_init(|| {
        let from_env = std::env::var("C2TCP_FONT").ok();
        let paths = from_env.iter().map(String::as_str).chain(FONT_PATHS.iter().copied());
        for path in paths {
            if let Ok(bytes) = std::fs::read(path) {
                // plotters keeps fonts for the process's lifetime.
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return Ok(());
                }
            }
        }
        Err(format!(
            "no TrueType font found (tried $C2TCP_FONT and {}); install the Debian package fonts-dejavu-core",
            FONT_PATHS.join(", ")
        ))
    })
    .clone()
}

/// Text sizes in plotters' units; its SVG backend writes them ÷ 1.24, so
/// the smallest here is 12 px in the SVG, legible where the report shows a
/// figure at its own width (report.html's column is 1 068 px).
pub(crate) mod text_px {
    pub const CAPTION: u32 = 20;
    pub const AXIS_DESC: u32 = 16;
    pub const TICK: u32 = 15;
    pub const LEGEND: u32 = 15;
    pub const POINT_LABEL: u32 = 15;
}

/// Writes `dir/stem.svg` and `dir/stem.png`, the panels in `columns`
/// columns, row by row; returns their paths.
pub fn render(
    panels: &[Panel],
    columns: usize,
    dir: &Path,
    stem: &str,
    size: (u32, u32),
) -> Result<Vec<PathBuf>> {
    ensure_font().map_err(|e| anyhow!(e))?;
    let svg = dir.join(format!("{stem}.svg"));
    let png = dir.join(format!("{stem}.png"));
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        draw_figure(&root, panels, columns)?;
        root.present()?;
    }
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        draw_figure(&root, panels, columns)?;
        root.present()?;
    }
    Ok(vec![svg, png])
}

fn draw_figure<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    panels: &[Panel],
    columns: usize,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let columns = columns.clamp(1, panels.len().max(1));
    let rows = panels.len().div_ceil(columns).max(1);
    let areas = root.split_evenly((rows, columns));
    for (panel, area) in panels.iter().zip(&areas) {
        draw_panel(area, panel)?;
    }
    Ok(())
}
