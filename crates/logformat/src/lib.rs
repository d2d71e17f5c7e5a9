// SPDX-License-Identifier: GPL-2.0-only
//! What the emulator's logs say, defined once for the writer (`emu`) and the
//! reader (`metrics`); the full line format is `docs/log-format.md`.
use serde::{Deserialize, Serialize};

/// Why a packet was dropped; the word is the log's `d` line reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DropReason {
    /// The queue was full (droptail), or the direction's packet bound.
    Tail,
    /// Drophead pushed out the oldest packet.
    Head,
    Codel,
    Pie,
    /// Bernoulli loss at the queue's entrance.
    Loss,
    /// Larger than the MTU.
    Oversize,
}

impl DropReason {
    pub const ALL: [DropReason; 6] = [
        DropReason::Tail,
        DropReason::Head,
        DropReason::Codel,
        DropReason::Pie,
        DropReason::Loss,
        DropReason::Oversize,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Tail => "tail",
            DropReason::Head => "head",
            DropReason::Codel => "codel",
            DropReason::Pie => "pie",
            DropReason::Loss => "loss",
            DropReason::Oversize => "oversize",
        }
    }

    pub fn parse(s: &str) -> Option<DropReason> {
        DropReason::ALL.into_iter().find(|r| r.name() == s)
    }

    /// Position in [`DropReason::ALL`], for per-reason counters.
    pub fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_index_matches_all() {
        for (i, r) in DropReason::ALL.into_iter().enumerate() {
            assert_eq!(DropReason::parse(r.name()), Some(r));
            assert_eq!(r.index(), i);
        }
        assert_eq!(DropReason::parse("nope"), None);
    }
}
