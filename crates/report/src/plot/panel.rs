// SPDX-License-Identifier: GPL-2.0-only
//! One panel drawn: its axes, its series (lines, markers, areas, faint
//! repetitions), point labels placed clear of each other, and the legend
//! in the corner where it hides the least.
use anyhow::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{padded, tick_decimals, tick_label, ticks, Axis};
use super::{color, text_px, Panel, Scale};

pub(super) fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let scale = panel.x_scale;
    if !panel.has_data() {
        area.draw(&Text::new(
            format!("{}: no data", panel.title),
            (20, 20),
            ("sans-serif", text_px::CAPTION),
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
    let (x_lo, x_hi) = match panel.x_range.filter(|&(lo, hi)| usable(lo) && usable(hi)) {
        Some((lo, hi)) => (scale.axis_at(lo), scale.axis_at(hi)),
        None => {
            let (lo, hi) = xs
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            if scale.is_log() || panel.series.iter().any(|s| s.markers) {
                padded(lo, hi, 0.08)
            } else {
                padded(lo, hi, 0.0)
            }
        }
    };
    // A reversed axis's range comes out reversed from axis_at.
    let (x_lo, x_hi) = (x_lo.min(x_hi), x_lo.max(x_hi));
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
        .caption(&panel.title, ("sans-serif", text_px::CAPTION))
        .margin(12)
        .margin_right(24)
        .x_label_area_size(48)
        .y_label_area_size(72)
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
        .label_style(("sans-serif", text_px::TICK))
        .axis_desc_style(("sans-serif", text_px::AXIS_DESC))
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
    let mut labels = Vec::new();
    // Data units per pixel, to place point labels by pixels.
    let (w_px, h_px) = chart.plotting_area().dim_in_pixel();
    let plot_px = chart.plotting_area().get_pixel_range().0;
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
        for (p, &(u, y)) in series
            .points
            .iter()
            .filter(|p| usable(p.x) && p.y.is_finite())
            .zip(&pts)
        {
            let (x_px, y_px) = chart.backend_coord(&(u, y));
            // Every marker is in the way of every label.
            placed.push((
                x_px - MARKER_PX,
                y_px - MARKER_PX,
                x_px + MARKER_PX,
                y_px + MARKER_PX,
            ));
            if let Some(text) = &p.label {
                labels.push((u, y, x_px, y_px, text.clone(), c));
            }
        }
    }
    // Labels go once every marker is known, each beside its point where it
    // covers neither a marker nor another label.
    let font = ("sans-serif", text_px::POINT_LABEL).into_font();
    for (u, y, x_px, y_px, text, c) in labels {
        let (width, height) = chart
            .plotting_area()
            .estimate_text_size(&text, &TextStyle::from(font.clone()))?;
        let line = height as i32 + 2;
        let (side, lines_down) = place_label(
            &mut placed,
            (x_px, y_px),
            (width as i32, line),
            plot_px.clone(),
        );
        let gap = f64::from(LABEL_GAP_PX) * x_per_px;
        // Anchored at the end nearer its point.
        let (anchor_u, anchor) = match side {
            LabelSide::Left => (u - gap, HPos::Right),
            LabelSide::Right => (u + gap, HPos::Left),
        };
        chart.draw_series([Text::new(
            text,
            (anchor_u, y - f64::from(lines_down * line as u32) * y_per_px),
            font.clone().color(&c).pos(Pos::new(anchor, VPos::Center)),
        )])?;
    }
    if legend {
        chart
            .configure_series_labels()
            .position(legend_corner(
                &drawn,
                panel.series.iter().filter(|s| !s.name.is_empty()).count(),
            ))
            .label_font(("sans-serif", text_px::LEGEND))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(200, 200, 200))
            .draw()?;
    }
    Ok(())
}

/// Between a point's centre and its label: the marker's radius and a bit.
const LABEL_GAP_PX: i32 = 10;
/// Half a marker's box, as labels keep clear of it.
const MARKER_PX: i32 = 6;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LabelSide {
    Left,
    Right,
}

/// Where a label of `size` (width, line height in pixels) for the point at
/// pixel `at` goes: beside it, on the right as readers expect or else on
/// the left, on the first line (from the point's own downwards) where it
/// covers nothing `placed` (pixel boxes x0, y0, x1, y1: markers and labels)
/// and stays inside the plot's columns `plot_px` (the best schemes sit on
/// the right edge of a reversed delay axis). Records its box.
fn place_label(
    placed: &mut Vec<(i32, i32, i32, i32)>,
    at: (i32, i32),
    size: (i32, i32),
    plot_px: std::ops::Range<i32>,
) -> (LabelSide, u32) {
    let (width, line) = size;
    let rect = |side, lines_down: u32| {
        let x0 = match side {
            LabelSide::Right => at.0 + LABEL_GAP_PX,
            LabelSide::Left => at.0 - LABEL_GAP_PX - width,
        };
        let y0 = at.1 - line / 2 + line * lines_down as i32;
        (x0, y0, x0 + width, y0 + line)
    };
    let inside = |r: (i32, i32, i32, i32)| plot_px.start <= r.0 && r.2 <= plot_px.end;
    let clear = |r: (i32, i32, i32, i32), placed: &[(i32, i32, i32, i32)]| {
        placed
            .iter()
            .all(|p| r.2 <= p.0 || p.2 <= r.0 || r.3 <= p.1 || p.3 <= r.1)
    };
    let sides = [LabelSide::Right, LabelSide::Left];
    let found = (0..=8u32).find_map(|lines_down| {
        sides
            .iter()
            .map(|&side| (side, lines_down))
            .find(|&(side, lines_down)| {
                let r = rect(side, lines_down);
                inside(r) && clear(r, placed)
            })
    });
    // Crowded: on its own line, on whichever side has the room.
    let (side, lines_down) = found.unwrap_or_else(|| {
        let fits_right = inside(rect(LabelSide::Right, 0));
        let room_left = at.0 - plot_px.start;
        let room_right = plot_px.end - at.0;
        if fits_right || room_right >= room_left {
            (LabelSide::Right, 0)
        } else {
            (LabelSide::Left, 0)
        }
    });
    placed.push(rect(side, lines_down));
    (side, lines_down)
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
    fn labels_go_beside_their_points_clear_of_each_other_and_the_edges() {
        let plot = 60..900;
        let mut placed = Vec::new();
        let place =
            |placed: &mut Vec<_>, at, width| place_label(placed, at, (width, 14), plot.clone());
        assert_eq!(place(&mut placed, (200, 100), 35), (LabelSide::Right, 0));
        assert_eq!(
            place(&mut placed, (200, 100), 49),
            (LabelSide::Left, 0),
            "the same point: the other side"
        );
        assert_eq!(
            place(&mut placed, (200, 100), 21),
            (LabelSide::Right, 1),
            "both sides taken: one line down"
        );
        assert_eq!(
            place(&mut placed, (100, 130), 49),
            (LabelSide::Right, 0),
            "no room on the left: the right, below the first label"
        );
        assert_eq!(
            place(&mut placed, (400, 100), 35),
            (LabelSide::Right, 0),
            "far away"
        );
        assert_eq!(
            place(&mut placed, (850, 300), 80),
            (LabelSide::Left, 0),
            "at the right edge: on the left"
        );
        // A marker in the way on the right.
        let mut placed = vec![(140, 94, 152, 106)];
        assert_eq!(place(&mut placed, (120, 100), 40), (LabelSide::Left, 0));
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
