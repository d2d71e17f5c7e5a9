// SPDX-License-Identifier: GPL-2.0-only
//! A run's identity (`results::RunId`: scenario, scheme, trace, the
//! parameters that vary, repetition), made here once for a lone
//! `c2tcp run` and a bench's jobs alike, so that the same run is filed
//! under the same name whoever starts it.
use std::collections::BTreeMap;
use std::path::Path;

use results::RunId;

use crate::scenario::Scenario;

/// The scheme a run is filed under when nobody names one: its flows'
/// schemes in order, a repeated one once, joined by `+`.
fn schemes_label(sc: &Scenario) -> String {
    let mut names: Vec<&str> = sc.flows.iter().map(|f| f.scheme.as_str()).collect();
    names.dedup();
    names.join("+")
}

/// The trace a run is filed under: its downlink's file name (a rate spec
/// as it is).
pub(crate) fn trace_label(downlink: &str) -> String {
    Path::new(downlink)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| downlink.to_string())
}

/// The one constructor: `unnamed` names a scenario without a name; a
/// scheme or trace not given is the scenario's own.
fn run_id(
    sc: &Scenario,
    unnamed: &str,
    scheme: Option<&str>,
    trace: Option<&str>,
    params: BTreeMap<String, serde_json::Value>,
    rep: u32,
) -> RunId {
    let name = if sc.name.is_empty() {
        unnamed
    } else {
        &sc.name
    };
    let scheme = scheme.map_or_else(|| schemes_label(sc), str::to_string);
    let trace = trace.map_or_else(|| trace_label(&sc.link.downlink), str::to_string);
    RunId::new(name, &scheme, &trace, params, rep)
}

/// A lone run (`c2tcp run`): the scenario's name (`run`), its flows'
/// schemes, its downlink, no parameters, repetition 1.
pub fn of_run(sc: &Scenario) -> RunId {
    run_id(sc, "run", None, None, BTreeMap::new(), 1)
}

/// A bench's run: the bench's scheme (else its flows'), its trace label,
/// the parameters that vary, the repetition.
pub(crate) fn of_job(
    sc: &Scenario,
    scheme: Option<&str>,
    trace: &str,
    params: BTreeMap<String, serde_json::Value>,
    rep: u32,
) -> RunId {
    run_id(sc, "bench", scheme, Some(trace), params, rep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::tests::{checked, GOOD};

    #[test]
    fn a_lone_run_and_a_benchs_job_name_a_run_alike() {
        let mut sc = checked(GOOD);
        let lone = of_run(&sc);
        assert_eq!(
            (
                lone.scenario.as_str(),
                lone.scheme.as_str(),
                lone.trace.as_str(),
                lone.rep
            ),
            ("t", "c2tcp+cubic", "constant:12", 1)
        );
        assert_eq!(of_job(&sc, None, "constant:12", BTreeMap::new(), 1), lone);
        sc.name.clear();
        sc.link.downlink = "/t/X.down".into();
        let job = of_job(&sc, Some("bbr"), "X.down", BTreeMap::new(), 2);
        assert_eq!(
            (job.scenario.as_str(), job.scheme.as_str()),
            ("bench", "bbr")
        );
        assert_eq!(
            (of_run(&sc).scenario, of_run(&sc).trace),
            ("run".into(), "X.down".into())
        );
    }
}
