// SPDX-License-Identifier: GPL-2.0-only
//! What the emulator's logs say, defined once for the writer (`emu`) and the
//! reader (`metrics`); the full line format is `docs/log-format.md`. The
//! header lines have one owner, [`LogHeader`], which writes and parses them.
#![forbid(unsafe_code)]
use std::io::{self, Write};

use serde::{Deserialize, Serialize};

/// The header's format word for our emulator's logs.
pub const C2TCP_EMU_V1: &str = "c2tcp-emu v1";
/// The format of a log without a `# c2tcp-emu` line (plain mm-link).
pub const MAHIMAHI: &str = "mahimahi";
/// The emulator's queues that tell L4S packets apart (`# ... queue=` names).
pub const L4S_QUEUES: [&str; 3] = ["dualpi2", "l4s_ramp", "l4s_cell"];

/// The log's header lines:
///
/// ```text
/// # base timestamp: <integer ms>
/// # c2tcp-emu v1 direction=downlink opportunity_bytes=1504 delay_ms=10 queue=droptail:packets=100 loss=0
/// ```
///
/// The emulator writes both; a plain mm-link log has only the first. Fields
/// the log did not give are None.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogHeader {
    pub base_timestamp_ms: Option<u64>,
    /// "c2tcp-emu v1" or "mahimahi" (no c2tcp-emu line).
    pub format: String,
    pub direction: Option<String>,
    pub opportunity_bytes: Option<u32>,
    /// One-way propagation delay, each way, in ms.
    pub delay_ms: Option<f64>,
    pub queue: Option<String>,
    pub loss: Option<f64>,
}

/// What a reader knows before any header line: a plain mm-link log.
impl Default for LogHeader {
    fn default() -> LogHeader {
        LogHeader {
            base_timestamp_ms: None,
            format: MAHIMAHI.into(),
            direction: None,
            opportunity_bytes: None,
            delay_ms: None,
            queue: None,
            loss: None,
        }
    }
}

impl LogHeader {
    /// The header our emulator writes for one direction (`queue` as
    /// `emu::QueueSpec` displays it, `loss` a probability).
    pub fn emu(
        base_timestamp_ms: u64,
        direction: &str,
        opportunity_bytes: u32,
        delay_ms: f64,
        queue: &str,
        loss: f64,
    ) -> LogHeader {
        LogHeader {
            base_timestamp_ms: Some(base_timestamp_ms),
            format: C2TCP_EMU_V1.into(),
            direction: Some(direction.into()),
            opportunity_bytes: Some(opportunity_bytes),
            delay_ms: Some(delay_ms),
            queue: Some(queue.into()),
            loss: Some(loss),
        }
    }

    /// True for our emulator's logs, which carry drop lines (so loss is known).
    pub fn is_c2tcp_emu(&self) -> bool {
        self.format.starts_with("c2tcp-emu")
    }

    /// True when the queue separates L4S packets from the others (its
    /// departures carry ` l`): `dualpi2`'s two queues, `l4s_ramp`'s marking.
    pub fn has_l4s_queue(&self) -> bool {
        self.queue
            .as_deref()
            .is_some_and(|q| L4S_QUEUES.iter().any(|k| q.split(':').next() == Some(*k)))
    }

    /// The header lines, each ending in a newline: `# base timestamp` when
    /// known, then the `# c2tcp-emu` line with the fields given, for our
    /// emulator's format. One `write_all`, so a failure leaves nothing half
    /// told.
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        use std::fmt::Write as _;
        let mut text = String::with_capacity(160);
        if let Some(base) = self.base_timestamp_ms {
            let _ = writeln!(text, "# base timestamp: {base}");
        }
        if self.is_c2tcp_emu() {
            text += "# ";
            text += &self.format;
            let field = |text: &mut String, key: &str, value: Option<&dyn std::fmt::Display>| {
                if let Some(v) = value {
                    let _ = write!(text, " {key}={v}");
                }
            };
            field(
                &mut text,
                "direction",
                self.direction.as_ref().map(|v| v as _),
            );
            field(
                &mut text,
                "opportunity_bytes",
                self.opportunity_bytes.as_ref().map(|v| v as _),
            );
            field(
                &mut text,
                "delay_ms",
                self.delay_ms.as_ref().map(|v| v as _),
            );
            field(&mut text, "queue", self.queue.as_ref().map(|v| v as _));
            field(&mut text, "loss", self.loss.as_ref().map(|v| v as _));
            text += "\n";
        }
        w.write_all(text.as_bytes())
    }

    /// Reads one comment line (the text after `#`, trimmed) into the header.
    /// Ok(true) when it was a header line, Ok(false) for any other comment
    /// (flow lines, mm-link's own remarks); Err names what is wrong.
    pub fn parse_comment(&mut self, text: &str) -> Result<bool, String> {
        if let Some(rest) = text.strip_prefix("base timestamp:") {
            let base = rest
                .trim()
                .parse()
                .map_err(|_| "base timestamp is not an integer")?;
            self.base_timestamp_ms = Some(base);
        } else if let Some(rest) = text.strip_prefix("c2tcp-emu ") {
            let mut fields = rest.split_whitespace();
            let version = fields.next().ok_or("c2tcp-emu header without a version")?;
            if version != "v1" {
                return Err(format!("unsupported c2tcp-emu log version {version}"));
            }
            self.format = format!("c2tcp-emu {version}");
            for field in fields {
                let (key, value) = field
                    .split_once('=')
                    .ok_or("c2tcp-emu header field is not key=value")?;
                let number = |what: &str| {
                    value
                        .parse::<f64>()
                        .map_err(|_| format!("{what} is not a number"))
                };
                match key {
                    "direction" => self.direction = Some(value.to_owned()),
                    "opportunity_bytes" => {
                        self.opportunity_bytes = Some(
                            value
                                .parse()
                                .map_err(|_| "opportunity_bytes is not an integer")?,
                        )
                    }
                    "delay_ms" => self.delay_ms = Some(number("delay_ms")?),
                    "queue" => self.queue = Some(value.to_owned()),
                    "loss" => self.loss = Some(number("loss")?),
                    _ => {} // newer emulators may add fields
                }
            }
        } else {
            return Ok(false);
        }
        Ok(true)
    }
}

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
    /// DualPI2's AQM: a Classic packet it picked that cannot be marked (or
    /// any packet it picked on overload), or a Not-ECT packet in its L queue.
    Dualpi2,
    /// The L4S ramp's stale-packet check (sch_janz's: one packet when the
    /// oldest is over 100 ms old, every packet over 500 ms, every 200 ms).
    Stale,
}

impl DropReason {
    pub const ALL: [DropReason; 8] = [
        DropReason::Tail,
        DropReason::Head,
        DropReason::Codel,
        DropReason::Pie,
        DropReason::Loss,
        DropReason::Oversize,
        DropReason::Dualpi2,
        DropReason::Stale,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Tail => "tail",
            DropReason::Head => "head",
            DropReason::Codel => "codel",
            DropReason::Pie => "pie",
            DropReason::Loss => "loss",
            DropReason::Oversize => "oversize",
            DropReason::Dualpi2 => "dualpi2",
            DropReason::Stale => "stale",
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

/// Why a queue set CE on a packet, where the queue tells (DualPI2, as
/// sch_dualpi2 counts `step_marks` apart): the word after `ce:` in a
/// departure line. A queue with one reason to mark writes a bare `ce`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MarkCause {
    /// DualPI2's native L4S step AQM.
    Step,
    /// DualPI2's coupled probability on L packets, k·p'.
    Coupled,
    /// DualPI2's p'² on ECN-capable Classic packets.
    Classic,
    /// DualPI2's overload (k·p' > 1): an L packet the p'² drop spared.
    Overload,
}

impl MarkCause {
    pub const ALL: [MarkCause; 4] = [
        MarkCause::Step,
        MarkCause::Coupled,
        MarkCause::Classic,
        MarkCause::Overload,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MarkCause::Step => "step",
            MarkCause::Coupled => "coupled",
            MarkCause::Classic => "classic",
            MarkCause::Overload => "overload",
        }
    }

    pub fn parse(s: &str) -> Option<MarkCause> {
        MarkCause::ALL.into_iter().find(|c| c.name() == s)
    }

    /// Position in [`MarkCause::ALL`], for per-cause counters.
    pub fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> LogHeader {
        let mut h = LogHeader::default();
        for line in text.lines() {
            assert!(
                h.parse_comment(line.strip_prefix('#').unwrap().trim())
                    .unwrap(),
                "{line}"
            );
        }
        h
    }

    #[test]
    fn the_header_round_trips_through_its_text() {
        let h = LogHeader::emu(
            5000,
            "downlink",
            1504,
            10.0,
            "codel:target=5:interval=100",
            0.01,
        );
        let mut text = Vec::new();
        h.write_to(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert_eq!(
            text,
            "# base timestamp: 5000\n\
             # c2tcp-emu v1 direction=downlink opportunity_bytes=1504 delay_ms=10 queue=codel:target=5:interval=100 loss=0.01\n"
        );
        assert_eq!(parse(&text), h);
        let odd = LogHeader::emu(0, "uplink", 1500, 12.345, "infinite", 0.0);
        let mut text = Vec::new();
        odd.write_to(&mut text).unwrap();
        assert_eq!(parse(std::str::from_utf8(&text).unwrap()), odd);
    }

    #[test]
    fn l4s_queues_are_told_by_the_headers_queue() {
        let with = |q: &str| LogHeader::emu(0, "downlink", 1500, 10.0, q, 0.0).has_l4s_queue();
        assert!(with("dualpi2:target=15,packets=100"));
        assert!(with("l4s_ramp"));
        assert!(with("l4s_cell:law=1"));
        assert!(!with("droptail:packets=100") && !with("codel:target=5"));
        assert!(!LogHeader::default().has_l4s_queue());
    }

    #[test]
    fn a_plain_mahimahi_header_reads_as_such() {
        let h = parse("# base timestamp: 1234");
        assert_eq!(h.base_timestamp_ms, Some(1234));
        assert!(!h.is_c2tcp_emu());
        assert_eq!(h.format, MAHIMAHI);
        let mut text = Vec::new();
        h.write_to(&mut text).unwrap();
        assert_eq!(text, b"# base timestamp: 1234\n");
        let mut other = LogHeader::default();
        assert_eq!(other.parse_comment("mahimahi mm-link [...]"), Ok(false));
        assert_eq!(
            other.parse_comment("flow 1 udp 1.2.3.4:5 > 6.7.8.9:10"),
            Ok(false)
        );
        assert_eq!(other, LogHeader::default());
    }

    #[test]
    fn bad_header_lines_say_what_is_wrong() {
        let mut h = LogHeader::default();
        assert!(h
            .parse_comment("base timestamp: soon")
            .unwrap_err()
            .contains("not an integer"));
        assert!(h
            .parse_comment("c2tcp-emu v2")
            .unwrap_err()
            .contains("version v2"));
        assert!(h
            .parse_comment("c2tcp-emu v1 loss=x")
            .unwrap_err()
            .contains("loss is not a number"));
        assert!(h
            .parse_comment("c2tcp-emu v1 queue")
            .unwrap_err()
            .contains("key=value"));
        assert_eq!(h.parse_comment("c2tcp-emu v1 future=1"), Ok(true));
    }

    #[test]
    fn names_round_trip_and_index_matches_all() {
        for (i, r) in DropReason::ALL.into_iter().enumerate() {
            assert_eq!(DropReason::parse(r.name()), Some(r));
            assert_eq!(r.index(), i);
        }
        assert_eq!(DropReason::parse("nope"), None);
    }
}
