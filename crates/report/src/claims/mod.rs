// SPDX-License-Identifier: GPL-2.0-only
//! The claims report: each paper's checkable claims (`claims/<paper>.toml`,
//! parsed by `spec`) evaluated over a bench root's parts (`eval`) into a
//! table of claim, paper's figure, ours and verdict (`render`).
pub mod spec;

pub use spec::{load_all, parse, Check, Claim, ClaimsFile, Quantity, Selector};
