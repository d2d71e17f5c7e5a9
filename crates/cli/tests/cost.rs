// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp cost`: one short run measures both sides, its numbers are sane,
//! and nothing of it stays registered or loaded afterwards.
mod common;
use common::{c2tcp, json, registered, serial};

fn num(v: &serde_json::Value, path: &str) -> f64 {
    v.pointer(path)
        .and_then(|x| x.as_f64())
        .unwrap_or_else(|| panic!("{path} missing or not a number in {v:#}"))
}

fn hook(side: &serde_json::Value, name: &str) -> (u64, f64) {
    let h = side["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["hook"] == name)
        .unwrap_or_else(|| panic!("no hook {name} in {side:#}"));
    (
        h["calls"].as_u64().unwrap(),
        h["ns_per_call"].as_f64().unwrap_or(0.0),
    )
}

/// Our programs and maps still in the kernel (names start with `cost_c2` or
/// `cost_cu`).
fn ours_in_kernel() -> Vec<String> {
    let progs =
        libbpf_rs::query::ProgInfoIter::default().map(|p| p.name.to_string_lossy().into_owned());
    let maps =
        libbpf_rs::query::MapInfoIter::default().map(|m| m.name.to_string_lossy().into_owned());
    progs
        .chain(maps)
        .filter(|n| n.starts_with("cost_c2") || n.starts_with("cost_cu"))
        .collect()
}

#[test]
fn cost_times_both_sides_and_leaves_nothing() {
    if !testkit::require_root("cost_times_both_sides_and_leaves_nothing") {
        return;
    }
    let _serial = serial();
    let shared_c2tcp_before = registered("c2tcp");
    let stats_before = std::fs::read_to_string("/proc/sys/kernel/bpf_stats_enabled").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("cost.json");
    let (ok, text) = c2tcp(&[
        "cost",
        "--seconds",
        "1",
        "--rounds",
        "1",
        "--rate-mbit",
        "200",
        "--json",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "c2tcp cost failed: {text}");
    let r = json(&out);

    // Both sides ran, on both per-ACK hooks and on the empty one.
    for side in ["cubic", "c2tcp"] {
        for h in ["pkts_acked", "cong_avoid", "ack_event"] {
            let (calls, ns) = hook(&r[side], h);
            assert!(
                calls > 0 && ns > 0.0,
                "{side} {h}: {calls} calls, {ns} ns\n{text}"
            );
        }
    }
    let (_, cubic_acked) = hook(&r["cubic"], "pkts_acked");
    let (_, c2_acked) = hook(&r["c2tcp"], "pkts_acked");
    let (_, cubic_ca) = hook(&r["cubic"], "cong_avoid");
    let (_, c2_ca) = hook(&r["c2tcp"], "cong_avoid");
    // C2TCP's pkts_acked calls Cubic's and does more; its cong_avoid is
    // Cubic's alone, so the two sides' figures for it agree within noise.
    assert!(
        c2_acked >= cubic_acked,
        "C2TCP's pkts_acked {c2_acked} ns < Cubic's {cubic_acked} ns\n{text}"
    );
    assert!(
        (0.33..=3.0).contains(&(c2_ca / cubic_ca)),
        "the same cong_avoid timed {c2_ca} and {cubic_ca} ns\n{text}"
    );
    let (cubic_per_ack, c2_per_ack) = (num(&r, "/cubic/ns_per_ack"), num(&r, "/c2tcp/ns_per_ack"));
    assert!(
        c2_per_ack >= cubic_per_ack && c2_per_ack <= 20.0 * cubic_per_ack,
        "per ACK: C2TCP {c2_per_ack} ns, Cubic {cubic_per_ack} ns\n{text}"
    );
    // The empty hook costs something, and less than a hook with work in it.
    for side in ["cubic", "c2tcp"] {
        let empty = num(&r, &format!("/{side}/empty_ns"));
        assert!(
            empty > 0.0 && empty < c2_acked,
            "{side}'s empty hook {empty} ns\n{text}"
        );
    }

    // CPU per GB: every congestion control moved data at the capped rate,
    // and the costs are within a generous factor of each other.
    let cpu = r["cpu"].as_array().unwrap();
    assert_eq!(cpu.len(), 3, "{text}");
    for c in cpu {
        let mbit = c["mbit_s"].as_f64().unwrap();
        let per_gb = c["cpu_s_per_gb"].as_f64().unwrap();
        assert!(
            mbit > 100.0 && mbit < 220.0,
            "{}: {mbit} Mbit/s at a 200 Mbit/s cap\n{text}",
            c["cc"]
        );
        assert!(
            per_gb > 0.0 && per_gb.is_finite(),
            "{}: {per_gb} s per GB\n{text}",
            c["cc"]
        );
    }
    let ratio = num(&r, "/cpu_ratio_c2tcp_to_cubic");
    assert!(
        (0.2..=5.0).contains(&ratio),
        "CPU per GB ratio {ratio}\n{text}"
    );

    // Nothing left: neither registration, no program or map, the shared
    // c2tcp as it was, bpf_stats as it was.
    assert!(!registered("cost_cubic") && !registered("cost_c2tcp"));
    // The kernel frees the programs and maps once the last socket on them
    // is gone and an RCU grace period has passed: give it a minute.
    let t0 = std::time::Instant::now();
    while !ours_in_kernel().is_empty() && t0.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    eprintln!(
        "programs and maps gone {:.1} s after the command",
        t0.elapsed().as_secs_f64()
    );
    assert_eq!(ours_in_kernel(), Vec::<String>::new());
    assert_eq!(registered("c2tcp"), shared_c2tcp_before);
    assert_eq!(
        std::fs::read_to_string("/proc/sys/kernel/bpf_stats_enabled").unwrap(),
        stats_before
    );
}
