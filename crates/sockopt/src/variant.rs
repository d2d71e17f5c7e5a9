// SPDX-License-Identifier: GPL-2.0-only
//! C2TCP_VARIANT values (include/c2tcp.h): which C2TCP runs on a socket.
//!
//! `jsac` is the authors' released behaviour, `paper` Algorithms 1–3 as
//! printed, `drain` jsac whose imaginary drop drains the queue and not the
//! pipe (docs/c2tcp.md, "C2TCP on today's cells"); the eight behaviours that
//! tell them apart can be forced on or off one by one, written
//! `paper+blind_window` or `jsac-shared_growth-ms_good_test`. The value is a
//! base in bits 0–7 (0 = the load-time default, 1 = jsac, 2 = paper,
//! 3 = drain), forced-on behaviours in bits 8–15 and forced-off in 16–23.
use std::fmt;
use std::str::FromStr;

/// The behaviours, in C2TCP_B_* bit order, with their names: the authors'
/// five, then the drain variant's three.
pub const BEHAVIOURS: [(&str, u32); 8] = [
    ("blind_window", 0x01),
    ("anchored_tuner", 0x02),
    ("ms_good_test", 0x04),
    ("shared_growth", 0x08),
    ("ack_interval", 0x10),
    ("bdp_floor", 0x20),
    ("hold_ssthresh", 0x40),
    ("pacing", 0x80),
];
/// C2TCP_B_JSAC (the authors' five), C2TCP_B_DRAIN, C2TCP_B_ALL,
/// C2TCP_VARIANT_ON_SHIFT, C2TCP_VARIANT_OFF_SHIFT.
pub const JSAC: u32 = 0x1f;
pub const DRAIN: u32 = JSAC | 0x20 | 0x40 | 0x80;
pub const ALL: u32 = 0xff;
pub const ON_SHIFT: u32 = 8;
pub const OFF_SHIFT: u32 = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Base {
    /// The load-time default (`c2tcp load --variant`; jsac unless changed).
    #[default]
    Default,
    Jsac,
    Paper,
    Drain,
}

impl Base {
    /// The behaviours the base stands for (None: the load-time default's).
    pub fn behaviours(self) -> Option<u32> {
        match self {
            Base::Default => None,
            Base::Jsac => Some(JSAC),
            Base::Paper => Some(0),
            Base::Drain => Some(DRAIN),
        }
    }
}

/// A C2TCP_VARIANT value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Variant {
    pub base: Base,
    /// Behaviours forced on / off on top of the base (C2TCP_B_* bits).
    pub on: u32,
    pub off: u32,
}

impl Variant {
    pub const JSAC: Variant = Variant {
        base: Base::Jsac,
        on: 0,
        off: 0,
    };
    pub const PAPER: Variant = Variant {
        base: Base::Paper,
        on: 0,
        off: 0,
    };
    pub const DRAIN: Variant = Variant {
        base: Base::Drain,
        on: 0,
        off: 0,
    };

    /// The value the kernel takes.
    pub fn to_raw(self) -> u32 {
        let base = match self.base {
            Base::Default => 0,
            Base::Jsac => 1,
            Base::Paper => 2,
            Base::Drain => 3,
        };
        base | self.on << ON_SHIFT | self.off << OFF_SHIFT
    }

    pub fn from_raw(v: u32) -> Option<Variant> {
        let (on, off) = ((v >> ON_SHIFT) & 0xff, (v >> OFF_SHIFT) & 0xff);
        let base = match v & 0xff {
            0 => Base::Default,
            1 => Base::Jsac,
            2 => Base::Paper,
            3 => Base::Drain,
            _ => return None,
        };
        (v >> 24 == 0 && on & !ALL == 0 && off & !ALL == 0 && on & off == 0).then_some(Variant {
            base,
            on,
            off,
        })
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.base {
            Base::Default => "default",
            Base::Jsac => "jsac",
            Base::Paper => "paper",
            Base::Drain => "drain",
        })?;
        for (name, bit) in BEHAVIOURS {
            if self.on & bit != 0 {
                write!(f, "+{name}")?;
            }
            if self.off & bit != 0 {
                write!(f, "-{name}")?;
            }
        }
        Ok(())
    }
}

impl FromStr for Variant {
    type Err = String;

    /// `jsac`, `paper`, `drain` or `default`, then any `+behaviour` / `-behaviour`.
    fn from_str(s: &str) -> Result<Variant, String> {
        let end = s.find(['+', '-']).unwrap_or(s.len());
        let base = match &s[..end] {
            "jsac" => Base::Jsac,
            "paper" => Base::Paper,
            "drain" => Base::Drain,
            "default" => Base::Default,
            other => {
                return Err(format!("`{other}` is not a C2TCP variant: give jsac, paper or drain, then any +BEHAVIOUR or -BEHAVIOUR"))
            }
        };
        let mut v = Variant {
            base,
            on: 0,
            off: 0,
        };
        let mut rest = &s[end..];
        while !rest.is_empty() {
            let sign = rest.as_bytes()[0];
            let next = rest[1..].find(['+', '-']).map_or(rest.len(), |i| i + 1);
            let name = &rest[1..next];
            let Some((_, bit)) = BEHAVIOURS.iter().find(|(n, _)| *n == name) else {
                let known: Vec<_> = BEHAVIOURS.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "`{name}` is not a C2TCP behaviour; known: {}",
                    known.join(", ")
                ));
            };
            let (set, other) = if sign == b'+' {
                (&mut v.on, v.off)
            } else {
                (&mut v.off, v.on)
            };
            if other & bit != 0 {
                return Err(format!("`{s}` turns {name} both on and off"));
            }
            *set |= bit;
            rest = &rest[next..];
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_the_kernel_encoding() {
        for s in [
            "jsac",
            "paper",
            "default",
            "paper+blind_window",
            "jsac-shared_growth-ack_interval",
            "drain",
            "drain-pacing",
            "jsac+bdp_floor+hold_ssthresh",
        ] {
            let v: Variant = s.parse().unwrap();
            assert_eq!(v.to_string(), s);
            assert_eq!(Variant::from_raw(v.to_raw()), Some(v));
        }
        assert_eq!(Variant::JSAC.to_raw(), 1);
        assert_eq!(Variant::PAPER.to_raw(), 2);
        assert_eq!(Variant::DRAIN.to_raw(), 3);
        let v: Variant = "drain-blind_window+ms_good_test".parse().unwrap();
        assert_eq!(v.to_raw(), 3 | 0x04 << 8 | 0x01 << 16);
        assert_eq!(Base::Drain.behaviours(), Some(0xff));
        assert_eq!(Base::Jsac.behaviours(), Some(0x1f));
        let v: Variant = "paper+ms_good_test".parse().unwrap();
        assert_eq!(v.to_raw(), 2 | 0x04 << 8);
        let v: Variant = "jsac-blind_window".parse().unwrap();
        assert_eq!(v.to_raw(), 1 | 0x01 << 16);
    }

    #[test]
    fn bad_names_and_values_are_refused() {
        assert!("cubic"
            .parse::<Variant>()
            .unwrap_err()
            .contains("not a C2TCP variant"));
        assert!("jsac+warp"
            .parse::<Variant>()
            .unwrap_err()
            .contains("known: blind_window"));
        assert!("jsac+ms_good_test-ms_good_test"
            .parse::<Variant>()
            .unwrap_err()
            .contains("both"));
        assert_eq!(Variant::from_raw(4), None);
        assert_eq!(Variant::from_raw(3 | 0x80 << 8 | 0x80 << 16), None);
        assert_eq!(Variant::from_raw(1 << 24), None);
    }
}
