// SPDX-License-Identifier: GPL-2.0-only
//! A direction's link as users name it (`--downlink`, a scenario's
//! `link.downlink`), told apart once, here, and checked as far as it can be
//! without reading a file:
//!
//! - a rate spec, `constant:MBPS` or `steps:…@PERIOD_S` (`rate_spec.rs`;
//!   its trace is made when loaded),
//! - a Mahimahi trace file (plain or gzip), named as given and found where
//!   the caller looks for traces,
//! - CellReplay's pair, `cellreplay:LIGHT,HEAVY[,offsets=FILE][,idle=MS]`
//!   (`cellreplay/`), its files found the same way.
//!
//! Whoever holds a [`LinkSpec`] matches on it: which files a link reads,
//! how it loads, what it is called.
use std::fmt;
use std::path::PathBuf;

use anyhow::Result;

use crate::cellreplay::{self, CellReplay};
use crate::rate_spec::TraceSpec;
use crate::trace::Trace;

#[derive(Debug, Clone, PartialEq)]
pub enum LinkSpec {
    /// One trace: a rate spec or a file.
    Trace(TraceSpec),
    /// CellReplay's model: its light trace and its heavy trace.
    CellReplay {
        /// The spec as written (the link's name).
        text: String,
        spec: cellreplay::Spec,
    },
}

/// A link loaded: the trace the link replays (CellReplay's heavy one under
/// its model), the model, and the name a run records.
#[derive(Debug)]
pub struct LoadedLink {
    pub trace: Trace,
    pub cellreplay: Option<CellReplay>,
    /// The rate or CellReplay spec as written, or the trace file's path
    /// as found.
    pub name: String,
}

impl LinkSpec {
    /// Tells `text` apart and checks what can be checked without a file.
    pub fn parse(text: &str) -> Result<LinkSpec> {
        Ok(match cellreplay::Spec::parse(text)? {
            Some(spec) => LinkSpec::CellReplay {
                text: text.to_string(),
                spec,
            },
            None => LinkSpec::Trace(TraceSpec::parse(text)?),
        })
    }

    /// The trace file this link is, if it is one (not a rate spec, nor
    /// CellReplay's pair).
    pub fn file(&self) -> Option<&str> {
        match self {
            LinkSpec::Trace(TraceSpec::File(f)) => Some(f),
            _ => None,
        }
    }

    /// Loads it, each file found by `resolve` first.
    pub fn load(&self, resolve: &dyn Fn(&str) -> Result<PathBuf>) -> Result<LoadedLink> {
        Ok(match self {
            LinkSpec::Trace(t) => {
                let (trace, name) = t.load(resolve)?;
                LoadedLink {
                    trace,
                    cellreplay: None,
                    name,
                }
            }
            LinkSpec::CellReplay { text, spec } => {
                let (model, heavy) = spec.load(resolve)?;
                LoadedLink {
                    trace: heavy,
                    cellreplay: Some(model),
                    name: text.clone(),
                }
            }
        })
    }
}

impl fmt::Display for LinkSpec {
    /// As written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkSpec::Trace(t) => t.fmt(f),
            LinkSpec::CellReplay { text, .. } => f.write_str(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_is_told_apart_once_and_prints_as_written() {
        for (text, file) in [
            ("constant:12", None),
            ("steps:0:24,10:6@20", None),
            ("traces/X.down", Some("traces/X.down")),
            ("cellreplay:l.txt,h.down,idle=5", None),
        ] {
            let l = LinkSpec::parse(text).unwrap();
            assert_eq!(l.file(), file, "{text}");
            assert_eq!(l.to_string(), text);
        }
        assert!(matches!(
            LinkSpec::parse("constant:12").unwrap(),
            LinkSpec::Trace(TraceSpec::Rate(_))
        ));
        let LinkSpec::CellReplay { spec, .. } = LinkSpec::parse("cellreplay:l,constant:6").unwrap()
        else {
            panic!("a CellReplay spec");
        };
        assert!(matches!(spec.heavy, TraceSpec::Rate(_)));
    }

    #[test]
    fn a_bad_rate_is_refused_when_parsed_not_when_loaded() {
        for bad in ["constant:x", "steps:0:0@5", "cellreplay:l,constant:0"] {
            let e = format!("{:#}", LinkSpec::parse(bad).unwrap_err());
            assert!(
                e.contains(bad.trim_start_matches("cellreplay:l,")),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn loading_names_a_file_by_where_it_was_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("X.down"), "1\n2\n").unwrap();
        let found = |f: &str| Ok(dir.path().join(f));
        let l = LinkSpec::parse("X.down").unwrap().load(&found).unwrap();
        assert_eq!(l.trace.opportunities, vec![1, 2]);
        assert_eq!(l.name, dir.path().join("X.down").display().to_string());
        assert!(l.cellreplay.is_none());
        let r = LinkSpec::parse("constant:12")
            .unwrap()
            .load(&found)
            .unwrap();
        assert_eq!(
            (r.name.as_str(), r.trace.period_ms()),
            ("constant:12", 1000)
        );
    }
}
