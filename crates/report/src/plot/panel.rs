// SPDX-License-Identifier: GPL-2.0-only
//! One panel drawn: its axes, its series (lines, markers, areas, faint
//! repetitions), point labels placed clear of each other, and the legend
//! in the corner where it hides the least.
use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::axis::{padded, tick_decimals, tick_label, ticks, Axis};
use super::{color, Panel, Scale};

pub(super) fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, panel: &Panel) -> Result<()>
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
}
