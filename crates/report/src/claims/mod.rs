// SPDX-License-Identifier: GPL-2.0-only
//! The claims report: each paper's checkable claims (`claims/<paper>.toml`,
//! parsed by `spec`) evaluated over a bench root's parts (`eval`, each
//! check's quantity on one trace by `quantity`) into a
//! table of claim, paper's figure, ours and verdict (`render`).
//!
//! ```no_run
//! let files = report::claims::load_all("claims".as_ref())?;
//! let results = report::claims::evaluate("bench-out".as_ref(), &files)?;
//! report::claims::write("bench-out".as_ref(), "bench-out".as_ref(), &files, &results)?;
//! # Ok::<(), anyhow::Error>(())
//! ```
pub mod eval;
pub mod prior;
mod quantity;
pub mod render;
pub mod spec;

pub use eval::{evaluate, evaluate_with_prior, CheckResult, ClaimResult, Verdict};
pub use prior::Prior;
pub use render::{tally, tally_by_paper, verdict_text, write, Written};
pub use spec::{load_all, parse, Check, Claim, ClaimsFile, Quantity, Selector};
