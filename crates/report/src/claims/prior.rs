// SPDX-License-Identifier: GPL-2.0-only
//! Checks carried over from an earlier evaluation (`c2tcp claims ROOT
//! --prior FILE`): a bench part is hours of runs, and the parts re-run on
//! one day need not sit on the same machine as those run on another. So a
//! check whose part is absent from the bench root may take its result from
//! an earlier `claims.json` (docs/claims.json), as that evaluation computed
//! it, saying the bench root it came from (`from`). Only a check whose
//! quantity and bound read exactly as now is carried (a claim reworded
//! since is "not run" until its part runs again), and only one that was
//! run. The claim's verdict is then taken over its checks as usual, so a
//! claim reading two parts, one re-run and one not, is judged on both.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

use super::eval::{CheckResult, Verdict};

/// An earlier claims.json's checks, by (paper, claim id).
pub struct Prior {
    checks: BTreeMap<(String, String), Vec<CheckResult>>,
}

#[derive(Deserialize)]
struct File {
    bench_root: String,
    claims: Vec<ClaimChecks>,
}

#[derive(Deserialize)]
struct ClaimChecks {
    paper: String,
    id: String,
    checks: Vec<CheckResult>,
}

impl Prior {
    /// Reads `path`, a claims.json `c2tcp claims` wrote (per-trace values
    /// may have been stripped, as in docs/claims.json).
    pub fn load(path: &Path) -> Result<Prior> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let file: File = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a claims.json of `c2tcp claims`", path.display()))?;
        let mut checks = BTreeMap::new();
        for c in file.claims {
            let carried = c
                .checks
                .into_iter()
                .map(|mut k| {
                    // A check carried before keeps the root it came from.
                    k.from.get_or_insert_with(|| file.bench_root.clone());
                    k
                })
                .collect();
            checks.insert((c.paper, c.id), carried);
        }
        Ok(Prior { checks })
    }

    /// The earlier result of check `index` of claim `paper`/`id`, when it
    /// was run and reads as `now` (the check not run here) does.
    pub fn check(
        &self,
        paper: &str,
        id: &str,
        index: usize,
        now: &CheckResult,
    ) -> Option<CheckResult> {
        let earlier = self
            .checks
            .get(&(paper.to_owned(), id.to_owned()))?
            .get(index)?;
        (earlier.verdict != Verdict::NotRun
            && earlier.quantity == now.quantity
            && earlier.bound == now.bound
            && earlier.bench == now.bench)
            .then(|| earlier.clone())
    }
}
