// SPDX-License-Identifier: GPL-2.0-only
//! The one place a scenario's scheme names become schemes.
use anyhow::{Context, Result};

use crate::scenario::Scenario;
use crate::scheme::{self, Scheme};

/// Each flow's scheme, looked up in the registry: the one place a
/// scenario's scheme names become schemes.
pub(crate) fn schemes_of(sc: &Scenario) -> Result<Vec<Scheme>> {
    sc.flows
        .iter()
        .enumerate()
        .map(|(i, f)| scheme::lookup(&f.scheme).with_context(|| format!("flows[{i}].scheme")))
        .collect()
}
