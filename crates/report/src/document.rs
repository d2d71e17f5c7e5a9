// SPDX-License-Identifier: GPL-2.0-only
//! The report as a few kinds of blocks, rendered once as Markdown and once
//! as self-contained HTML (inline style, images referenced relatively), so
//! both always say the same.
#[derive(Clone, Debug)]
pub enum Block {
    Heading(u8, String),
    Paragraph(String),
    Table {
        header: Vec<String>,
        rows: Vec<Vec<String>>,
    },
    /// Path relative to the report; alt text.
    Image(String, String),
    List(Vec<String>),
}

#[derive(Clone, Debug, Default)]
pub struct Document {
    pub blocks: Vec<Block>,
}

impl Document {
    pub fn push(&mut self, block: Block) {
        self.blocks.push(block);
    }

    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for block in &self.blocks {
            match block {
                Block::Heading(level, text) => {
                    out += &format!("{} {text}\n\n", "#".repeat(*level as usize))
                }
                Block::Paragraph(text) => out += &format!("{text}\n\n"),
                Block::Table { header, rows } => {
                    out += &markdown_row(header);
                    out += &markdown_row(
                        &header.iter().map(|_| "---".to_string()).collect::<Vec<_>>(),
                    );
                    for row in rows {
                        out += &markdown_row(row);
                    }
                    out += "\n";
                }
                Block::Image(path, alt) => out += &format!("![{alt}]({path})\n\n"),
                Block::List(items) => {
                    for item in items {
                        out += &format!("- {item}\n");
                    }
                    out += "\n";
                }
            }
        }
        out
    }

    pub fn html(&self, title: &str) -> String {
        let mut out = format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title>\n<style>{STYLE}</style></head><body>\n",
            escape(title)
        );
        for block in &self.blocks {
            match block {
                Block::Heading(level, text) => {
                    out += &format!("<h{level}>{}</h{level}>\n", escape(text))
                }
                Block::Paragraph(text) => out += &format!("<p>{}</p>\n", escape(text)),
                Block::Table { header, rows } => {
                    out += "<table>\n<tr>";
                    for h in header {
                        out += &format!("<th>{}</th>", escape(h));
                    }
                    out += "</tr>\n";
                    for row in rows {
                        out += "<tr>";
                        for cell in row {
                            out += &format!("<td>{}</td>", escape(cell));
                        }
                        out += "</tr>\n";
                    }
                    out += "</table>\n";
                }
                Block::Image(path, alt) => {
                    out += &format!(
                        "<figure><img src=\"{}\" alt=\"{}\"></figure>\n",
                        escape(path),
                        escape(alt)
                    )
                }
                Block::List(items) => {
                    out += "<ul>\n";
                    for item in items {
                        out += &format!("<li>{}</li>\n", escape(item));
                    }
                    out += "</ul>\n";
                }
            }
        }
        out + "</body></html>\n"
    }
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}\
th:first-child,td:first-child{text-align:left}th{background:#f3f3f3}img{max-width:100%}";

fn markdown_row(cells: &[String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
    format!("| {} |\n", cells.join(" | "))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_render_alike_in_both_formats() {
        let doc = Document {
            blocks: vec![
                Block::Heading(2, "T".into()),
                Block::Table {
                    header: vec!["a".into(), "b|c".into()],
                    rows: vec![vec!["<1>".into(), "2".into()]],
                },
            ],
        };
        assert_eq!(
            doc.markdown(),
            "## T\n\n| a | b\\|c |\n| --- | --- |\n| <1> | 2 |\n\n"
        );
        assert!(doc
            .html("x")
            .contains("<tr><td>&lt;1&gt;</td><td>2</td></tr>"));
    }
}
