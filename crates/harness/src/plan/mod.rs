// SPDX-License-Identifier: GPL-2.0-only
//! A scenario checked once into a typed value, then resolved into a plan,
//! before anything exists. This is the one place the flows' scheme names
//! are looked up and their parameters read:
//!
//! ```text
//!  Scenario (scenario.rs: the TOML model, each field checked on its own;
//!     │      edit.rs: --scheme, --set, --target, a swept value, run's flags)
//!     │ CheckedScenario::check, once: schemes looked up, each flow's
//!     │   parameters resolved into typed FlowParams (scheme/params.rs),
//!     │   directions, the one receiver-side rule, the namespaces' sysctls,
//!     │   the queues as emu::QueueSpec (an AQM scheme's applied), the
//!     │   link's directions as emu::LinkSpec, every sweep value valid
//!     ▼
//!  CheckedScenario ── needs() ─► BPF CCs, NetAssist, rxctl, sysctls
//!     │ Plan::resolve: the LinkSpecs loaded (link.rs: `.down` → `.up`), length
//!     ▼
//!  Plan { checked, link } ─► runner::run ─► flows (typed), emulator
//! ```
//!
//! Only [`CheckedScenario::check`] makes a `CheckedScenario`, so a value of
//! that type is valid and nothing checks it again: `c2tcp run` checks its
//! scenario once (from a file and flags, [`RunFlags`], or a bench's job)
//! and the runner takes the checked value.
//!
//! [`Needs`] says what a scenario needs loaded or started (BPF congestion
//! controls, NetAssist, a receiver-side controller, sysctls), for the
//! runner and for the bench, which loads the BPF programs once for all its
//! runs.
//!
//! The modules, each importing only those listed before it: `lookup.rs`
//! (scheme names to schemes), `needs.rs`, `checked.rs`, `edit.rs`,
//! `link.rs` (the traces loaded), then [`Plan`] here.
use std::path::Path;

use anyhow::Result;

use crate::scenario::Scenario;

mod checked;
mod edit;
mod link;
mod lookup;
mod needs;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use checked::CHECKS;
pub use checked::{CheckedScenario, FlowSetup, HOST_ECN_SYSCTL};
pub use edit::{parse_knob_setting, KnobSetting, RunFlags};
pub use link::{resolve_link, uplink_sibling, ResolvedLink};
pub use needs::Needs;

/// A scenario ready to run: checked, its traces loaded.
pub struct Plan {
    /// The checked scenario, its length resolved from the trace.
    pub checked: CheckedScenario,
    pub link: ResolvedLink,
}

impl Plan {
    /// Loads `checked`'s traces (paths relative to `scenario_dir` too) and
    /// resolves its length.
    pub fn resolve(mut checked: CheckedScenario, scenario_dir: Option<&Path>) -> Result<Plan> {
        let link = resolve_link(&checked, scenario_dir)?;
        checked.resolve_length(link.downlink.period_ms())?;
        Ok(Plan { checked, link })
    }

    pub fn scenario(&self) -> &Scenario {
        self.checked.scenario()
    }
}
