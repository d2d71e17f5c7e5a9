// SPDX-License-Identifier: GPL-2.0-only
//! `run.json`: what ran, with which parameters, and how it ended; written
//! whole, read back with its schema checked field by field.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::{RunId, RUN_JSON};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Finished; its metrics count.
    Done,
    /// Stopped before the end (Ctrl-C, a bench interrupted); redone on resume.
    Interrupted,
    /// Ended in an error; `error` says which.
    Failed,
}

/// The version of run.json this code writes and reads. A record without
/// `version` was written before it existed and reads as version 1.
pub const RUN_JSON_VERSION: u32 = 1;

/// Every field run.json may hold (its identity flattened in): the reader
/// refuses any other, naming it. A test keeps the list equal to the type's.
const RUN_JSON_FIELDS: &[&str] = &[
    "version",
    "status",
    "scenario",
    "scheme",
    "trace",
    "params",
    "rep",
    "label",
    "seed",
    "timings",
    "duration_s",
    "duration_from_trace",
    "error",
    "notes",
];

fn run_json_version() -> u32 {
    RUN_JSON_VERSION
}

/// run.json: what ran, with which parameters, and how it ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// [`RUN_JSON_VERSION`].
    #[serde(default = "run_json_version")]
    pub version: u32,
    pub status: RunStatus,
    #[serde(flatten)]
    pub id: RunId,
    /// Names the parameter combination; "" when there is none.
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub timings: Timings,
    /// The run's length, s (as resolved; with `duration_from_trace`, one
    /// pass of the downlink trace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub duration_from_trace: bool,
    /// Why a failed run failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What a `done` run says about itself beside its metrics, e.g. a flow
    /// that moved nothing because its trace offered no capacity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Unix time, seconds.
    pub started_unix_s: Option<f64>,
    pub finished_unix_s: Option<f64>,
    /// Wall-clock seconds the run took, set-up included.
    pub wall_s: Option<f64>,
}

fn unix_now() -> Option<f64> {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs_f64())
}

impl RunInfo {
    /// A run that has begun: `interrupted` until `finished` says otherwise,
    /// so a crash never leaves a run that looks done. The label is
    /// `label_for(&params)`.
    pub fn started(id: RunId) -> RunInfo {
        RunInfo {
            version: RUN_JSON_VERSION,
            status: RunStatus::Interrupted,
            label: id.label(),
            id,
            seed: None,
            timings: Timings {
                started_unix_s: unix_now(),
                ..Timings::default()
            },
            duration_s: None,
            duration_from_trace: false,
            error: None,
            notes: Vec::new(),
        }
    }

    /// Marks the run done (or failed, with the error) and times it.
    pub fn finished(&mut self, error: Option<String>) {
        self.status = if error.is_some() {
            RunStatus::Failed
        } else {
            RunStatus::Done
        };
        self.error = error;
        self.timings.finished_unix_s = unix_now();
        if let (Some(start), Some(end)) =
            (self.timings.started_unix_s, self.timings.finished_unix_s)
        {
            self.timings.wall_s = Some(end - start);
        }
    }

    /// The label from the parameters: `key=value` joined by `,`, sorted.
    pub fn label_for(params: &BTreeMap<String, serde_json::Value>) -> String {
        params
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}={s}"),
                // 50.0 and 50 name the same run
                serde_json::Value::Number(n)
                    if n.as_f64()
                        .is_some_and(|f| f.fract() == 0.0 && f.abs() < 1e15) =>
                {
                    format!("{k}={:.0}", n.as_f64().unwrap_or_default())
                }
                other => format!("{k}={other}"),
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Writes run.json whole (`wholefile`). Write it `done` last, once every
    /// other file of the run is in place: a run is only as finished as its
    /// run.json says.
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join(RUN_JSON);
        let text = serde_json::to_string_pretty(self)? + "\n";
        match wholefile::write(&path, text.as_bytes()) {
            // A full disk must not hide how the run ended: the record
            // already there owns its blocks, so rewrite it in place.
            Err(e) if wholefile::is_disk_full(&e) => {
                wholefile::overwrite_in_place(&path, text.as_bytes()).map_err(|_| e)
            }
            r => r,
        }
        .with_context(|| format!("writing {}", path.display()))
    }

    pub fn read(dir: &Path) -> Result<RunInfo> {
        let path = dir.join(RUN_JSON);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        RunInfo::parse(&text).with_context(|| format!("{}: not a valid run.json", path.display()))
    }

    /// run.json's schema: a JSON object of known fields only, of a version
    /// this code reads, every required field present and typed (the error
    /// names the field).
    pub fn parse(text: &str) -> Result<RunInfo> {
        let value: serde_json::Value = serde_json::from_str(text)?;
        let Some(fields) = value.as_object() else {
            anyhow::bail!("not a JSON object");
        };
        if let Some(unknown) = fields
            .keys()
            .find(|k| !RUN_JSON_FIELDS.contains(&k.as_str()))
        {
            anyhow::bail!("unknown field `{unknown}`");
        }
        let info: RunInfo = serde_path_to_error::deserialize(value)
            .map_err(|e| anyhow::anyhow!("field `{}`: {}", e.path(), e.inner()))?;
        if info.version > RUN_JSON_VERSION {
            anyhow::bail!(
                "field `version` is {}; this c2tcp reads run.json up to version {RUN_JSON_VERSION}",
                info.version
            );
        }
        Ok(info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full_run_info() -> RunInfo {
        let mut info = RunInfo::started(RunId::new("s", "cubic", "t", BTreeMap::new(), 1));
        info.seed = Some(1);
        info.duration_s = Some(3.0);
        info.duration_from_trace = true;
        info.notes = vec!["a note".into()];
        info.finished(Some("an error".into()));
        info
    }

    /// The reader's list of fields is the type's: every optional field set.
    #[test]
    fn run_json_fields_are_the_types_fields() {
        let v = serde_json::to_value(full_run_info()).unwrap();
        let mut written: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut listed = RUN_JSON_FIELDS.to_vec();
        written.sort();
        listed.sort();
        assert_eq!(written, listed);
    }

    #[test]
    fn run_json_reads_back_and_refuses_what_is_not_one() {
        let info = full_run_info();
        let text = serde_json::to_string(&info).unwrap();
        assert_eq!(RunInfo::parse(&text).unwrap(), info);
        let refused = |text: &str, says: &str| {
            let e = format!("{:#}", RunInfo::parse(text).unwrap_err());
            assert!(e.contains(says), "{text}: {e}");
        };
        refused("{\"foo\":1}", "unknown field `foo`");
        refused("[]", "not a JSON object");
        refused("", "EOF");
        refused("{\"status\":\"done\"}", "scenario");
        refused(
            "{\"status\":\"finished\",\"scenario\":\"s\",\"scheme\":\"c\",\"trace\":\"t\"}",
            "status",
        );
        let mut newer = serde_json::to_value(&info).unwrap();
        newer["version"] = 2.into();
        refused(&newer.to_string(), "version");
        // Written before `version` existed: version 1.
        let mut old = serde_json::to_value(&info).unwrap();
        old.as_object_mut().unwrap().remove("version");
        assert_eq!(RunInfo::parse(&old.to_string()).unwrap().version, 1);
    }

    #[test]
    fn labels_list_parameters_in_order() {
        let params = BTreeMap::from([
            ("target_ms".to_string(), serde_json::json!(50)),
            (
                "queue".to_string(),
                serde_json::json!("droptail:packets=100"),
            ),
            ("alpha".to_string(), serde_json::json!(1.5)),
            ("buffer_bytes".to_string(), serde_json::json!(150000.0)),
        ]);
        assert_eq!(
            RunInfo::label_for(&params),
            "alpha=1.5,buffer_bytes=150000,queue=droptail:packets=100,target_ms=50"
        );
    }
}
