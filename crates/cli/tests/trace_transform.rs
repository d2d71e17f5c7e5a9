// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp trace scale / window / concat` on a real trace: the output's rate
//! is the factor times the input's, its timing kept; bad factors refused.
mod common;

use common::c2tcp;

fn stats(path: &std::path::Path) -> serde_json::Value {
    let (ok, text) = c2tcp(&["trace", "stats", "--json", path.to_str().unwrap()]);
    assert!(ok, "{text}");
    serde_json::from_str::<serde_json::Value>(&text).unwrap()[0]["stats"].clone()
}

#[test]
fn scale_window_concat_a_real_trace() {
    let Some(traces) = testkit::traces_dir("scale_window_concat_a_real_trace") else {
        return;
    };
    let input = traces.join("mahimahi/TMobile-LTE-short.down");
    let tmp = tempfile::tempdir().unwrap();
    let scaled = tmp.path().join("x3.down");
    let (ok, text) = c2tcp(&[
        "trace",
        "scale",
        input.to_str().unwrap(),
        "--factor",
        "3",
        "-o",
        scaled.to_str().unwrap(),
    ]);
    assert!(ok, "{text}");
    let (a, b) = (stats(&input), stats(&scaled));
    assert_eq!(
        a["duration_ms"], b["duration_ms"],
        "the loop period is kept"
    );
    let ratio = b["mean_mbps"].as_f64().unwrap() / a["mean_mbps"].as_f64().unwrap();
    assert!((ratio - 3.0).abs() < 0.001, "mean rate ×{ratio}");
    let peak = b["peak_mbps"].as_f64().unwrap() / a["peak_mbps"].as_f64().unwrap();
    assert!(
        (peak - 3.0).abs() < 0.01,
        "the busiest second is the same second, ×{peak}"
    );
    assert_eq!(
        a["outage_ms"], b["outage_ms"],
        "outages stay where they were"
    );

    let (first, rest, joined) = (
        tmp.path().join("first"),
        tmp.path().join("rest"),
        tmp.path().join("joined"),
    );
    // Split at an opportunity (a window loops at its last one).
    let text = std::fs::read_to_string(&input).unwrap();
    let split_ms: u64 = text
        .lines()
        .map(|l| l.trim().parse::<u64>().unwrap())
        .find(|&t| t >= 10_000)
        .unwrap();
    let split = split_ms as f64 / 1000.0;
    let end = a["duration_ms"].as_f64().unwrap() / 1000.0;
    for (out, start, stop) in [(&first, 0.0, split), (&rest, split, end)] {
        let (ok, text) = c2tcp(&[
            "trace",
            "window",
            input.to_str().unwrap(),
            "--start",
            &start.to_string(),
            "--end",
            &stop.to_string(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(ok, "{text}");
    }
    let (ok, text) = c2tcp(&[
        "trace",
        "concat",
        first.to_str().unwrap(),
        rest.to_str().unwrap(),
        "-o",
        joined.to_str().unwrap(),
    ]);
    assert!(ok, "{text}");
    let numbers = |p: &std::path::Path| -> Vec<u64> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect()
    };
    let (got, want) = (numbers(&joined), numbers(&input));
    let first_difference = got.iter().zip(&want).position(|(a, b)| a != b);
    assert!(
        got.len() == want.len() && first_difference.is_none(),
        "two consecutive windows concatenated give back the trace: {} vs {} lines, first difference at line {:?}",
        got.len(),
        want.len(),
        first_difference.map(|i| i + 1)
    );

    for bad in ["0", "-2", "nan", "inf", "1000"] {
        let (ok, text) = c2tcp(&[
            "trace",
            "scale",
            input.to_str().unwrap(),
            &format!("--factor={bad}"),
            "-o",
            tmp.path().join("bad").to_str().unwrap(),
        ]);
        assert!(
            !ok && text.contains("scale factor must be"),
            "{bad}: {text}"
        );
    }
}

/// `c2tcp trace import` as a user runs it: a synthetic G-NetTrack log (gzip
/// read as plain) becomes a trace of the log's mean rate and length; a bad
/// row is refused naming the file and line, and no trace is written.
#[test]
fn import_a_gnettrack_log() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("run.csv");
    let text = "Timestamp,NetworkMode,DL_bitrate,UL_bitrate,State\n\
                2020.02.14_13.21.26,5G,120000,50,D\n\
                2020.02.14_13.21.27,5G,24000,50,D\n\
                2020.02.14_13.21.28,LTE,0,0,I\n\
                2020.02.14_13.21.29,5G,36000,50,D\n";
    std::fs::write(&log, text).unwrap();
    let gz = std::process::Command::new("gzip")
        .arg(&log)
        .status()
        .unwrap();
    assert!(gz.success());
    let log = tmp.path().join("run.csv.gz");
    let out = tmp.path().join("run.down");
    let (ok, said) = c2tcp(&[
        "trace",
        "import",
        log.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{said}");
    assert!(
        said.contains("1 left out") && said.contains("5G 100 %"),
        "{said}"
    );
    let s = stats(&out);
    // 120, 24, 36 Mbit/s for a second each (the idle second cut out).
    assert_eq!(s["duration_ms"], 3000);
    assert!(
        (s["mean_mbps"].as_f64().unwrap() - 60.0).abs() < 0.01,
        "{s}"
    );

    let bad = tmp.path().join("bad.csv");
    std::fs::write(&bad, text.replace("24000", "24k")).unwrap();
    let none = tmp.path().join("none.down");
    let (ok, said) = c2tcp(&[
        "trace",
        "import",
        bad.to_str().unwrap(),
        "-o",
        none.to_str().unwrap(),
    ]);
    assert!(
        !ok && said.contains(&format!("{}:3:", bad.display())),
        "{said}"
    );
    assert!(!none.exists());
    let (ok, help) = c2tcp(&["trace", "import", "--help"]);
    assert!(
        ok && help.contains("--spacing") && help.contains("G-NetTrack"),
        "{help}"
    );
}

/// `c2tcp trace import --bridge-restarts`: a download log's restart (its
/// ping test row, the dead second before it, the ramp after it) is cut out
/// and said so; a plain log, which has no markers, is refused.
#[test]
fn import_bridges_a_download_logs_restarts() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("run.csv");
    let mut text = String::from("Timestamp,DL_bitrate,UL_bitrate,State,PINGAVG,PINGLOSS\n");
    for (sec, kbps, ping) in [
        (0, 100_000, "-,-"),
        (1, 100_000, "-,-"),
        (2, 100_000, "-,-"),
        (3, 100_000, "-,-"),
        (4, 0, "-,-"),
        (5, 0, "70.0,0.0"),
        (6, 20_000, "-,-"),
        (7, 100_000, "-,-"),
        (8, 100_000, "-,-"),
        (9, 100_000, "-,-"),
        (10, 100_000, "-,-"),
        (11, 100_000, "-,-"),
    ] {
        text += &format!("2020.02.14_13.21.{sec:02},{kbps},0,D,{ping}\n");
    }
    std::fs::write(&log, &text).unwrap();
    let (raw, bridged) = (tmp.path().join("raw.down"), tmp.path().join("bridged.down"));
    let (ok, said) = c2tcp(&[
        "trace",
        "import",
        log.to_str().unwrap(),
        "-o",
        raw.to_str().unwrap(),
    ]);
    assert!(ok && said.contains("1 restart markers"), "{said}");
    let (ok, said) = c2tcp(&[
        "trace",
        "import",
        log.to_str().unwrap(),
        "--bridge-restarts",
        "-o",
        bridged.to_str().unwrap(),
    ]);
    assert!(
        ok && said.contains("bridged 1 restarts: 3 s of 12 s cut out")
            && said.contains("(cut, s of the imported part: 4-7)"),
        "{said}"
    );
    let (r, b) = (stats(&raw), stats(&bridged));
    assert_eq!(
        (r["duration_ms"].clone(), b["duration_ms"].clone()),
        (12_000.into(), 9000.into())
    );
    assert!(
        (b["mean_mbps"].as_f64().unwrap() - 100.0).abs() < 0.01,
        "{b}"
    );

    let plain = tmp.path().join("iperf.csv");
    std::fs::write(&plain, "0,10\n1,0\n2,10\n").unwrap();
    let none = tmp.path().join("none.down");
    let (ok, said) = c2tcp(&[
        "trace",
        "import",
        plain.to_str().unwrap(),
        "--format",
        "plain",
        "--bridge-restarts",
        "-o",
        none.to_str().unwrap(),
    ]);
    assert!(!ok && said.contains("no restart markers"), "{said}");
    assert!(!none.exists());
}
