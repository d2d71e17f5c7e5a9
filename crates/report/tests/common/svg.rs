// SPDX-License-Identifier: GPL-2.0-only
//! Reads back what the report's SVG files say: the canvas and every piece
//! of text with where it is anchored, as plotters' SVG backend writes them
//! (`<svg width=.. height=.. viewBox=..>`, one `<text x y text-anchor
//! font-size [transform]>` element per label). Just enough of SVG for the
//! report's tests; anything else in the file is ignored.
use std::path::Path;

#[derive(Clone, Debug)]
pub struct Text {
    pub x: f64,
    pub y: f64,
    /// `start`, `middle` or `end`.
    pub anchor: String,
    /// As written in the SVG (plotters writes its font size ÷ 1.24).
    pub font_size: f64,
    /// Drawn turned a quarter (the y axis' description).
    pub rotated: bool,
    pub content: String,
}

impl Text {
    /// The number this text says, if it is one (a tick label).
    pub fn number(&self) -> Option<f64> {
        self.content.trim().parse().ok()
    }

    /// Its horizontal extent in pixels, given its width (for rotated text,
    /// its vertical extent around y).
    pub fn extent(&self, width: f64) -> (f64, f64) {
        let at = if self.rotated { self.y } else { self.x };
        match self.anchor.as_str() {
            "end" => (at - width, at),
            "middle" => (at - width / 2.0, at + width / 2.0),
            _ => (at, at + width),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Svg {
    pub width: f64,
    pub height: f64,
    pub texts: Vec<Text>,
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(tag[start..start + len].to_owned())
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

impl Svg {
    pub fn read(path: &Path) -> Svg {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        Svg::parse(&text).unwrap_or_else(|| panic!("{} is not plotters' SVG", path.display()))
    }

    pub fn parse(text: &str) -> Option<Svg> {
        let root_at = text.find("<svg")?;
        let root = &text[root_at..root_at + text[root_at..].find('>')?];
        let view_box: Vec<f64> = attr(root, "viewBox")?
            .split_whitespace()
            .map(|v| v.parse().ok())
            .collect::<Option<_>>()?;
        let (width, height) = (*view_box.get(2)?, *view_box.get(3)?);
        let mut texts = Vec::new();
        let mut rest = &text[root_at..];
        while let Some(open) = rest.find("<text") {
            rest = &rest[open..];
            let tag_end = rest.find('>')?;
            let tag = &rest[..tag_end];
            let close = rest.find("</text>")?;
            let number = |name| attr(tag, name).and_then(|v| v.parse::<f64>().ok());
            texts.push(Text {
                x: number("x")?,
                y: number("y")?,
                anchor: attr(tag, "text-anchor").unwrap_or_else(|| "start".into()),
                font_size: number("font-size")?,
                rotated: attr(tag, "transform").is_some_and(|t| t.contains("rotate(")),
                content: unescape(rest[tag_end + 1..close].trim()),
            });
            rest = &rest[close..];
        }
        Some(Svg {
            width,
            height,
            texts,
        })
    }

    /// The texts of the `index`th of `panels` panels stacked evenly from
    /// the top, as the report stacks a figure's panels.
    pub fn panel(&self, index: usize, panels: usize) -> Vec<&Text> {
        let band = self.height / panels as f64;
        let (top, bottom) = (band * index as f64, band * (index + 1) as f64);
        self.texts
            .iter()
            .filter(|t| t.y >= top && t.y < bottom)
            .collect()
    }
}

/// The x axis' tick labels among a panel's texts: the numbers centred
/// under their ticks on the lowest such row (y-axis labels are anchored at
/// their end), as (value, x pixel), left to right.
pub fn x_ticks(texts: &[&Text]) -> Vec<(f64, f64)> {
    let centred: Vec<&&Text> = texts
        .iter()
        .filter(|t| t.anchor == "middle" && !t.rotated && t.number().is_some())
        .collect();
    let Some(row) = centred.iter().map(|t| t.y).reduce(f64::max) else {
        return Vec::new();
    };
    let mut ticks: Vec<(f64, f64)> = centred
        .iter()
        .filter(|t| (t.y - row).abs() < 1.0)
        .map(|t| (t.number().unwrap(), t.x))
        .collect();
    ticks.sort_by(|a, b| a.1.total_cmp(&b.1));
    ticks
}
