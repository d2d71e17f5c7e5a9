// SPDX-License-Identifier: GPL-2.0-only
//! NATCP and NACubic with a live NetAssist, end to end through `c2tcp run`:
//! the real kernel's congestion controls, real sockets through the real
//! emulator, NetAssist and its agent on their own veths.
mod common;

use std::path::Path;

use common::{c2tcp, json, metrics};

/// Rows of `netassist-flow<N>.csv`: (t_s, mode, cwnd, target, pacing Mbit/s, resumes).
fn state_rows(path: &Path) -> Vec<(f64, String, u32, u32, f64, u32)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].parse().unwrap(),
                f[1].to_string(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
                f[10].parse().unwrap(),
            )
        })
        .collect()
}

/// NetAssist goes silent from 3 s to 5 s of an 8 s run: the flow falls back
/// to Cubic within the timeout (4 x 50 ms) and is assisted again when the
/// feedback returns. The feedback is authenticated with a key file, and the
/// agent accepts all of it.
#[test]
fn silencing_netassist_falls_back_to_cubic_and_feedback_brings_it_back() {
    let test = "silencing_netassist_falls_back_to_cubic_and_feedback_brings_it_back";
    if !testkit::require_root(test) {
        return;
    }
    let _kernel = testkit::kernel_lock();
    let tmp = tempfile::tempdir().unwrap();
    let key = tmp.path().join("netassist.key");
    std::fs::write(&key, b"a shared secret of 32 bytes, ok!").unwrap();
    for scheme in ["natcp", "nacubic"] {
        let scenario = tmp.path().join(format!("{scheme}.toml"));
        std::fs::write(
            &scenario,
            format!(
                r#"name = "fallback"
[link]
downlink = "constant:12"
uplink = "constant:48"
delay_ms = 5
queue = "droptail:bytes=150000"
duration_s = 8
[netassist]
silent = [[3.0, 5.0]]
key_file = "{}"
[[flows]]
scheme = "{scheme}"
"#,
                key.display()
            ),
        )
        .unwrap();
        let out = tmp.path().join(scheme);
        let (ok, text) = c2tcp(&[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(ok, "{scheme}: {text}");
        let rows = state_rows(&out.join("netassist-flow0.csv"));
        let at = |from: f64, to: f64| rows.iter().filter(move |r| r.0 >= from && r.0 < to);
        // Assisted, paced at the link's rate in payload bytes (12 x 1448/1500), before the silence.
        assert!(
            at(1.0, 3.0).count() > 10,
            "{scheme}: feedback applied every period before 3 s: {rows:?}"
        );
        assert!(
            at(1.0, 3.0).all(|r| r.1 == "assisted" && (r.4 - 11.58).abs() < 0.2),
            "{scheme}: {rows:?}"
        );
        // Fallen back within the timeout (+ an RTT and the sampling slack), unpaced.
        let fell = rows
            .iter()
            .find(|r| r.1 == "fallback")
            .unwrap_or_else(|| panic!("{scheme}: never fell back: {rows:?}"));
        assert!(
            fell.0 > 3.0 && fell.0 < 3.5,
            "{scheme}: fell back at {} s: {rows:?}",
            fell.0
        );
        assert_eq!(fell.4, 0.0, "{scheme}: a fallen-back flow is not paced");
        assert!(
            at(3.5, 5.0).all(|r| r.1 == "fallback"),
            "{scheme}: feedback applied while NetAssist was silent: {rows:?}"
        );
        // Back to assisted once feedback returns.
        let back = at(5.0, 8.0)
            .find(|r| r.1 == "assisted")
            .unwrap_or_else(|| panic!("{scheme}: never resumed: {rows:?}"));
        assert!(
            back.0 < 5.5 && back.5 == 1,
            "{scheme}: resumed at {} s: {back:?}",
            back.0
        );
        let na = json(&out.join("netassist.json"));
        let withheld = na["netassist"]["withheld"].as_u64().unwrap();
        assert!(
            (38..=42).contains(&withheld),
            "{scheme}: 40 periods withheld, got {withheld}"
        );
        let agent = &na["agent"]["datagrams"];
        assert_eq!(agent["accepted"], na["netassist"]["sent"], "{scheme}: {na}");
        for r in [
            "bad_mac",
            "unauthenticated",
            "stale",
            "replayed",
            "truncated",
            "malformed",
        ] {
            assert_eq!(agent[r], 0, "{scheme}: {r}: {na}");
        }
        assert_eq!(json(&out.join("run.json"))["status"], "done");
    }
}

/// Two NATCP flows to one UE on a real cellular trace: the UE reports
/// beta = 2, each flow takes half of eq. 1's window and pacing, and they
/// share the link with Jain's fairness >= 0.9.
#[test]
fn two_natcp_flows_to_one_ue_share_the_link_fairly() {
    let test = "two_natcp_flows_to_one_ue_share_the_link_fairly";
    if !testkit::require_root(test) {
        return;
    }
    let Some(traces) = testkit::traces_dir(test) else {
        return;
    };
    let trace = traces.join("mahimahi/TMobile-LTE-driving.down");
    let _kernel = testkit::kernel_lock();
    let tmp = tempfile::tempdir().unwrap();
    let scenario =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/natcp-fairness.toml");
    let out = tmp.path().join("fair");
    let args = [
        "run",
        scenario.to_str().unwrap(),
        "--downlink",
        trace.to_str().unwrap(),
        "--duration",
        "15",
        "--warmup",
        "3",
    ];
    let (ok, text) = c2tcp(&[&args[..], &["--out", out.to_str().unwrap(), "--quiet"]].concat());
    assert!(ok, "{text}");
    let m = metrics(&out);
    let jain = m["aggregate"]["jain_fairness"].as_f64().unwrap();
    assert!(jain >= 0.9, "Jain's fairness {jain}: {}", m["flows"]);
    for f in m["flows"].as_array().unwrap() {
        assert!(f["throughput_mbps"].as_f64().unwrap() > 0.5, "{f}");
    }
    // Both connections saw beta = 2 in the feedback they applied (at the
    // very end the flows close before NetAssist stops, so its last beta may be lower).
    for i in 0..2 {
        let text = std::fs::read_to_string(out.join(format!("netassist-flow{i}.csv"))).unwrap();
        assert!(
            text.lines()
                .filter(|l| l.contains(",assisted,"))
                .any(|l| l.split(',').nth(7) == Some("2")),
            "flow {i}: {text}"
        );
    }
}

/// TG on a real cellular trace, against Cubic on the same trace in the same
/// test: with NetAssist's feedback it is assisted and paced at the whole
/// guided bandwidth (no division by the flow count) and keeps a smaller
/// queue than Cubic, which fills the 150 KB buffer; with NetAssist silent
/// for the whole run it never leaves Cubic (mode `waiting`) and moves as
/// much data as Cubic with as long a queue.
#[test]
fn tg_follows_the_guidance_and_without_it_is_cubic() {
    let test = "tg_follows_the_guidance_and_without_it_is_cubic";
    if !testkit::require_root(test) {
        return;
    }
    let Some(traces) = testkit::traces_dir(test) else {
        return;
    };
    let trace = traces.join("mahimahi/TMobile-LTE-driving.down");
    let _kernel = testkit::kernel_lock();
    let tmp = tempfile::tempdir().unwrap();
    let run = |name: &str, scheme: &str, silent: bool| {
        let scenario = tmp.path().join(format!("{name}.toml"));
        std::fs::write(
            &scenario,
            format!(
                r#"name = "{name}"
[link]
downlink = "{}"
delay_ms = 5
queue = "droptail:bytes=150000"
duration_s = 12
warmup_s = 2
[netassist]
{}
[[flows]]
scheme = "{scheme}"
"#,
                trace.display(),
                if silent {
                    "silent = [[0.0, 100.0]]"
                } else {
                    ""
                }
            ),
        )
        .unwrap();
        let out = tmp.path().join(name);
        let (ok, text) = c2tcp(&[
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(ok, "{name}: {text}");
        out
    };
    let flow = |out: &Path| metrics(out)["flows"][0].clone();
    let num = |f: &serde_json::Value, k: &str| f[k].as_f64().unwrap_or_else(|| panic!("{k}: {f}"));
    let cubic = flow(&run("cubic", "cubic", false));
    let tg_out = run("tg", "tg", false);
    let tg = flow(&tg_out);
    let bare_out = run("tg-silent", "tg", true);
    let bare = flow(&bare_out);

    // With guidance: assisted throughout, paced at all of the bandwidth.
    let rows = state_rows(&tg_out.join("netassist-flow0.csv"));
    let text = std::fs::read_to_string(tg_out.join("netassist-flow0.csv")).unwrap();
    assert!(rows.len() > 50, "feedback applied every period: {text}");
    // Until the first datagram arrives (NetAssist reports every 50 ms) the
    // flow is `waiting`; from then on it must stay assisted.
    let first = rows
        .iter()
        .position(|r| r.1 == "assisted")
        .unwrap_or(rows.len());
    assert!(
        rows[..first].iter().all(|r| r.1 == "waiting" && r.0 < 0.5),
        "only the start may wait for feedback: {text}"
    );
    assert!(rows[first..].iter().all(|r| r.1 == "assisted"), "{text}");
    for l in text.lines().skip(1).skip(first) {
        let f: Vec<f64> = l
            .split(',')
            .map(|x| x.parse().unwrap_or(f64::NAN))
            .collect();
        let (pacing, bw) = (f[4], f[5]);
        assert!(
            (pacing - bw * 1448.0 / 1500.0).abs() <= 0.01 * bw + 0.01,
            "pacing is the whole guided bandwidth in payload bytes: {l}"
        );
    }
    let (q_tg, q_cubic) = (
        num(&tg, "avg_queue_delay_ms"),
        num(&cubic, "avg_queue_delay_ms"),
    );
    let (x_tg, x_cubic) = (num(&tg, "throughput_mbps"), num(&cubic, "throughput_mbps"));
    assert!(
        q_tg <= 0.85 * q_cubic && x_tg >= 0.5 * x_cubic,
        "TG {x_tg} Mbit/s at {q_tg} ms vs Cubic {x_cubic} Mbit/s at {q_cubic} ms"
    );

    // Without guidance: Cubic all along.
    let bare_rows = state_rows(&bare_out.join("netassist-flow0.csv"));
    assert!(
        bare_rows.iter().all(|r| r.1 == "waiting" && r.4 == 0.0),
        "{bare_rows:?}"
    );
    let na = json(&bare_out.join("netassist.json"));
    assert_eq!(
        na["netassist"]["withheld"], na["netassist"]["periods"],
        "{na}"
    );
    let (q_bare, x_bare) = (
        num(&bare, "avg_queue_delay_ms"),
        num(&bare, "throughput_mbps"),
    );
    assert!(
        (0.8..=1.25).contains(&(x_bare / x_cubic)) && (0.7..=1.4).contains(&(q_bare / q_cubic)),
        "TG without guidance {x_bare} Mbit/s at {q_bare} ms vs Cubic {x_cubic} Mbit/s at {q_cubic} ms"
    );
}
