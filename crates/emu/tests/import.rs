// SPDX-License-Identifier: GPL-2.0-only
//! `emu::import`: a small synthetic log of each format gives a trace whose
//! rate in every second is the log's to within one opportunity, with even
//! and Poisson spacing; Poisson spacing is the same for the same seed;
//! malformed rows are refused with file and line.
use std::path::Path;

use emu::import::{self, Direction, Format, GNetTrackFilter, Spacing};
use emu::trace::Trace;

/// Mbit/s per opportunity per ms (1500 bytes).
const MBPS_PER_OPP_MS: f64 = 12.0;

/// Opportunities in each whole second (ms timestamps are 1-based: the
/// second s holds (1000 s, 1000 (s + 1)]).
fn per_second(opps: &[u64], seconds: usize) -> Vec<usize> {
    let mut n = vec![0; seconds];
    for &t in opps {
        if let Some(c) = n.get_mut((t.saturating_sub(1) / 1000) as usize) {
            *c += 1;
        }
    }
    n
}

/// Asserts every second's count is the rate's within one opportunity and
/// that the trace parses as a Mahimahi trace.
fn assert_rates(what: &str, opps: &[u64], mbps: &[f64]) {
    let n = per_second(opps, mbps.len());
    for (s, (&got, &rate)) in n.iter().zip(mbps).enumerate() {
        let want = rate * 1000.0 / MBPS_PER_OPP_MS;
        // The closing opportunity of the last ms may add one more.
        assert!(
            (got as f64 - want).abs() <= 1.0 + 1e-9,
            "{what}: second {s}: {got} opportunities, the log's {rate} Mbit/s is {want:.2}"
        );
    }
    let text: String = opps.iter().map(|t| format!("{t}\n")).collect();
    Trace::parse(Path::new(what), &text).expect("a valid trace");
}

const RATES: [f64; 6] = [63.0, 2.0, 0.0, 354.7, 0.5, 120.25];

fn gnettrack_log(rates: &[f64]) -> String {
    let mut s = String::from(
        "Timestamp,Longitude,Latitude,Speed,Operatorname,CellID,NetworkMode,RSRP,RSRQ,SNR,CQI,RSSI,DL_bitrate,UL_bitrate,State\n",
    );
    for (i, r) in rates.iter().enumerate() {
        let mode = if i % 2 == 0 { "5G" } else { "LTE" };
        s += &format!(
            "2020.02.14_13.21.{:02},-8.39,51.88,0,B,11,{mode},-103,-15,5.0,12,-107,{},{},D\n",
            20 + i,
            r * 1000.0,
            (i * 7) as f64
        );
    }
    s
}

fn plain_log(rates: &[f64]) -> String {
    let mut s = String::from("# an iPerf log, one row a second\ntime,mbps\n");
    for (i, r) in rates.iter().enumerate() {
        s += &format!("{}.0,{r}\n", i + 100);
    }
    s
}

#[test]
fn each_format_keeps_every_seconds_rate_to_one_opportunity() {
    let g = import::read_gnettrack(
        Path::new("g.csv"),
        &gnettrack_log(&RATES),
        &GNetTrackFilter::default(),
    )
    .unwrap();
    let p = import::read_plain(Path::new("p.csv"), &plain_log(&RATES)).unwrap();
    for (name, s) in [("gnettrack", &g), ("plain", &p)] {
        assert_eq!(s.duration_ms, 6000, "{name}");
        assert_eq!(s.steps.len(), 6, "{name}");
        for spacing in [Spacing::Even, Spacing::Poisson { seed: 7 }] {
            let opps = s.opportunities(spacing).unwrap();
            assert_rates(&format!("{name} {spacing:?}"), &opps, &RATES);
        }
    }
    assert_eq!(g.network_modes, vec![("5G".into(), 3), ("LTE".into(), 3)]);
    // The uplink column is read when asked for.
    let up = import::read_gnettrack(
        Path::new("g.csv"),
        &gnettrack_log(&RATES),
        &GNetTrackFilter {
            direction: Direction::Up,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(up.steps[1].mbps, 0.007);
}

#[test]
fn poisson_spacing_is_seeded_and_not_even() {
    let s = import::read_plain(Path::new("p.csv"), &plain_log(&RATES)).unwrap();
    let a = s.opportunities(Spacing::Poisson { seed: 1 }).unwrap();
    assert_eq!(a, s.opportunities(Spacing::Poisson { seed: 1 }).unwrap());
    let b = s.opportunities(Spacing::Poisson { seed: 2 }).unwrap();
    assert_ne!(a, b, "another seed, other times");
    assert_eq!(a.len(), b.len(), "the same counts");
    let even = s.opportunities(Spacing::Even).unwrap();
    assert_ne!(a, even);
    // Poisson spacing leaves some ms of a 63 Mbit/s second empty and others
    // with more than the even 5-6; even spacing never does.
    let in_ms = |o: &[u64], ms: u64| o.iter().filter(|&&t| t == ms).count();
    let counts: Vec<usize> = (1..=1000).map(|ms| in_ms(&a, ms)).collect();
    assert!(
        counts.contains(&0) && counts.iter().any(|&c| c > 6),
        "{counts:?}"
    );
    assert!((1..=1000).all(|ms| (5..=6).contains(&in_ms(&even, ms))));
}

#[test]
fn shared_timestamps_average_gaps_hold_and_filters_cut_out() {
    let log = "Timestamp,DL_bitrate,UL_bitrate,State,NetworkMode\n\
               2020.02.14_13.21.26,12000,0,D,5G\n\
               2020.02.14_13.21.27,24000,0,D,5G\n\
               2020.02.14_13.21.27,36000,0,D,5G\n\
               2020.02.14_13.21.29,6000,0,D,LTE\n\
               2020.02.14_13.21.30,0,0,I,LTE\n\
               2020.02.14_13.21.31,48000,0,D,5G\n";
    let s = import::read_gnettrack(Path::new("g.csv"), log, &GNetTrackFilter::default()).unwrap();
    // 12 for 1 s; (24+36)/2 = 30 for 2 s (the gap holds it); 6 for 1 s;
    // the idle row's second cut out; 48 for the last second.
    let got: Vec<(u64, f64)> = s.steps.iter().map(|s| (s.start_ms, s.mbps)).collect();
    assert_eq!(
        got,
        vec![(0, 12.0), (1000, 30.0), (3000, 6.0), (4000, 48.0)]
    );
    assert_eq!(
        (s.duration_ms, s.rows, s.rows_skipped, s.longest_gap_ms),
        (5000, 6, 1, 2000)
    );
    let opps = s.opportunities(Spacing::Even).unwrap();
    assert_rates("filtered", &opps, &[12.0, 30.0, 30.0, 6.0, 48.0]);
    // Only 5G rows: the LTE second goes too.
    let only_5g = GNetTrackFilter {
        network_modes: vec!["5G".into()],
        ..Default::default()
    };
    let s = import::read_gnettrack(Path::new("g.csv"), log, &only_5g).unwrap();
    assert_eq!(s.duration_ms, 4000);
    // Every state kept: the idle second is a second of nothing.
    let all = GNetTrackFilter {
        states: vec![],
        ..Default::default()
    };
    let s = import::read_gnettrack(Path::new("g.csv"), log, &all).unwrap();
    assert_eq!(s.duration_ms, 6000);
    // A window keeps its part of the schedule, from 0.
    let w = s.window(1500, Some(4500)).unwrap();
    let got: Vec<(u64, f64)> = w.steps.iter().map(|s| (s.start_ms, s.mbps)).collect();
    assert_eq!(got, vec![(0, 30.0), (1500, 6.0), (2500, 0.0)]);
    assert_eq!(w.duration_ms, 3000);
}

/// A download log as the UCC dataset's: a ping test row (PINGAVG, or
/// PINGLOSS alone when every ping was lost) at each of the recorder's
/// restarts. (second, kbit/s, ping columns) per row.
fn download_log(rows: &[(u32, u32, &str)]) -> String {
    let mut s = String::from("Timestamp,DL_bitrate,UL_bitrate,State,PINGAVG,PINGLOSS\n");
    for (sec, kbps, ping) in rows {
        s += &format!("2020.02.14_13.21.{sec:02},{kbps},0,D,{ping}\n");
    }
    s
}

#[test]
fn restarts_are_bridged_after_the_window_and_the_cells_dips_kept() {
    let (no, avg, loss) = ("-,-", "67.0,0.0", "-,100.0");
    let log = download_log(&[
        (0, 120_000, no),
        (1, 120_000, no),
        (2, 120_000, no),
        (3, 120_000, no),
        (4, 120_000, no),
        // The download ends; the ping row repeats its second; the next
        // download's first second is a ramp.
        (5, 0, no),
        (5, 0, avg),
        (6, 10_000, no),
        (7, 120_000, no),
        (8, 120_000, no),
        // The cell's own dip, four rows after the marker.
        (9, 0, no),
        (10, 0, no),
        (11, 120_000, no),
        (12, 120_000, no),
        (13, 120_000, no),
        // A restart that hardly shows: at half the level (60 of 120) the
        // row before the marker is kept, and the marker shares its second.
        (14, 60_000, no),
        (14, 60_000, loss),
        (15, 120_000, no),
        (16, 120_000, no),
        (17, 120_000, no),
    ]);
    let s = import::read_gnettrack(Path::new("g.csv"), &log, &GNetTrackFilter::default()).unwrap();
    assert_eq!((s.markers, s.duration_ms), (Some(2), 18_000));
    let restart: Vec<u64> = s
        .steps
        .iter()
        .filter(|s| s.restart)
        .map(|s| s.start_ms)
        .collect();
    assert_eq!(restart, vec![5000, 6000], "the 2 s of the first restart");
    // Without bridging, the schedule is the log's (restarts included).
    let raw: Vec<f64> = s.steps.iter().map(|s| s.mbps).collect();
    assert_eq!(raw[5..7], [0.0, 10.0]);

    let (b, cut) = s.bridge_restarts().unwrap();
    assert_eq!((cut.spans, b.duration_ms), (vec![(5000, 7000)], 16_000));
    let rates: Vec<f64> = b.steps.iter().map(|s| s.mbps).collect();
    let mut want = vec![120.0; 16];
    want[7] = 0.0; // the dip (seconds 9 and 10 of the log)
    want[8] = 0.0;
    want[12] = 60.0; // second 14: its own row and the marker, averaged
    assert_eq!(rates, want);
    assert!(b
        .steps
        .windows(2)
        .all(|w| w[1].start_ms == w[0].start_ms + 1000));
    assert_rates("bridged", &b.opportunities(Spacing::Even).unwrap(), &want);
    assert!((b.mean_mbps() - (13.0 * 120.0 + 60.0) / 16.0).abs() < 1e-9);

    // The window is taken in the recording's time, then bridged: seconds
    // 3-10 of the log are 120 120 [0 10] 120 120 0, 5 s once bridged.
    let w = s.window(3000, Some(10_000)).unwrap();
    let (wb, cut) = w.bridge_restarts().unwrap();
    assert_eq!((cut.cut_ms(), wb.duration_ms), (2000, 5000));
    assert_eq!(cut.spans, vec![(2000, 4000)], "in the window's time");
    let rates: Vec<f64> = wb.steps.iter().map(|s| s.mbps).collect();
    assert_eq!(rates, vec![120.0, 120.0, 120.0, 120.0, 0.0]);
    // A window that starts inside a restart cuts the rest of it.
    let (_, cut) = s.window(6000, None).unwrap().bridge_restarts().unwrap();
    assert_eq!(cut.spans, vec![(0, 1000)]);

    // A log without ping columns, or a plain log, has nothing to find
    // restarts by: refused, not silently passed through.
    let no_pings = "Timestamp,DL_bitrate,UL_bitrate,State\n2020.02.14_13.21.26,12000,0,D\n";
    let s =
        import::read_gnettrack(Path::new("g.csv"), no_pings, &GNetTrackFilter::default()).unwrap();
    assert_eq!(s.markers, None);
    let e = format!("{:#}", s.bridge_restarts().unwrap_err());
    assert!(
        e.contains("no restart markers") && e.contains("PINGLOSS"),
        "{e}"
    );
    let p = import::read_plain(Path::new("p.csv"), &plain_log(&RATES)).unwrap();
    assert!(p.bridge_restarts().is_err());
    // A log that is all restart: nothing left, said so.
    let all = download_log(&[(0, 0, avg)]);
    let s = import::read_gnettrack(Path::new("g.csv"), &all, &GNetTrackFilter::default()).unwrap();
    let e = format!("{:#}", s.bridge_restarts().unwrap_err());
    assert!(e.contains("every second"), "{e}");
}

fn err(format: &Format, text: &str) -> String {
    let r = match format {
        Format::GNetTrack(f) => import::read_gnettrack(Path::new("log.csv"), text, f),
        Format::Plain => import::read_plain(Path::new("log.csv"), text),
    };
    format!("{:#}", r.unwrap_err())
}

#[test]
fn malformed_rows_are_refused_with_file_and_line() {
    let g = Format::GNetTrack(GNetTrackFilter::default());
    let head = "Timestamp,DL_bitrate,UL_bitrate,State\n";
    let ok = "2020.02.14_13.21.26,12000,0,D\n";
    for (text, line, says) in [
        (
            format!("{head}{ok}2020.02.14_13.21.27,x,0,D\n"),
            3,
            "not a rate",
        ),
        (
            format!("{head}{ok}2020.02.14_13.21.27,-5,0,D\n"),
            3,
            "not a rate",
        ),
        (
            format!("{head}{ok}{ok}2020.02.14 13:21:27,5,0,D\n"),
            4,
            "YYYY.MM.DD_HH.MM.SS",
        ),
        (
            format!("{head}{ok}2020.02.14_13.21.20,5,0,D\n"),
            3,
            "time goes back",
        ),
        (format!("{head}{ok}2020.02.14_13.21.27\n"), 3, "ends before"),
        (
            format!("{head}{ok}2020.02.14_13.21.27,20000000,0,D\n"),
            3,
            "above the 10000",
        ),
    ] {
        let e = err(&g, &text);
        assert!(
            e.starts_with(&format!("log.csv:{line}:")) && e.contains(says),
            "{e}"
        );
    }
    let e = err(&g, "Time,Rate\n1,2\n");
    assert!(
        e.starts_with("log.csv:1:") && e.contains("no `Timestamp` column"),
        "{e}"
    );
    let e = err(&g, &format!("{head}2020.02.14_13.21.26,12000,0,I\n"));
    assert!(e.contains("every row was left out"), "{e}");

    for (text, line, says) in [
        ("time,mbps\n0,12\n1,x\n", 3, "two numbers"),
        ("0,12\n1,12,3\n", 2, "3 field(s)"),
        ("0,12\n1\n", 2, "1 field(s)"),
        ("0,12\n1,-4\n", 2, "not a rate"),
        ("0,12\n2,5\n1,5\n", 3, "time goes back"),
        ("0,12\n1,5\n1,6\n", 3, "must increase"),
        ("0,12\n-1,5\n", 2, "seconds >= 0"),
        ("# comment\n0,12\n\n1,nan\n", 4, "not a rate"),
    ] {
        let e = err(&Format::Plain, text);
        assert!(
            e.starts_with(&format!("log.csv:{line}:")) && e.contains(says),
            "{text:?}: {e}"
        );
    }
    assert!(err(&Format::Plain, "time,mbps\n").contains("no rows"));
}
