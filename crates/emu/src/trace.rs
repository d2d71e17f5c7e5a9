// SPDX-License-Identifier: GPL-2.0-only
//! Mahimahi packet-delivery traces: one integer per line, the millisecond at
//! which one MTU-sized delivery opportunity occurs (repeats = several in that
//! millisecond). The schedule loops with a period equal to its last timestamp.
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Bytes per delivery opportunity. Mahimahi uses 1504 because it reads TUN
/// packets with the 4-byte packet-information header (no IFF_NO_PI) and so
/// counts every packet 4 bytes long; we read bare IP packets and count
/// their true size, so one full 1500-byte MTU packet per opportunity (the
/// trace format's meaning) is 1500 bytes here. A 12 Mbit/s trace (one line
/// per ms) carries exactly 12 Mbit/s of IP packets.
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// The latest timestamp a trace may hold: a week, in ms. Far beyond any
/// measured trace (minutes to hours), and it keeps what is derived from a
/// trace in range: the per-second rates of [`Trace::summary`] (one counter
/// a second), the emulator's µs clock over many loops. A typo of a few
/// digits (`77575757222404`) is refused here instead of exhausting memory.
pub const MAX_TIMESTAMP_MS: u64 = 7 * 24 * 3600 * 1000;

#[derive(Debug, Error)]
pub enum TraceError {
    #[error("{file}: cannot read")]
    Io {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}:{line}: `{text}` is not a non-negative integer number of milliseconds")]
    NotInteger {
        file: PathBuf,
        line: usize,
        text: String,
    },
    #[error("{file}:{line}: timestamp {ms} is before the previous line's {prev}: timestamps must not decrease")]
    Decreasing {
        file: PathBuf,
        line: usize,
        ms: u64,
        prev: u64,
    },
    #[error("{file}:{line}: timestamp {ms} ms is past a week ({MAX_TIMESTAMP_MS} ms), the longest trace c2tcp runs")]
    TooLate { file: PathBuf, line: usize, ms: u64 },
    #[error("{file}: no lines: a trace needs at least one delivery opportunity")]
    Empty { file: PathBuf },
    #[error("{file}:{line}: the trace ends at 0 ms, so it has no capacity to loop over (its last timestamp must be > 0)")]
    NoCapacity { file: PathBuf, line: usize },
    #[error("{file}: start offset {offset_ms} ms is not shorter than the trace ({period_ms} ms)")]
    OffsetTooLarge {
        file: PathBuf,
        offset_ms: u64,
        period_ms: u64,
    },
}

/// The text of a trace-like file (delivery or delay trace), decompressed
/// when it starts with gzip's magic bytes, so `X.down.gz` reads as `X.down`.
pub fn read_text(path: &Path) -> Result<String, TraceError> {
    let io = |source| TraceError::Io {
        file: path.into(),
        source,
    };
    let bytes = std::fs::read(path).map_err(io)?;
    decode_text(bytes).map_err(io)
}

/// The bytes of a trace-like file as text: gunzipped when they start with
/// gzip's magic bytes, else taken as they are; UTF-8 either way.
/// [`read_text`] without the file (the fuzz target's entry, fuzz/).
pub fn decode_text(bytes: Vec<u8>) -> std::io::Result<String> {
    use std::io::Read;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return String::from_utf8(bytes)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e));
    }
    let mut text = String::with_capacity(bytes.len() * 6);
    // MultiGzDecoder: `cat a.gz b.gz` is a valid gzip file too.
    flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_string(&mut text)?;
    Ok(text)
}

/// A parsed trace: non-decreasing opportunity timestamps in ms.
#[derive(Debug, Clone)]
pub struct Trace {
    pub path: PathBuf,
    pub opportunities: Vec<u64>,
}

impl Trace {
    /// Reads a trace file, plain or gzip-compressed (told by its first
    /// bytes, not its name).
    pub fn load(path: &Path) -> Result<Trace, TraceError> {
        Trace::parse(path, &read_text(path)?)
    }

    /// Parses trace text; `path` only names the source in errors. Blank
    /// lines are ignored (a trailing newline is common).
    pub fn parse(path: &Path, text: &str) -> Result<Trace, TraceError> {
        let mut opportunities = Vec::with_capacity(text.len() / 4);
        let mut last_line = 0;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let s = raw.trim();
            if s.is_empty() {
                continue;
            }
            let ms: u64 = s.parse().map_err(|_| TraceError::NotInteger {
                file: path.into(),
                line,
                text: s.chars().take(40).collect(),
            })?;
            if ms > MAX_TIMESTAMP_MS {
                return Err(TraceError::TooLate {
                    file: path.into(),
                    line,
                    ms,
                });
            }
            if let Some(&prev) = opportunities.last() {
                if ms < prev {
                    return Err(TraceError::Decreasing {
                        file: path.into(),
                        line,
                        ms,
                        prev,
                    });
                }
            }
            opportunities.push(ms);
            last_line = line;
        }
        match opportunities.last() {
            None => Err(TraceError::Empty { file: path.into() }),
            Some(0) => Err(TraceError::NoCapacity {
                file: path.into(),
                line: last_line,
            }),
            Some(_) => Ok(Trace {
                path: path.into(),
                opportunities,
            }),
        }
    }

    /// The loop period in ms (the last timestamp, as Mahimahi).
    pub fn period_ms(&self) -> u64 {
        *self
            .opportunities
            .last()
            .expect("a parsed trace is never empty")
    }
}

/// Walks a trace's opportunities in time order, looping unless `once`.
/// Times are µs relative to the start of emulation.
#[derive(Debug, Clone)]
pub struct Cursor {
    opportunities: std::sync::Arc<Vec<u64>>,
    idx: usize,
    /// Added to a trace timestamp (ms) to get the emulation time (ms); it
    /// starts at -offset and grows by one period per loop.
    shift_ms: i64,
    once: bool,
    ended: bool,
}

impl Cursor {
    /// Starts `offset_ms` into the trace (its first `offset_ms` are skipped).
    pub fn new(trace: &Trace, offset_ms: u64, once: bool) -> Result<Cursor, TraceError> {
        let period = trace.period_ms();
        if offset_ms >= period && offset_ms > 0 {
            return Err(TraceError::OffsetTooLarge {
                file: trace.path.clone(),
                offset_ms,
                period_ms: period,
            });
        }
        let idx = trace.opportunities.partition_point(|&t| t < offset_ms);
        Ok(Cursor {
            opportunities: std::sync::Arc::new(trace.opportunities.clone()),
            idx,
            shift_ms: -(offset_ms as i64),
            once,
            ended: false,
        })
    }

    /// The next opportunity's time in µs since start, or None once a
    /// `--once` trace has run out.
    #[inline]
    pub fn peek_us(&self) -> Option<u64> {
        if self.ended {
            return None;
        }
        Some((self.opportunities[self.idx] as i64 + self.shift_ms) as u64 * 1000)
    }

    /// Moves past the current opportunity.
    #[inline]
    pub fn advance(&mut self) {
        self.idx += 1;
        if self.idx == self.opportunities.len() {
            if self.once {
                self.ended = true;
                self.idx -= 1;
            } else {
                self.idx = 0;
                self.shift_ms += *self.opportunities.last().unwrap() as i64;
            }
        }
    }

    pub fn ended(&self) -> bool {
        self.ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Trace, TraceError> {
        Trace::parse(Path::new("t.up"), text)
    }

    #[test]
    fn parses_repeats_and_blank_lines() {
        let t = parse("1\n1\n3\n\n5\n").unwrap();
        assert_eq!(t.opportunities, vec![1, 1, 3, 5]);
        assert_eq!(t.period_ms(), 5);
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = parse("1\n2\nx3\n").unwrap_err().to_string();
        assert!(e.starts_with("t.up:3:") && e.contains("`x3`"), "{e}");
        let e = parse("1\n-2\n").unwrap_err().to_string();
        assert!(e.starts_with("t.up:2:"), "{e}");
        let e = parse("1.5\n").unwrap_err().to_string();
        assert!(e.starts_with("t.up:1:"), "{e}");
        let e = parse("5\n7\n6\n").unwrap_err().to_string();
        assert!(
            e.starts_with("t.up:3:") && e.contains("6") && e.contains("7"),
            "{e}"
        );
        let e = parse("").unwrap_err().to_string();
        assert!(e.starts_with("t.up:") && e.contains("no lines"), "{e}");
        let e = parse("\n  \n").unwrap_err().to_string();
        assert!(e.contains("no lines"), "{e}");
        let e = parse("0\n0\n").unwrap_err().to_string();
        assert!(e.starts_with("t.up:2:") && e.contains("no capacity"), "{e}");
    }

    /// Found by fuzz/fuzz_targets/trace.rs: a timestamp of a few digits too
    /// many parsed, and its summary then asked for a counter per second of
    /// 2 400 years. A week is the limit, named with its line.
    #[test]
    fn timestamps_past_a_week_are_refused() {
        let e = parse("617\n77617\n77575757222404\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.up:3:") && e.contains("77575757222404") && e.contains("week"),
            "{e}"
        );
        let e = parse(&format!("{}\n", u64::MAX)).unwrap_err().to_string();
        assert!(e.starts_with("t.up:1:"), "{e}");
        let t = parse(&format!("1\n{MAX_TIMESTAMP_MS}\n")).unwrap();
        assert_eq!(t.summary().duration_ms, MAX_TIMESTAMP_MS);
    }

    #[test]
    fn missing_file_is_named() {
        let e = Trace::load(Path::new("/nonexistent/x.down"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nonexistent/x.down"), "{e}");
    }

    fn times(c: &mut Cursor, n: usize) -> Vec<Option<u64>> {
        (0..n)
            .map(|_| {
                let t = c.peek_us();
                c.advance();
                t.map(|us| us / 1000)
            })
            .collect()
    }

    #[test]
    fn cursor_loops_with_the_last_timestamp_as_period() {
        let t = parse("0\n2\n2\n4\n").unwrap();
        let mut c = Cursor::new(&t, 0, false).unwrap();
        assert_eq!(times(&mut c, 9), [0, 2, 2, 4, 4, 6, 6, 8, 8].map(Some));
    }

    #[test]
    fn cursor_once_ends_and_offset_skips() {
        let t = parse("1\n2\n3\n10\n").unwrap();
        let mut c = Cursor::new(&t, 0, true).unwrap();
        assert_eq!(
            times(&mut c, 5),
            vec![Some(1), Some(2), Some(3), Some(10), None]
        );
        assert!(c.ended());
        let mut c = Cursor::new(&t, 3, false).unwrap();
        assert_eq!(times(&mut c, 5), [0, 7, 8, 9, 10].map(Some));
        assert!(Cursor::new(&t, 10, false).is_err());
    }
}

/// A gap of at least this long between opportunities counts as an outage.
pub const OUTAGE_GAP_MS: u64 = 100;

/// What `c2tcp trace stats` reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    pub duration_ms: u64,
    pub opportunities: u64,
    pub mean_mbps: f64,
    /// Highest rate over any whole second.
    pub peak_mbps: f64,
    /// Lowest rate over any whole second.
    pub min_mbps: f64,
    /// Time in gaps of at least OUTAGE_GAP_MS without an opportunity.
    pub outage_ms: u64,
    pub outages: u64,
}

impl Trace {
    pub fn summary(&self) -> Summary {
        let o = &self.opportunities;
        let duration_ms = self.period_ms();
        let bits = |n: usize| n as f64 * OPPORTUNITY_BYTES as f64 * 8.0;
        let mut per_second = vec![0usize; duration_ms.div_ceil(1000) as usize];
        for &t in o {
            // Timestamp t covers the ms ending at t (1-based); 0 joins the first second.
            let s = (t.saturating_sub(1) / 1000) as usize;
            if let Some(c) = per_second.get_mut(s) {
                *c += 1;
            }
        }
        let whole = (duration_ms / 1000) as usize;
        let seconds = if whole > 0 {
            &per_second[..whole]
        } else {
            &per_second[..]
        };
        let peak = seconds.iter().copied().max().unwrap_or(0);
        let min = seconds.iter().copied().min().unwrap_or(0);
        let (mut outage_ms, mut outages) = (0, 0);
        let mut prev = 0;
        for &t in o.iter().chain(std::iter::once(&(duration_ms + o[0]))) {
            // The last gap wraps around to the next loop's first opportunity.
            let gap = t - prev;
            if gap >= OUTAGE_GAP_MS {
                outage_ms += gap;
                outages += 1;
            }
            prev = t;
        }
        Summary {
            duration_ms,
            opportunities: o.len() as u64,
            mean_mbps: bits(o.len()) / duration_ms as f64 / 1000.0,
            peak_mbps: bits(peak) / 1e6,
            min_mbps: bits(min) / 1e6,
            outage_ms,
            outages,
        }
    }
}

#[cfg(test)]
mod summary_tests {
    use super::*;

    #[test]
    fn summary_of_a_small_trace() {
        // 2 s: first second 1 opportunity per ms, then a 500 ms outage.
        let mut text: Vec<String> = (1..=1000).map(|t| t.to_string()).collect();
        text.extend((1501..=2000).map(|t| t.to_string()));
        let t = Trace::parse(Path::new("s"), &text.join("\n")).unwrap();
        let s = t.summary();
        assert_eq!((s.duration_ms, s.opportunities), (2000, 1500));
        assert!((s.mean_mbps - 9.0).abs() < 1e-9, "{s:?}");
        assert!(
            (s.peak_mbps - 12.0).abs() < 1e-9 && (s.min_mbps - 6.0).abs() < 1e-9,
            "{s:?}"
        );
        assert_eq!((s.outage_ms, s.outages), (501, 1));
    }
}
