// SPDX-License-Identifier: GPL-2.0-only
//! A checked scenario's link made concrete: its two [`LinkSpec`]s loaded
//! (files found by `data::resolve_trace`), and the uplink a scenario that
//! names none runs with (the `.down` trace's `.up` sibling, else
//! [`DEFAULT_UPLINK`]).
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use emu::cellreplay::CellReplay;
use emu::rate_spec::TraceSpec;
use emu::{LinkSpec, Trace};

use super::checked::CheckedScenario;
use crate::data::resolve_trace;
use crate::scenario::DEFAULT_UPLINK;

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

/// The uplink a scenario that names none runs with: the `.up` sibling of a
/// downlink trace file (as found), else [`DEFAULT_UPLINK`].
fn default_uplink(downlink: &LinkSpec, downlink_found: &str) -> LinkSpec {
    match downlink
        .file()
        .and_then(|_| uplink_sibling(Path::new(downlink_found)))
    {
        Some(sibling) => LinkSpec::Trace(TraceSpec::File(sibling)),
        None => LinkSpec::parse(DEFAULT_UPLINK).expect("the default uplink is a rate spec"),
    }
}

/// Loads `checked`'s traces, files found by `data::resolve_trace` (relative
/// paths also next to `scenario_dir`); the uplink is the scenario's, else
/// [`default_uplink`]'s.
pub fn resolve_link(
    checked: &CheckedScenario,
    scenario_dir: Option<&Path>,
) -> Result<ResolvedLink> {
    let find = |f: &str| resolve_trace(f, scenario_dir);
    let down = checked.downlink().load(&find).context("link.downlink")?;
    let uplink = match checked.uplink() {
        Some(u) => u.clone(),
        None => default_uplink(checked.downlink(), &down.name),
    };
    let up = uplink.load(&find).context("link.uplink")?;
    Ok(ResolvedLink {
        downlink: down.trace,
        uplink: up.trace,
        downlink_name: down.name,
        uplink_name: up.name,
        downlink_cellreplay: down.cellreplay.map(Arc::new),
        uplink_cellreplay: up.cellreplay.map(Arc::new),
    })
}
