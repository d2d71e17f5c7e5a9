// SPDX-License-Identifier: GPL-2.0-only
//! The forms c2tcp takes on kernels that lack or refuse a feature
//! (docs/kernels.md), taken on this host through `C2TCP_ASSUME_REFUSED`,
//! which makes the probes report those features as refused: each path is
//! the real one, in the real kernel (a struct_ops map registered without a
//! link, the setsockopt program without `bpf_set_retval`, c2tcp without its
//! iterator), and a scheme the kernel refuses does not take a bench down.
//! The kernel matrix (`make test-kernels`) runs them on the kernels that
//! really lack the features.
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{errno_of, registered, serial, tcp_socket};
use libbpf_rs::MapCore;

/// `c2tcp ARGS` with the probes told that `refused` features are refused.
fn c2tcp_assuming(refused: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_c2tcp"))
        .env("C2TCP_ASSUME_REFUSED", refused)
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Unloads `ccs`: what a half-finished earlier test left (the test starts
/// from them not registered, and leaves them so).
fn unload(ccs: &[&str]) {
    let mut args = vec!["unload"];
    args.extend_from_slice(ccs);
    let (ok, out) = common::c2tcp(&args);
    assert!(ok, "c2tcp unload: {out}");
}

fn nothing_left(cc: &str) {
    assert!(!registered(cc), "{cc} left registered");
    let dir = Path::new("/sys/fs/bpf/c2tcp").join(cc);
    assert!(!dir.exists(), "{} left behind", dir.display());
}

/// Without the iterator: c2tcp loads, its socket option works, `top` says
/// why it cannot run (exit 69), `doctor` names the refusal, unload leaves
/// nothing.
#[test]
fn c2tcp_without_its_iterator_loads_and_top_says_why() {
    if !testkit::require_root("c2tcp_without_its_iterator_loads_and_top_says_why") {
        return;
    }
    let _serial = serial();
    // Each loads its own form of them: not over a user's.
    if testkit::Registrations::now().held_by_someone_else("c2tcp_without_its_iterator_loads_and_top_says_why", &["c2tcp"]) {
        return;
    }
    unload(&["c2tcp"]);
    let refused = "sk_storage_iterator";
    let o = c2tcp_assuming(refused, &["load", "c2tcp"]);
    assert!(o.status.success(), "{}", text(&o));
    let dir = Path::new("/sys/fs/bpf/c2tcp/c2tcp");
    assert!(dir.join("ops").exists() && registered("c2tcp"));
    assert!(!dir.join("connections").exists(), "the iterator was pinned");

    let s = tcp_socket();
    sockopt::set_target_us(&s, 42_000).unwrap();
    assert_eq!(sockopt::c2tcp_info(&s).unwrap().target_us, 42_000);

    let o = c2tcp_assuming(refused, &["top", "--once"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(69), "{t}");
    assert!(
        t.contains("cannot run on this host") && t.contains("C2TCP itself"),
        "{t}"
    );

    let o = c2tcp_assuming(refused, &["doctor", "--json"]);
    let doc: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    let cc = doc["ccs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "c2tcp")
        .unwrap();
    assert_eq!(cc["loadable"], true, "{cc}");
    assert!(cc["degraded"].to_string().contains(refused), "{cc}");
    let top = doc["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["command"] == "top")
        .unwrap();
    assert_eq!(top["ok"], false, "{top}");
    let feature = doc["features"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == refused)
        .unwrap();
    assert_eq!(feature["state"], "refused", "{feature}");
    assert!(
        o.status.success(),
        "a degraded feature is a warning: {}",
        text(&o)
    );

    unload(&["c2tcp"]);
    nothing_left("c2tcp");
}

/// Without struct_ops links (kernels before 6.4): the registered map is
/// pinned in the link's place, stays registered after `load` exits, serves
/// sockets, and `unload` unregisters it.
#[test]
fn struct_ops_maps_without_links_stay_registered_until_unload() {
    if !testkit::require_root("struct_ops_maps_without_links_stay_registered_until_unload") {
        return;
    }
    let _serial = serial();
    // Each loads its own form of them: not over a user's.
    if testkit::Registrations::now().held_by_someone_else("struct_ops_maps_without_links_stay_registered_until_unload", &["c2tcp", "westwood"]) {
        return;
    }
    unload(&["c2tcp", "westwood"]);
    let o = c2tcp_assuming("struct_ops_link", &["load", "c2tcp", "westwood"]);
    assert!(o.status.success(), "{}", text(&o));
    for cc in ["c2tcp", "westwood"] {
        let pin = Path::new("/sys/fs/bpf/c2tcp").join(cc).join("ops");
        let map = libbpf_rs::MapHandle::from_pinned_path(&pin)
            .unwrap_or_else(|e| panic!("{} is not a map: {e}", pin.display()));
        assert_eq!(map.map_type(), libbpf_rs::MapType::StructOps);
        assert!(registered(cc), "{cc} not registered after `load` exited");
        let s = tcp_socket();
        sockopt::set_congestion(&s, cc).unwrap_or_else(|e| panic!("selecting {cc}: {e}"));
    }
    unload(&["c2tcp", "westwood"]);
    nothing_left("c2tcp");
    nothing_left("westwood");
}

/// Without `bpf_set_retval` (before 5.18): valid values work, a refused one
/// fails with EPERM (what a caller then sees, as docs/kernels.md says).
#[test]
fn the_socket_option_without_set_retval_refuses_with_eperm() {
    if !testkit::require_root("the_socket_option_without_set_retval_refuses_with_eperm") {
        return;
    }
    let _serial = serial();
    // Each loads its own form of them: not over a user's.
    if testkit::Registrations::now().held_by_someone_else("the_socket_option_without_set_retval_refuses_with_eperm", &["c2tcp"]) {
        return;
    }
    unload(&["c2tcp"]);
    let o = c2tcp_assuming("set_retval", &["load", "c2tcp"]);
    assert!(o.status.success(), "{}", text(&o));
    let s = tcp_socket();
    sockopt::set_target_us(&s, 30_000).unwrap();
    assert_eq!(sockopt::c2tcp_info(&s).unwrap().target_us, 30_000);
    assert_eq!(errno_of(sockopt::set_target_us(&s, 5)), Some(libc::EPERM));
    unload(&["c2tcp"]);
    nothing_left("c2tcp");
}

/// A congestion control the kernel lacks a required feature for is refused
/// by name before anything is made; the others in the same `load` go on.
#[test]
fn a_refused_congestion_control_leaves_nothing_and_stops_no_other() {
    if !testkit::require_root("a_refused_congestion_control_leaves_nothing_and_stops_no_other") {
        return;
    }
    let _serial = serial();
    // Each loads its own form of them: not over a user's.
    if testkit::Registrations::now().held_by_someone_else("a_refused_congestion_control_leaves_nothing_and_stops_no_other", &["westwood", "vivace"]) {
        return;
    }
    unload(&["westwood", "vivace"]);
    // vivace calls no kfunc; westwood does.
    let o = c2tcp_assuming("tcp_kfuncs", &["load", "westwood", "vivace"]);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("westwood") && t.contains("5.13") && t.contains("kfuncs"),
        "{t}"
    );
    assert!(t.contains("vivace: loaded"), "{t}");
    nothing_left("westwood");
    assert!(registered("vivace"));
    unload(&["vivace"]);
    nothing_left("vivace");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A bench whose scheme the kernel refuses: the other schemes' runs and the
/// report still come, the refused scheme's runs fail with the kernel's
/// reason in run.json, and the bench exits non-zero naming it.
#[test]
fn a_bench_runs_every_scheme_the_host_can_run() {
    if !testkit::require_root("a_bench_runs_every_scheme_the_host_can_run") {
        return;
    }
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let sc = tmp.path().join("link.toml");
    std::fs::write(
        &sc,
        "name = \"refused\"\n[link]\ndownlink = \"constant:12\"\nuplink = \"constant:12\"\ndelay_ms = 10\n\
         queue = \"droptail:packets=100\"\nduration_s = 4\nwarmup_s = 1\n[[flows]]\nscheme = \"cubic\"\n",
    )
    .unwrap();
    let file = tmp.path().join("refused.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"refused\"\nkind = \"bpf\"\ncc = \"refused_cc\"\nobject = \"{}\"\n",
            bpfload::REFUSED_OBJECT
        ),
    )
    .unwrap();
    let out = tmp.path().join("bench");
    let (ok, t) = common::c2tcp(&[
        "bench",
        sc.to_str().unwrap(),
        "--scheme-file",
        file.to_str().unwrap(),
        "--schemes",
        "refused,cubic",
        "--reference",
        "cubic",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok, "the bench must fail: {t}");
    assert!(t.contains("refused_cc could not be loaded"), "{t}");
    assert!(t.contains("verifier rejected"), "the kernel's reason: {t}");
    let runs: Vec<PathBuf> = walk(&out.join("runs"))
        .into_iter()
        .filter(|p| p.ends_with("run.json"))
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    for r in runs {
        let info = common::json(&r);
        if r.to_string_lossy().contains("/refused/") {
            assert_eq!(info["status"], "failed", "{info}");
            assert!(
                info["error"]
                    .as_str()
                    .unwrap()
                    .contains("verifier rejected"),
                "{info}"
            );
        } else {
            assert_eq!(info["status"], "done", "{info}");
            assert!(r.parent().unwrap().join("metrics.json").exists());
        }
    }
    assert!(out.join("report.md").exists(), "no report: {t}");
    nothing_left("refused_cc");
}
