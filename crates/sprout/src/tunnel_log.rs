// SPDX-License-Identifier: GPL-2.0-only
//! SproutTunnel's per-packet records (`c2tcp sprout-tunnel --records FILE`):
//! what one tunnel end did with each IP packet it carried, so that the
//! carried flows can be measured one by one although the link sees only the
//! tunnel's UDP datagrams. Written here, read back here (the runner joins
//! the two ends' records into a log per direction: `harness::tunnel`).
//!
//! One line per packet, times in µs of CLOCK_MONOTONIC (the clock the
//! emulator's logs count from), the flow as its 5-tuple:
//!
//! ```text
//! # sprout-tunnel records v1
//! s <enqueued_us> <sent_us> <pkt_no> <len> <flow>    read from the device, sent in Sprout packet pkt_no
//! d <enqueued_us> <dropped_us> <len> <flow>          read from the device, dropped from the longest queue's head
//! r <pkt_no> <written_us> <len> <flow>               the peer's Sprout packet pkt_no, written to the device
//! ```
//!
//! `<flow>` is `proto/src:sport>dst:dport` (`6/100.127.0.1:6000>100.127.0.2:41234`).
//! A sending end's `s` line and the receiving end's `r` line of one packet
//! share `pkt_no` (Sprout packet numbers are unique within a session).
use std::fmt;
use std::io::{self, Write};
use std::net::Ipv4Addr;

use crate::tunnel::FlowKey;

/// The first line of a records file.
pub const HEADER: &str = "# sprout-tunnel records v1";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    Sent {
        enqueued_us: u64,
        sent_us: u64,
        pkt_no: u64,
        len: usize,
        flow: FlowKey,
    },
    Dropped {
        enqueued_us: u64,
        dropped_us: u64,
        len: usize,
        flow: FlowKey,
    },
    Received {
        pkt_no: u64,
        written_us: u64,
        len: usize,
        flow: FlowKey,
    },
}

impl fmt::Display for FlowKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}:{}>{}:{}",
            self.proto,
            Ipv4Addr::from(self.src),
            self.sport,
            Ipv4Addr::from(self.dst),
            self.dport
        )
    }
}

impl std::str::FromStr for FlowKey {
    type Err = String;

    fn from_str(s: &str) -> Result<FlowKey, String> {
        let bad = || format!("`{s}` is not proto/src:sport>dst:dport");
        let (proto, rest) = s.split_once('/').ok_or_else(bad)?;
        let (src, dst) = rest.split_once('>').ok_or_else(bad)?;
        let end = |e: &str| -> Result<([u8; 4], u16), String> {
            let (ip, port) = e.rsplit_once(':').ok_or_else(bad)?;
            let ip: Ipv4Addr = ip.parse().map_err(|_| bad())?;
            Ok((ip.octets(), port.parse().map_err(|_| bad())?))
        };
        let ((src, sport), (dst, dport)) = (end(src)?, end(dst)?);
        Ok(FlowKey {
            proto: proto.parse().map_err(|_| bad())?,
            src,
            dst,
            sport,
            dport,
        })
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Record::Sent {
                enqueued_us,
                sent_us,
                pkt_no,
                len,
                flow,
            } => write!(f, "s {enqueued_us} {sent_us} {pkt_no} {len} {flow}"),
            Record::Dropped {
                enqueued_us,
                dropped_us,
                len,
                flow,
            } => write!(f, "d {enqueued_us} {dropped_us} {len} {flow}"),
            Record::Received {
                pkt_no,
                written_us,
                len,
                flow,
            } => write!(f, "r {pkt_no} {written_us} {len} {flow}"),
        }
    }
}

/// One line: Ok(None) for a comment or a blank line; Err says what is wrong.
pub fn parse_line(line: &str) -> Result<Option<Record>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let f: Vec<&str> = line.split_ascii_whitespace().collect();
    let n = |i: usize| -> Result<u64, String> {
        f.get(i)
            .ok_or_else(|| format!("`{line}`: too few fields"))?
            .parse()
            .map_err(|_| format!("`{line}`: field {} is not a number", i + 1))
    };
    let key = |i: usize| -> Result<FlowKey, String> {
        f.get(i)
            .ok_or_else(|| format!("`{line}`: too few fields"))?
            .parse()
            .map_err(|e| format!("`{line}`: {e}"))
    };
    let want = |k: usize| match f.len() == k {
        true => Ok(()),
        false => Err(format!("`{line}`: {} fields, expected {k}", f.len())),
    };
    Ok(Some(match f[0] {
        "s" => {
            want(6)?;
            Record::Sent {
                enqueued_us: n(1)?,
                sent_us: n(2)?,
                pkt_no: n(3)?,
                len: n(4)? as usize,
                flow: key(5)?,
            }
        }
        "d" => {
            want(5)?;
            Record::Dropped {
                enqueued_us: n(1)?,
                dropped_us: n(2)?,
                len: n(3)? as usize,
                flow: key(4)?,
            }
        }
        "r" => {
            want(5)?;
            Record::Received {
                pkt_no: n(1)?,
                written_us: n(2)?,
                len: n(3)? as usize,
                flow: key(4)?,
            }
        }
        other => return Err(format!("`{line}`: unknown record kind `{other}`")),
    }))
}

/// Writes records, one line each, behind the header.
pub struct RecordWriter<W: Write> {
    w: W,
}

impl<W: Write> RecordWriter<W> {
    pub fn new(mut w: W) -> io::Result<Self> {
        writeln!(w, "{HEADER}")?;
        Ok(RecordWriter { w })
    }

    pub fn write(&mut self, r: &Record) -> io::Result<()> {
        writeln!(self.w, "{r}")
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_through_their_lines() {
        let flow = FlowKey {
            proto: 6,
            src: [100, 127, 0, 1],
            dst: [100, 127, 0, 2],
            sport: 6000,
            dport: 41234,
        };
        let all = [
            Record::Sent {
                enqueued_us: 10,
                sent_us: 20,
                pkt_no: 7,
                len: 1424,
                flow,
            },
            Record::Dropped {
                enqueued_us: 11,
                dropped_us: 30,
                len: 52,
                flow,
            },
            Record::Received {
                pkt_no: 7,
                written_us: 40,
                len: 1424,
                flow,
            },
        ];
        let mut w = RecordWriter::new(Vec::new()).unwrap();
        for r in &all {
            w.write(r).unwrap();
        }
        let text = String::from_utf8(w.w).unwrap();
        assert!(text.starts_with(HEADER));
        assert!(text.contains("s 10 20 7 1424 6/100.127.0.1:6000>100.127.0.2:41234\n"));
        let back: Vec<Record> = text
            .lines()
            .filter_map(|l| parse_line(l).unwrap())
            .collect();
        assert_eq!(back, all);
    }

    #[test]
    fn a_bad_line_is_an_error_naming_it() {
        for bad in [
            "x 1 2",
            "s 1 2 3",
            "r 1 2 3 6/1.2.3.4:5",
            "d a 2 3 6/1.2.3.4:5>1.2.3.4:6",
        ] {
            let e = parse_line(bad).unwrap_err();
            assert!(e.contains(bad), "{e}");
        }
    }
}
