// SPDX-License-Identifier: GPL-2.0-only
//! One kind of chart, drawn with plotters into SVG and PNG: series of (x, y)
//! points as lines, markers or a filled area, over a linear, logarithmic or
//! reversed logarithmic x axis (delay axes run right-to-left so that up and
//! to the right is better, as in the C2TCP and Sprout papers). Panels stack
//! vertically into one figure.
//!
//! Log axes are drawn as a linear axis of log10(x) with ticks at 1-2-5
//! values, which lets one code path serve all three scales.
//!
//! Text needs a font even in SVG (plotters measures labels); bitmaps need
//! one to draw. We read a TrueType file at run time (fonts-dejavu-core on
//! Debian, or C2TCP_FONT) instead of linking fontconfig.
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::prelude::*;

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

/// Writes `dir/stem.svg` and `dir/stem.png`; returns their paths.
pub fn render(panels: &[Panel], dir: &Path, stem: &str, size: (u32, u32)) -> Result<Vec<PathBuf>> {
    ensure_font().map_err(|e| anyhow!(e))?;
    let svg = dir.join(format!("{stem}.svg"));
    let png = dir.join(format!("{stem}.png"));
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        draw_figure(&root, panels)?;
        root.present()?;
    }
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        draw_figure(&root, panels)?;
        root.present()?;
    }
    Ok(vec![svg, png])
}

fn draw_figure<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, panels: &[Panel]) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let areas = root.split_evenly((panels.len().max(1), 1));
    for (panel, area) in panels.iter().zip(&areas) {
        draw_panel(area, panel)?;
    }
    Ok(())
}

/// Ticks at "nice" values: 1-2-5 decades on log axes (finer, then linear
/// steps, when the data span too little of a decade), round steps on linear.
fn ticks(scale: Scale, lo: f64, hi: f64) -> Vec<f64> {
    if !scale.is_log() {
        return linear_ticks(lo, hi);
    }
    let (a, b) = (scale.value_at(lo), scale.value_at(hi));
    let (lo, hi) = (a.min(b), a.max(b));
    let at = |mantissas: &[f64]| {
        let mut out = Vec::new();
        for decade in (lo.log10().floor() as i32)..=(hi.log10().ceil() as i32) {
            for m in mantissas {
                let v = m * 10f64.powi(decade);
                if v >= lo && v <= hi {
                    out.push(scale.axis_at(v));
                }
            }
        }
        out
    };
    // 1-2-5 per decade, powers of ten alone over many decades (their labels
    // would run into each other), finer steps within less than a decade.
    let coarse = at(&[1.0, 2.0, 5.0]);
    if coarse.len() > 12 {
        return at(&[1.0]);
    }
    if coarse.len() >= 3 {
        return coarse;
    }
    let fine = at(&[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    if fine.len() >= 3 {
        return fine;
    }
    linear_ticks(lo, hi)
        .into_iter()
        .filter(|&v| v > 0.0)
        .map(|v| scale.axis_at(v))
        .collect()
}

fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let raw = (hi - lo) / 6.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(raw);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A linear f64 axis with our own ticks (plotters' `with_key_points` on f64
/// loses the value formatter that `configure_mesh` needs).
struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let fraction = (value - self.lo) / (self.hi - self.lo);
        limit.0 + (fraction * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// Decimals that tell neighbouring ticks apart (values, not axis units).
fn tick_decimals(values: &[f64]) -> usize {
    let spacing = values
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .filter(|d| *d > 0.0)
        .fold(f64::MAX, f64::min);
    if spacing == f64::MAX {
        return 2;
    }
    (-spacing.log10()).ceil().clamp(0.0, 6.0) as usize
}

fn tick_label(v: f64, decimals: usize) -> String {
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

fn padded(lo: f64, hi: f64, fraction: f64) -> (f64, f64) {
    if hi - lo < 1e-12 {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        (lo - pad, hi + pad)
    } else {
        let pad = (hi - lo) * fraction;
        (lo - pad, hi + pad)
    }
}

fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, panel: &Panel) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let scale = panel.x_scale;
    if !panel.has_data() {
        area.draw(&Text::new(
            format!("{}: no data", panel.title),
            (20, 20),
            ("sans-serif", 16),
        ))?;
        return Ok(());
    }
    let usable = |x: f64| panel.usable(x);
    let points = || {
        panel.series.iter().flat_map(|s| {
            s.points
                .iter()
                .map(|p| (p.x, p.y))
                .chain(s.faint.iter().copied())
        })
    };
    let xs: Vec<f64> = points()
        .map(|(x, _)| x)
        .filter(|&x| usable(x))
        .map(|x| scale.axis_at(x))
        .collect();
    let ys: Vec<f64> = points()
        .filter(|&(x, y)| usable(x) && y.is_finite())
        .map(|(_, y)| y)
        .collect();
    let (x_lo, x_hi) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let (x_lo, x_hi) = if scale.is_log() || panel.series.iter().any(|s| s.markers) {
        padded(x_lo, x_hi, 0.08)
    } else {
        padded(x_lo, x_hi, 0.0)
    };
    let (y_lo, y_hi) = panel.y_range.unwrap_or_else(|| {
        let (lo, hi) = ys
            .iter()
            .fold((0f64, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
        if hi <= lo {
            (lo, lo + 1.0)
        } else {
            (lo, hi + (hi - lo) * 0.08)
        }
    });
    let x_ticks = ticks(scale, x_lo, x_hi);
    let y_ticks = ticks(Scale::Linear, y_lo, y_hi);
    let x_values: Vec<f64> = x_ticks.iter().map(|u| scale.value_at(*u)).collect();
    let (x_decimals, y_decimals) = (tick_decimals(&x_values), tick_decimals(&y_ticks));
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            Axis {
                lo: x_lo,
                hi: x_hi,
                ticks: x_ticks,
            },
            Axis {
                lo: y_lo,
                hi: y_hi,
                ticks: y_ticks,
            },
        )?;
    let x_label = |u: &f64| tick_label(scale.value_at(*u), x_decimals);
    let y_label = |y: &f64| tick_label(*y, y_decimals);
    chart
        .configure_mesh()
        .x_desc(&panel.x_desc)
        .y_desc(&panel.y_desc)
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()?;
    for &mark in &panel.x_marks {
        if usable(mark) {
            let u = scale.axis_at(mark);
            chart.draw_series(LineSeries::new(
                [(u, y_lo), (u, y_hi)],
                RGBColor(160, 160, 160).stroke_width(1),
            ))?;
        }
    }
    let mut legend = false;
    let mut drawn = Vec::new();
    let mut placed = Vec::new();
    // Data units per pixel, to place point labels by pixels.
    let (w_px, h_px) = chart.plotting_area().dim_in_pixel();
    let x_per_px = (x_hi - x_lo) / f64::from(w_px.max(1));
    let y_per_px = (y_hi - y_lo) / f64::from(h_px.max(1));
    for series in &panel.series {
        let c = color(series.color);
        let pts: Vec<(f64, f64)> = series
            .points
            .iter()
            .filter(|p| usable(p.x) && p.y.is_finite())
            .map(|p| (scale.axis_at(p.x), p.y))
            .collect();
        let faint: Vec<(f64, f64)> = series
            .faint
            .iter()
            .filter(|p| usable(p.0) && p.1.is_finite())
            .map(|&(x, y)| (scale.axis_at(x), y))
            .collect();
        chart.draw_series(
            faint
                .iter()
                .map(|&p| Circle::new(p, 3, c.mix(0.35).filled())),
        )?;
        let anno = if series.area {
            chart.draw_series(
                AreaSeries::new(pts.iter().copied(), 0.0, c.mix(0.18)).border_style(c.mix(0.5)),
            )?
        } else if series.line {
            chart.draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))?
        } else {
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 6, c.filled())))?
        };
        let to_unit =
            |&(u, y): &(f64, f64)| ((u - x_lo) / (x_hi - x_lo), (y - y_lo) / (y_hi - y_lo));
        if series.line || series.area {
            drawn.extend(pts.windows(2).flat_map(|w| {
                let (a, b) = (to_unit(&w[0]), to_unit(&w[1]));
                (0..=16).map(move |i| {
                    let t = i as f64 / 16.0;
                    (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
                })
            }));
        }
        drawn.extend(pts.iter().chain(&faint).map(to_unit));
        if !series.name.is_empty() {
            legend = true;
            anno.label(&series.name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.filled()));
        }
        if series.markers && (series.line || series.area) {
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 5, c.filled())))?;
        }
        for (p, (u, y)) in series
            .points
            .iter()
            .filter(|p| usable(p.x) && p.y.is_finite())
            .zip(&pts)
        {
            if let Some(text) = &p.label {
                // Labels of points that coincide (two schemes with the same
                // result) are stacked downwards instead of printed over each
                // other.
                let (x_px, y_px) = chart.backend_coord(&(*u, *y));
                let at = (x_px + LABEL_GAP_PX, y_px);
                let lines_down = label_slot(&mut placed, at, text.chars().count());
                chart.draw_series([Text::new(
                    text.clone(),
                    (
                        *u + f64::from(LABEL_GAP_PX) * x_per_px,
                        *y - f64::from(lines_down * LABEL_LINE_PX) * y_per_px,
                    ),
                    ("sans-serif", 12).into_font().color(&c),
                )])?;
            }
        }
    }
    if legend {
        chart
            .configure_series_labels()
            .position(legend_corner(
                &drawn,
                panel.series.iter().filter(|s| !s.name.is_empty()).count(),
            ))
            .label_font(("sans-serif", 13))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(200, 200, 200))
            .draw()?;
    }
    Ok(())
}

/// A point label's line height and character width in pixels (12-px sans).
const LABEL_LINE_PX: u32 = 14;
const LABEL_CHAR_PX: i32 = 7;
/// Between a point's centre and its label: the marker's radius and a bit.
const LABEL_GAP_PX: i32 = 8;

/// How many lines below its point a label of `chars` characters anchored at
/// pixel `at` must go to clear the labels already `placed` (pixel boxes
/// x0, y0, x1, y1), and records its box.
fn label_slot(placed: &mut Vec<(i32, i32, i32, i32)>, at: (i32, i32), chars: usize) -> u32 {
    let width = LABEL_CHAR_PX * chars as i32;
    let line = LABEL_LINE_PX as i32;
    let mut lines_down = 0;
    loop {
        let y0 = at.1 + line * lines_down as i32;
        let rect = (at.0, y0, at.0 + width, y0 + line);
        let clear = placed
            .iter()
            .all(|p| rect.2 <= p.0 || p.2 <= rect.0 || rect.3 <= p.1 || p.3 <= rect.1);
        if clear || lines_down == 8 {
            placed.push(rect);
            return lines_down;
        }
        lines_down += 1;
    }
}

/// The corner of the plot area whose legend box would hide the fewest of
/// the drawn points (in [0, 1]² plot coordinates, lines sampled along their
/// segments); upper right on a tie, where readers look first.
fn legend_corner(drawn: &[(f64, f64)], labels: usize) -> SeriesLabelPosition {
    // The legend's extent at the sizes `render` draws it: ~a quarter of the
    // width, a line of 13-px text per label.
    let (w, h) = (0.25, (0.05 + 0.07 * labels as f64).min(1.0));
    let corners = [
        (
            SeriesLabelPosition::UpperRight,
            (1.0 - w, 1.0),
            (1.0 - h, 1.0),
        ),
        (SeriesLabelPosition::UpperLeft, (0.0, w), (1.0 - h, 1.0)),
        (SeriesLabelPosition::LowerRight, (1.0 - w, 1.0), (0.0, h)),
        (SeriesLabelPosition::LowerLeft, (0.0, w), (0.0, h)),
    ];
    let hidden = |(_, (x0, x1), (y0, y1)): &(SeriesLabelPosition, (f64, f64), (f64, f64))| {
        drawn
            .iter()
            .filter(|(x, y)| (*x0..=*x1).contains(x) && (*y0..=*y1).contains(y))
            .count()
    };
    corners
        .iter()
        .min_by_key(|c| hidden(c))
        .map(|c| c.0.clone())
        .unwrap_or(SeriesLabelPosition::UpperRight)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_of_coinciding_points_stack() {
        let mut placed = Vec::new();
        assert_eq!(label_slot(&mut placed, (100, 100), 5), 0);
        assert_eq!(
            label_slot(&mut placed, (102, 100), 7),
            1,
            "same place: one line down"
        );
        assert_eq!(label_slot(&mut placed, (100, 100), 3), 2);
        assert_eq!(
            label_slot(&mut placed, (300, 100), 5),
            0,
            "far away: in place"
        );
    }

    #[test]
    fn the_legend_goes_where_it_hides_nothing() {
        // Lines rising to the upper right: the legend moves to upper left.
        let rising: Vec<(f64, f64)> = (0..=20)
            .map(|i| (i as f64 / 20.0, i as f64 / 20.0))
            .collect();
        assert!(matches!(
            legend_corner(&rising, 3),
            SeriesLabelPosition::UpperLeft
        ));
        // Nothing in the way: upper right.
        let low: Vec<(f64, f64)> = (0..=20).map(|i| (i as f64 / 20.0, 0.1)).collect();
        assert!(matches!(
            legend_corner(&low, 3),
            SeriesLabelPosition::UpperRight
        ));
    }

    #[test]
    fn log_ticks_fall_on_one_two_five() {
        let t: Vec<f64> = ticks(Scale::Log, 0.5f64.log10(), 30f64.log10())
            .iter()
            .map(|u| 10f64.powf(*u))
            .collect();
        let rounded: Vec<f64> = t.iter().map(|v| (v * 1000.0).round() / 1000.0).collect();
        assert_eq!(rounded, [0.5, 1.0, 2.0, 5.0, 10.0, 20.0]);
        let wide: Vec<f64> = ticks(Scale::Log, 0.0005f64.log10(), 20000f64.log10())
            .iter()
            .map(|u| 10f64.powf(*u))
            .collect();
        assert_eq!(wide.len(), 8, "one tick a decade, 0.001-10000: {wide:?}");
        let reversed = ticks(Scale::ReversedLog, -(100f64.log10()), -(10f64.log10()));
        assert_eq!(reversed.len(), 4, "10, 20, 50, 100: {reversed:?}");
        let narrow: Vec<f64> = ticks(Scale::Log, 118f64.log10(), 256f64.log10())
            .iter()
            .map(|u| 10f64.powf(*u).round())
            .collect();
        assert_eq!(
            narrow,
            [125.0, 150.0, 175.0, 200.0, 225.0, 250.0],
            "150 and 200 are too few: linear steps"
        );
        assert_eq!(
            ticks(Scale::Linear, 0.0, 60.0),
            [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
        );
    }

    #[test]
    fn tick_labels_tell_neighbours_apart() {
        assert_eq!(tick_label(50.0, tick_decimals(&[10.0, 20.0, 50.0])), "50");
        assert_eq!(tick_label(2.5, tick_decimals(&[2.0, 2.5, 3.0])), "2.5");
        assert_eq!(tick_label(0.05, tick_decimals(&[0.05, 0.1, 0.2])), "0.05");
        assert_eq!(
            tick_label(2000.0, tick_decimals(&[0.1, 0.2, 0.5, 2000.0])),
            "2000"
        );
        assert_eq!(
            tick_label(170.5, tick_decimals(&[170.0, 170.5, 171.0])),
            "170.5"
        );
        assert_eq!(tick_label(0.0, 3), "0");
    }
}
