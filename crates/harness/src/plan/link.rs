// SPDX-License-Identifier: GPL-2.0-only
//! A scenario's link made concrete: its traces loaded (a rate spec, or a
//! file found by `data::resolve_trace`), the uplink a scenario that names
//! none runs with (the `.down` trace's `.up` sibling, else
//! [`DEFAULT_UPLINK`]).
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use emu::cellreplay::CellReplay;
use emu::Trace;

use crate::data::resolve_trace;
use crate::scenario::{Scenario, DEFAULT_UPLINK};

/// The `.up` sibling of a `.down` trace file, if there is one: the uplink a
/// scenario that names no uplink runs with (else [`DEFAULT_UPLINK`]). An
/// `.up` trace given as the downlink (the data path of a drive's uplink,
/// as the Sprout paper runs both directions of each network) likewise runs
/// with its `.down` sibling as the way back.
pub fn uplink_sibling(downlink: &Path) -> Option<String> {
    let name = downlink.to_str()?;
    let (stem, gz) = match name.strip_suffix(".gz") {
        Some(stem) => (stem, ".gz"),
        None => (name, ""),
    };
    let other = match (stem.strip_suffix(".down"), stem.strip_suffix(".up")) {
        (Some(s), _) => format!("{s}.up{gz}"),
        (None, Some(s)) => format!("{s}.down{gz}"),
        (None, None) => return None,
    };
    Path::new(&other).is_file().then_some(other)
}

/// The traces of a run, loaded, with the names `setup.json` records.
pub struct ResolvedLink {
    /// The downlink's trace (CellReplay's heavy trace under its model).
    pub downlink: Trace,
    pub uplink: Trace,
    pub downlink_name: String,
    pub uplink_name: String,
    /// CellReplay's model of a direction given as `cellreplay:…`.
    pub downlink_cellreplay: Option<Arc<CellReplay>>,
    pub uplink_cellreplay: Option<Arc<CellReplay>>,
}

/// A rate spec (`constant:MBPS`, `steps:…@PERIOD_S`; `emu::rate_spec`), or a
/// trace file (plain or gzip) found by [`resolve_trace`].
pub(crate) fn load_trace(spec: &str, scenario_dir: Option<&Path>) -> Result<(Trace, String)> {
    if let Some(trace) = emu::rate_spec::parse(spec)? {
        return Ok((trace, spec.to_string()));
    }
    if emu::cellreplay::Spec::parse(spec)?.is_some() {
        let (trace, _, name) = load_link(spec, scenario_dir)?;
        return Ok((trace, name));
    }
    let path = resolve_trace(spec, scenario_dir)?;
    Ok((Trace::load(&path)?, path.display().to_string()))
}

/// [`load_trace`], and CellReplay's model when `spec` is
/// `cellreplay:LIGHT,HEAVY[,offsets=FILE][,idle=MS]` (its files found as
/// traces are); then the trace is its heavy trace.
pub(crate) fn load_link(
    spec: &str,
    scenario_dir: Option<&Path>,
) -> Result<(Trace, Option<Arc<CellReplay>>, String)> {
    match emu::cellreplay::Spec::parse(spec)? {
        Some(s) => {
            let (model, heavy) = s.load(|f| resolve_trace(f, scenario_dir))?;
            Ok((heavy, Some(Arc::new(model)), spec.to_string()))
        }
        None => {
            let (trace, name) = load_trace(spec, scenario_dir)?;
            Ok((trace, None, name))
        }
    }
}

/// Loads `sc`'s traces (relative paths also next to `scenario_dir`); the
/// uplink is the scenario's, else the downlink's `.up` sibling, else
/// [`DEFAULT_UPLINK`].
pub fn resolve_link(sc: &Scenario, scenario_dir: Option<&Path>) -> Result<ResolvedLink> {
    let l = &sc.link;
    let (downlink, downlink_cellreplay, downlink_name) =
        load_link(&l.downlink, scenario_dir).context("link.downlink")?;
    let uplink_spec = l
        .uplink
        .clone()
        .or_else(|| uplink_sibling(Path::new(&downlink_name)))
        .unwrap_or_else(|| DEFAULT_UPLINK.to_string());
    let (uplink, uplink_cellreplay, uplink_name) =
        load_link(&uplink_spec, scenario_dir).context("link.uplink")?;
    Ok(ResolvedLink {
        downlink,
        uplink,
        downlink_name,
        uplink_name,
        downlink_cellreplay,
        uplink_cellreplay,
    })
}
