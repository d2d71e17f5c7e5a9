// SPDX-License-Identifier: GPL-2.0-only
//! Property tests (proptest) of what the emulator writes and reads, where a
//! byte-level fuzzer (fuzz/) rarely lands: whole well-formed inputs.
//!
//! - a trace written one timestamp a line (plain or gzip, with blank lines
//!   and stray spaces) parses back to the same opportunities;
//! - `constant:` and `steps:` rate specs deliver the rate they name;
//! - every event the emulator's log writer writes (`emu::log::Log`) reads
//!   back through the metrics' log reader (`metrics::log::LogReader`) as
//!   the same event, header included: the writer and the reader agree.
use std::io::Write;
use std::path::Path;

use emu::log::Log;
use emu::rate_spec;
use emu::trace::{decode_text, Trace, MAX_TIMESTAMP_MS};
use logformat::{DropReason, LogHeader, MarkCause};
use metrics::log::{Event, LogReader, MAX_SPAN_US};
use proptest::prelude::*;

fn opportunities() -> impl Strategy<Value = Vec<u64>> {
    // Non-decreasing, ending after 0, up to the longest trace accepted.
    (
        prop::collection::vec(0u64..5_000, 1..400),
        0u64..=MAX_TIMESTAMP_MS / 2,
    )
        .prop_map(|(steps, start)| {
            let mut t = start;
            let mut v: Vec<u64> = steps
                .into_iter()
                .map(|s| {
                    t = (t + s).min(MAX_TIMESTAMP_MS);
                    t
                })
                .collect();
            if *v.last().unwrap() == 0 {
                v.push(1);
            }
            v
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_written_trace_parses_back(opps in opportunities(), blank in 0usize..4, gz: bool) {
        let mut text = String::new();
        for (i, o) in opps.iter().enumerate() {
            if blank > 0 && i % (blank + 3) == 0 {
                text.push_str("  \n");
            }
            text.push_str(&format!("{}{o}\n", " ".repeat(i % blank.max(1))));
        }
        let mut bytes = text.into_bytes();
        if gz {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&bytes).unwrap();
            bytes = e.finish().unwrap();
        }
        let t = Trace::parse(Path::new("p.down"), &decode_text(bytes).unwrap()).unwrap();
        prop_assert_eq!(&t.opportunities, &opps);
        prop_assert_eq!(t.summary().opportunities, opps.len() as u64);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_constant_rate_spec_delivers_its_rate(mbps in 0.004f64..=2_000.0) {
        let spec = format!("constant:{mbps}");
        let t = rate_spec::parse(&spec).unwrap().unwrap();
        let mean = t.summary().mean_mbps;
        // One 1500-byte opportunity more or less over the 1 or 3 s period.
        let slack = 0.012 / (t.period_ms() as f64 / 1000.0) + 1e-9;
        prop_assert!((mean - mbps).abs() <= slack, "{}: mean {} Mbit/s", spec, mean);
    }

    #[test]
    fn a_steps_spec_delivers_each_step(rates in prop::collection::vec(0.0f64..=600.0, 1..5), seg_s in 1u32..4) {
        let body: Vec<String> = rates
            .iter()
            .enumerate()
            .map(|(i, r)| format!("{}:{r}", i as u32 * seg_s))
            .collect();
        let period = rates.len() as u32 * seg_s;
        let spec = format!("steps:{}@{period}", body.join(","));
        let Some(t) = rate_spec::parse(&spec).unwrap() else { unreachable!() };
        prop_assert_eq!(t.period_ms(), period as u64 * 1000);
        for (i, r) in rates.iter().enumerate() {
            let (from, to) = (i as u64 * seg_s as u64 * 1000, (i as u64 + 1) * seg_s as u64 * 1000);
            let n = t.opportunities.iter().filter(|&&o| o > from && o <= to).count();
            let mbps = n as f64 * 1500.0 * 8.0 / (seg_s as f64 * 1e6);
            // A step's first ms can carry the previous step's remainder.
            prop_assert!((mbps - r).abs() <= 0.012 * 2.0 / seg_s as f64 + r * 1e-6 + 1e-3,
                "{}: step {} delivers {} Mbit/s", spec, i, mbps);
        }
    }
}

#[derive(Debug, Clone)]
enum Written {
    Arrival(u64, u32, u32),
    Opportunity(u64, u32),
    Departure(u64, u32, u64, u32, bool, Option<usize>, bool),
    Drop(u64, u32, usize, u32),
}

fn written() -> impl Strategy<Value = Written> {
    // Times up to the longest span a log may have, and the extremes of each field.
    let t = prop_oneof![0u64..1_000_000, 0u64..=MAX_SPAN_US, Just(MAX_SPAN_US)];
    let bytes = prop_oneof![1u32..=1500, any::<u32>()];
    let flow = prop_oneof![0u32..4, any::<u32>()];
    prop_oneof![
        (t.clone(), bytes.clone(), flow.clone()).prop_map(|(t, b, f)| Written::Arrival(t, b, f)),
        (t.clone(), bytes.clone()).prop_map(|(t, b)| Written::Opportunity(t, b)),
        (
            t.clone(),
            bytes.clone(),
            0u64..=60_000_000,
            flow.clone(),
            any::<bool>(),
            proptest::option::of(0usize..MarkCause::ALL.len()),
            any::<bool>()
        )
            .prop_map(|(t, b, d, f, ce, c, l4s)| Written::Departure(t, b, d, f, ce, c, l4s)),
        (t, bytes, 0usize..DropReason::ALL.len(), flow)
            .prop_map(|(t, b, r, f)| Written::Drop(t, b, r, f)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_log_reader_reads_what_the_log_writer_wrote(
        events in prop::collection::vec(written(), 1..300),
        base_ms in 0u64..=MAX_TIMESTAMP_MS,
        delay_ms in 0.0f64..1000.0,
        loss in 0.0f64..=1.0,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("downlink.log");
        let header = LogHeader::emu(0, "downlink", 1500, delay_ms, "codel:target=5,interval=100", loss);
        let base = base_ms * 1000;
        let mut log = Log::create(&path, base, &header).unwrap();
        let mut want = Vec::new();
        for e in &events {
            match *e {
                Written::Arrival(t, bytes, flow) => {
                    log.arrival(base + t, bytes, flow);
                    want.push(Event::Arrival { t, bytes, flow });
                }
                Written::Opportunity(t, bytes) => {
                    log.opportunity(base + t, bytes);
                    want.push(Event::Opportunity { t, bytes });
                }
                Written::Departure(t, bytes, queue_delay, flow, ce, c, l4s) => {
                    let cause = c.map(|i| MarkCause::ALL[i]);
                    log.departure(base + t, bytes, queue_delay, flow, ce, cause, l4s);
                    // A cause is written only after ` ce`.
                    let cause = cause.filter(|_| ce);
                    want.push(Event::Departure { t, bytes, queue_delay, flow, ce, cause, l4s });
                }
                Written::Drop(t, bytes, r, flow) => {
                    let reason = DropReason::ALL[r];
                    log.drop(base + t, bytes, reason, flow);
                    want.push(Event::Drop { t, bytes, reason, flow });
                }
            }
        }
        log.finish().unwrap();
        let file = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
        let mut r = LogReader::new(file, &path);
        let mut got = Vec::new();
        while let Some(ev) = r.next_event().unwrap() {
            got.push(ev);
        }
        prop_assert_eq!(got, want);
        let h = r.header();
        prop_assert_eq!(h.base_timestamp_ms, Some(base_ms));
        prop_assert_eq!(h.delay_ms, Some(delay_ms));
        prop_assert_eq!(h.loss, Some(loss));
        prop_assert_eq!(h.queue.as_deref(), Some("codel:target=5,interval=100"));
    }
}
