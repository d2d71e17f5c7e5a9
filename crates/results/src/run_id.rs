// SPDX-License-Identifier: GPL-2.0-only
//! The one identity of a run, shared by a bench's job, the runner and
//! `run.json`.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{run_dir, RunInfo};

/// Which run this is: what the report groups and normalises by, and where
/// a bench keeps it. A bench's job carries it, the runner records it, and
/// run.json holds its fields at the top level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunId {
    /// Scenario name (file stem) or path.
    pub scenario: String,
    /// Scheme under test, as named in the registry (`cubic`, `c2tcp`, …).
    pub scheme: String,
    /// Downlink trace name, e.g. `TMobile-LTE-driving.down`.
    pub trace: String,
    /// The parameters that vary in the bench, e.g. {"target_ms": 50} or
    /// {"buffer_bytes": 150000}; numbers make sweep plots.
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub rep: u32,
}

impl RunId {
    pub fn new(
        scenario: &str,
        scheme: &str,
        trace: &str,
        params: BTreeMap<String, serde_json::Value>,
        rep: u32,
    ) -> RunId {
        RunId {
            scenario: scenario.to_owned(),
            scheme: scheme.to_owned(),
            trace: trace.to_owned(),
            params,
            rep,
        }
    }

    /// The label of its parameters (`RunInfo::label_for`).
    pub fn label(&self) -> String {
        RunInfo::label_for(&self.params)
    }

    /// Where a bench keeps this run, relative to the bench directory.
    pub fn relative_dir(&self) -> PathBuf {
        run_dir(
            Path::new(""),
            &self.trace,
            &self.scheme,
            &self.label(),
            self.rep,
        )
    }

    /// `<trace> <scheme> <label or default> rep<N>`, for messages.
    pub fn describe(&self) -> String {
        let label = self.label();
        format!(
            "{} {} {} rep{}",
            self.trace,
            self.scheme,
            if label.is_empty() { "default" } else { &label },
            self.rep
        )
    }
}
