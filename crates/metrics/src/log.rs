// SPDX-License-Identifier: GPL-2.0-only
//! Streaming reader of the emulator's per-direction packet log.
//!
//! The format is Mahimahi's mm-link log with µs precision, flow ids and drop
//! lines (`# c2tcp-emu v1` in the header):
//!
//! ```text
//! # base timestamp: <integer ms>
//! # c2tcp-emu v1 direction=downlink opportunity_bytes=1504 delay_ms=10 queue=droptail:packets=100 loss=0
//! # flow <id> <tcp|udp|icmp|other> <src_ip>:<sport> > <dst_ip>:<dport>
//! <t> + <bytes> <flow>                  arrival at the bottleneck queue
//! <t> # <bytes>                         a delivery opportunity of <bytes>
//! <t> - <bytes> <queue_delay> <flow>    departure; queue_delay = departure − arrival
//! <t> d <bytes> <reason> <flow>         drop
//! ```
//!
//! Times are ms with up to 6 decimals, kept as integer µs so that sums and
//! comparisons are exact. Plain mm-link logs are read too: integer ms counted
//! from mm-link's own start (so the base timestamp is subtracted), no flow
//! column (everything is flow 0), no drop lines.
//!
//! Logs are large (≈ 750k lines a minute at 50 Mbit/s), so lines are read into
//! one reused buffer and parsed in place; only `# flow` lines allocate.
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Error;

/// Time in µs since the log's base timestamp.
pub type Micros = u64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Tcp,
    Udp,
    Icmp,
    Other,
}

impl Protocol {
    fn parse(s: &str) -> Option<Protocol> {
        Some(match s {
            "tcp" => Protocol::Tcp,
            "udp" => Protocol::Udp,
            "icmp" => Protocol::Icmp,
            "other" => Protocol::Other,
            _ => return None,
        })
    }
}

/// A flow's 5-tuple, from its `# flow` line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowInfo {
    pub id: u32,
    pub proto: Protocol,
    /// `ip:port` (IPv6 addresses keep their colons; the port is after the last one).
    pub src: String,
    pub dst: String,
}

impl FlowInfo {
    pub fn src_port(&self) -> Option<u16> {
        port_of(&self.src)
    }
    pub fn dst_port(&self) -> Option<u16> {
        port_of(&self.dst)
    }
}

fn port_of(endpoint: &str) -> Option<u16> {
    endpoint.rsplit_once(':')?.1.parse().ok()
}

pub use logformat::{DropReason, MarkCause};

/// What the header lines said (written and parsed by `logformat`, their
/// one owner). Fields the log did not give are None.
pub use logformat::LogHeader;

/// One data line of the log.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Arrival {
        t: Micros,
        bytes: u32,
        flow: u32,
    },
    Opportunity {
        t: Micros,
        bytes: u32,
    },
    Departure {
        t: Micros,
        bytes: u32,
        queue_delay: Micros,
        flow: u32,
        /// The queue marked it CE (a trailing `ce` field; never in mm-link logs).
        ce: bool,
        /// Why, where the queue tells (`ce:<cause>`).
        cause: Option<MarkCause>,
        /// It went through an L4S queue (a trailing `l` field, after `ce`).
        l4s: bool,
    },
    Drop {
        t: Micros,
        bytes: u32,
        reason: DropReason,
        flow: u32,
    },
    Flow(FlowInfo),
}

/// Pull-style reader: `while let Some(ev) = reader.next_event()? { … }`.
pub struct LogReader<R> {
    input: R,
    path: PathBuf,
    line_no: u64,
    buf: Vec<u8>,
    header: LogHeader,
}

impl LogReader<BufReader<File>> {
    pub fn open(path: &Path) -> Result<Self, Error> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(LogReader::new(
            BufReader::with_capacity(1 << 16, file),
            path,
        ))
    }
}

impl<R: BufRead> LogReader<R> {
    /// `path` only names the input in errors.
    pub fn new(input: R, path: &Path) -> Self {
        LogReader {
            input,
            path: path.to_owned(),
            line_no: 0,
            buf: Vec::with_capacity(128),
            header: LogHeader::default(),
        }
    }

    /// The header as far as read; complete once the first data event is out.
    pub fn header(&self) -> &LogHeader {
        &self.header
    }

    pub fn next_event(&mut self) -> Result<Option<Event>, Error> {
        loop {
            self.buf.clear();
            let n = self
                .input
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| Error::io(&self.path, e))?;
            if n == 0 {
                return Ok(None);
            }
            self.line_no += 1;
            let line = std::str::from_utf8(&self.buf)
                .map_err(|_| Error::parse(&self.path, self.line_no, "not UTF-8 text"))?
                .trim();
            if line.is_empty() {
                continue;
            }
            let parsed = if let Some(comment) = line.strip_prefix('#') {
                parse_comment(comment.trim(), &mut self.header)
            } else {
                parse_data(line, &self.header).map(Some)
            };
            match parsed {
                Ok(Some(event)) => return Ok(Some(event)),
                Ok(None) => continue,
                Err(msg) => {
                    return Err(Error::parse(
                        &self.path,
                        self.line_no,
                        format!("{msg}: {line:?}"),
                    ))
                }
            }
        }
    }
}

/// Header and flow lines; other comments (mm-link writes several) are skipped.
fn parse_comment(text: &str, header: &mut LogHeader) -> Result<Option<Event>, String> {
    if header.parse_comment(text)? {
        return Ok(None);
    }
    if let Some(rest) = text.strip_prefix("flow ") {
        return parse_flow(rest).map(|f| Some(Event::Flow(f)));
    }
    Ok(None)
}

fn parse_flow(text: &str) -> Result<FlowInfo, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [id, proto, src, ">", dst] = fields[..] else {
        return Err("flow line is not `# flow <id> <proto> <src>:<port> > <dst>:<port>`".into());
    };
    let id = id.parse().map_err(|_| "flow id is not an integer")?;
    let proto = Protocol::parse(proto).ok_or("flow protocol is not tcp, udp, icmp or other")?;
    for endpoint in [src, dst] {
        if port_of(endpoint).is_none() {
            return Err(format!("flow endpoint {endpoint:?} is not ip:port"));
        }
    }
    Ok(FlowInfo {
        id,
        proto,
        src: src.to_owned(),
        dst: dst.to_owned(),
    })
}

fn parse_data(line: &str, header: &LogHeader) -> Result<Event, String> {
    let mut fields = line.split_ascii_whitespace();
    let mut next = |what: &str| fields.next().ok_or_else(|| format!("missing {what}"));
    let t_field = next("time")?;
    let kind = next("event type")?;
    let bytes: u32 = next("byte count")?
        .parse()
        .map_err(|_| "byte count is not an integer")?;
    // Our emulator logs times relative to the base; mm-link from its own start.
    let offset = if header.is_c2tcp_emu() {
        0
    } else {
        header.base_timestamp_ms.unwrap_or(0).saturating_mul(1000)
    };
    let t = parse_ms(t_field)
        .ok_or("time is not a non-negative number of ms")?
        .saturating_sub(offset);
    if t > MAX_SPAN_US {
        return Err(format!(
            "time {} ms is more than {} h after the log's start: not a run's log",
            t / 1000,
            MAX_SPAN_US / 3_600_000_000
        ));
    }
    let event = match kind {
        "+" => Event::Arrival {
            t,
            bytes,
            flow: parse_flow_id(fields.next())?,
        },
        "#" => Event::Opportunity { t, bytes },
        "-" => {
            let delay = fields
                .next()
                .ok_or("departure without its queueing delay")?;
            let queue_delay = parse_ms(delay)
                .filter(|&d| d <= MAX_SPAN_US)
                .ok_or("queueing delay is not a number of ms between 0 and the log's span")?;
            let flow = parse_flow_id(fields.next())?;
            // Marks, in this order: `ce` (or `ce:<cause>`), then `l`.
            let mut mark = fields.next();
            let (mut ce, mut cause) = (false, None);
            if let Some(word) = mark.and_then(|m| m.strip_prefix("ce")) {
                ce = true;
                if let Some(name) = word.strip_prefix(':') {
                    cause = Some(MarkCause::parse(name).ok_or_else(|| {
                        format!("mark cause {name:?} is not step|coupled|classic|overload")
                    })?);
                } else if !word.is_empty() {
                    return Err(format!(
                        "departure mark \"ce{word}\" is not `ce` or `ce:<cause>`"
                    ));
                }
                mark = fields.next();
            }
            let l4s = match mark {
                None => false,
                Some("l") => true,
                Some(other) => {
                    return Err(format!(
                        "departure mark {other:?} is not `ce` or `l` (in that order)"
                    ))
                }
            };
            Event::Departure {
                t,
                bytes,
                queue_delay,
                flow,
                ce,
                cause,
                l4s,
            }
        }
        "d" => {
            let reason = fields.next().ok_or("drop without its reason")?;
            let reason = DropReason::parse(reason)
                .ok_or("drop reason is not tail|head|codel|pie|loss|oversize|dualpi2|stale")?;
            Event::Drop {
                t,
                bytes,
                reason,
                flow: parse_flow_id(fields.next())?,
            }
        }
        _ => return Err(format!("unknown event type {kind:?}")),
    };
    if fields.next().is_some() {
        return Err("too many fields".into());
    }
    Ok(event)
}

/// The longest a log may run, from its base timestamp: an hour of
/// emulation (the longest scenario runs 100 s). The analysis keeps Sprout's
/// omniscient delay every 0.1 ms and a counter per time bin over the log's
/// whole span, so one line with a corrupt time (`99999999999.000`) asked
/// for terabytes (found by fuzz/fuzz_targets/emu_log.rs); an hour of
/// samples is ~150 MB.
pub const MAX_SPAN_US: Micros = 3_600_000_000;

/// Missing flow column (plain mm-link) = flow 0.
fn parse_flow_id(field: Option<&str>) -> Result<u32, String> {
    field.map_or(Ok(0), |f| {
        f.parse()
            .map_err(|_| "flow id is not an integer".to_string())
    })
}

/// "1234", "1234.5" or "1234.567" ms → µs; digits past the µs are rounded off.
pub(crate) fn parse_ms(s: &str) -> Option<Micros> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut us = int.parse::<u64>().ok()?.checked_mul(1000)?;
    let mut scale = 100;
    for (i, digit) in frac.bytes().map(|b| u64::from(b - b'0')).enumerate() {
        // Checked: `18446744073709551.999` is past u64's µs.
        if i < 3 {
            us = us.checked_add(digit * scale)?;
            scale /= 10;
        } else {
            if i == 3 && digit >= 5 {
                us = us.checked_add(1)?;
            }
            break;
        }
    }
    Some(us)
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Every µs time the emulator can write (`emu::clock::write_ms3`:
        /// ms, a dot, three digits) reads back exactly.
        #[test]
        fn every_written_time_reads_back(us: u64) {
            let text = format!("{}.{:03}", us / 1000, us % 1000);
            prop_assert_eq!(parse_ms(&text), Some(us));
        }

        /// Any digits, any number of decimals: a time or None, never a
        /// panic or a wrapped value (the largest reads are near u64::MAX).
        #[test]
        fn any_decimal_reads_or_is_refused(int in "[0-9]{1,22}", frac in "[0-9]{0,8}") {
            let text = if frac.is_empty() { int.clone() } else { format!("{int}.{frac}") };
            if let Some(us) = parse_ms(&text) {
                let exact = int.parse::<u128>().unwrap() * 1000
                    + format!("{frac:0<3}")[..3].parse::<u128>().unwrap();
                prop_assert!(us as u128 == exact || us as u128 == exact + 1, "{} -> {}", text, us);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzz/fuzz_targets/emu_log.rs: one line with a time of
    /// 3 years made the analysis allocate for every 0.1 ms of it (out of
    /// memory); the reader now refuses a time past the log's longest span,
    /// naming the line. And a time at u64's end no longer overflows.
    #[test]
    fn times_past_the_longest_span_are_refused() {
        let log = "# base timestamp: 0\n# c2tcp-emu v1 direction=downlink\n\
                   0.000 # 1500\n99999999999.000 # 1500\n";
        let mut r = LogReader::new(log.as_bytes(), Path::new("d.log"));
        assert!(matches!(
            r.next_event(),
            Ok(Some(Event::Opportunity { t: 0, .. }))
        ));
        let e = r.next_event().unwrap_err().to_string();
        assert!(
            e.contains("d.log") && e.contains(":4") && e.contains("1 h"),
            "{e}"
        );
        let log = "0 - 1500 99999999999 1\n";
        let e = LogReader::new(log.as_bytes(), Path::new("d.log"))
            .next_event()
            .unwrap_err();
        assert!(e.to_string().contains("queueing delay"), "{e}");
        assert_eq!(parse_ms("18446744073709551.615"), Some(u64::MAX));
        assert_eq!(parse_ms("18446744073709551.616"), None);
        assert_eq!(parse_ms("18446744073709551.6155"), None);
        let log = format!("# base timestamp: {}\n5 # 1500\n", u64::MAX);
        let mut r = LogReader::new(log.as_bytes(), Path::new("d.log"));
        assert!(matches!(
            r.next_event(),
            Ok(Some(Event::Opportunity { t: 0, .. }))
        ));
    }

    #[test]
    fn ms_fields_become_exact_micros() {
        assert_eq!(parse_ms("0"), Some(0));
        assert_eq!(parse_ms("1234"), Some(1_234_000));
        assert_eq!(parse_ms("1234.5"), Some(1_234_500));
        assert_eq!(parse_ms("1234.567"), Some(1_234_567));
        assert_eq!(parse_ms("0.0005"), Some(1));
        assert_eq!(parse_ms("-1"), None);
        assert_eq!(parse_ms("1e3"), None);
        assert_eq!(parse_ms(".5"), None);
    }

    #[test]
    fn flow_lines_keep_ipv6_endpoints() {
        let f = parse_flow("3 udp fd00::1:4000 > fd00::2:5000").unwrap();
        assert_eq!(
            (f.id, f.proto, f.src_port(), f.dst_port()),
            (3, Protocol::Udp, Some(4000), Some(5000))
        );
    }
}
