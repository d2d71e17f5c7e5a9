// SPDX-License-Identifier: GPL-2.0-only
//! `include/c2tcp.h` owns the socket option's ABI; this crate mirrors it.
//! Compiles a small C program against the header with `cc` (as plain
//! userspace C, the way the README uses it) that prints every constant, the
//! size of `struct c2tcp_info` and each field's offset, and fails when the
//! Rust side says otherwise.
use std::collections::BTreeMap;
use std::mem::{offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::Command;

use sockopt::variant::{self, Variant, BEHAVIOURS};
use sockopt::*;

const FIELDS: [&str; 15] = [
    "version",
    "target_us",
    "alpha_pct",
    "min_rtt_us",
    "setpoint_us",
    "interval_us",
    "last_avg_rtt_us",
    "condition",
    "bad_events",
    "tune_cycles",
    "variant",
    "behaviours",
    "skipped_samples",
    "bdp_pkts",
    "paced",
];

const CONSTANTS: [&str; 33] = [
    "SOL_C2TCP",
    "C2TCP_TARGET",
    "C2TCP_ALPHA",
    "C2TCP_INFO",
    "C2TCP_VARIANT",
    "C2TCP_TARGET_MIN_US",
    "C2TCP_TARGET_MAX_US",
    "C2TCP_ALPHA_MIN_PCT",
    "C2TCP_ALPHA_MAX_PCT",
    "C2TCP_INFO_VERSION",
    "C2TCP_INFO_V1_SIZE",
    "C2TCP_INFO_V2_SIZE",
    "C2TCP_INFO_V3_SIZE",
    "C2TCP_VARIANT_DEFAULT",
    "C2TCP_VARIANT_JSAC",
    "C2TCP_VARIANT_PAPER",
    "C2TCP_VARIANT_DRAIN",
    "C2TCP_VARIANT_MAX",
    "C2TCP_VARIANT_ON_SHIFT",
    "C2TCP_VARIANT_OFF_SHIFT",
    "C2TCP_B_BLIND_WINDOW",
    "C2TCP_B_ANCHORED_TUNER",
    "C2TCP_B_MS_GOOD_TEST",
    "C2TCP_B_SHARED_GROWTH",
    "C2TCP_B_ACK_INTERVAL",
    "C2TCP_B_JSAC",
    "C2TCP_B_BDP_FLOOR",
    "C2TCP_B_HOLD_SSTHRESH",
    "C2TCP_B_PACING",
    "C2TCP_B_DRAIN",
    "C2TCP_B_ALL",
    "C2TCP_COND_GOOD",
    "C2TCP_COND_BAD",
];

/// The README's example (everything but `connect`), which must keep compiling:
/// it uses `uint32_t` with nothing but the header included.
const README_EXAMPLE: &str = r#"
void readme_example(void);
void readme_example(void) {
int fd = socket(AF_INET, SOCK_STREAM, 0);
setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, "c2tcp", 5);
uint32_t target = 50000;                       /* 50 ms */
setsockopt(fd, SOL_C2TCP, C2TCP_TARGET, &target, sizeof(target));
struct c2tcp_info info; socklen_t len = sizeof(info);
getsockopt(fd, SOL_C2TCP, C2TCP_INFO, &info, &len);
}
"#;

fn header_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include")
}

/// Name -> value as the C compiler sees the header.
fn header_values() -> BTreeMap<String, u64> {
    let mut c = String::from(
        "#define _DEFAULT_SOURCE\n#include <stdio.h>\n#include <stddef.h>\n\
         #include <sys/socket.h>\n#include <netinet/in.h>\n#include <netinet/tcp.h>\n\
         #include \"c2tcp.h\"\n",
    );
    c += README_EXAMPLE;
    c += "int main(void) {\n";
    for name in CONSTANTS {
        c += &format!("printf(\"{name} %llu\\n\", (unsigned long long)({name}));\n");
    }
    c += "printf(\"sizeof %zu\\n\", sizeof(struct c2tcp_info));\n";
    for f in FIELDS {
        c += &format!(
            "printf(\"offsetof.{f} %zu\\n\", offsetof(struct c2tcp_info, {f}));\n\
             printf(\"sizeof.{f} %zu\\n\", sizeof(((struct c2tcp_info *)0)->{f}));\n"
        );
    }
    c += "return 0;\n}\n";

    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("c2tcp-h-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("abi.c");
    let exe = dir.join("abi");
    std::fs::write(&src, c).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
        .arg(header_dir())
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("running {cc} (make deps installs gcc): {e}"));
    assert!(
        out.status.success(),
        "include/c2tcp.h does not compile as plain C:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success());
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.split_once(' ').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect()
}

#[test]
fn the_rust_mirror_agrees_with_include_c2tcp_h() {
    let h = header_values();
    let rust: Vec<(&str, u64)> = vec![
        ("SOL_C2TCP", SOL_C2TCP as u64),
        ("C2TCP_TARGET", C2TCP_TARGET as u64),
        ("C2TCP_ALPHA", C2TCP_ALPHA as u64),
        ("C2TCP_INFO", C2TCP_INFO as u64),
        ("C2TCP_VARIANT", sockopt::C2TCP_VARIANT as u64),
        ("C2TCP_TARGET_MIN_US", C2TCP_TARGET_MIN_US.into()),
        ("C2TCP_TARGET_MAX_US", C2TCP_TARGET_MAX_US.into()),
        ("C2TCP_ALPHA_MIN_PCT", C2TCP_ALPHA_MIN_PCT.into()),
        ("C2TCP_ALPHA_MAX_PCT", C2TCP_ALPHA_MAX_PCT.into()),
        ("C2TCP_INFO_VERSION", C2TCP_INFO_VERSION.into()),
        ("C2TCP_INFO_V1_SIZE", C2TCP_INFO_V1_SIZE as u64),
        ("C2TCP_INFO_V2_SIZE", C2TCP_INFO_V2_SIZE as u64),
        ("C2TCP_INFO_V3_SIZE", C2TCP_INFO_V3_SIZE as u64),
        ("C2TCP_VARIANT_DEFAULT", Variant::default().to_raw().into()),
        ("C2TCP_VARIANT_JSAC", Variant::JSAC.to_raw().into()),
        ("C2TCP_VARIANT_PAPER", Variant::PAPER.to_raw().into()),
        ("C2TCP_VARIANT_DRAIN", Variant::DRAIN.to_raw().into()),
        ("C2TCP_VARIANT_MAX", Variant::DRAIN.to_raw().into()),
        ("C2TCP_VARIANT_ON_SHIFT", variant::ON_SHIFT.into()),
        ("C2TCP_VARIANT_OFF_SHIFT", variant::OFF_SHIFT.into()),
        ("C2TCP_B_BLIND_WINDOW", BEHAVIOURS[0].1.into()),
        ("C2TCP_B_ANCHORED_TUNER", BEHAVIOURS[1].1.into()),
        ("C2TCP_B_MS_GOOD_TEST", BEHAVIOURS[2].1.into()),
        ("C2TCP_B_SHARED_GROWTH", BEHAVIOURS[3].1.into()),
        ("C2TCP_B_ACK_INTERVAL", BEHAVIOURS[4].1.into()),
        ("C2TCP_B_JSAC", variant::JSAC.into()),
        ("C2TCP_B_BDP_FLOOR", BEHAVIOURS[5].1.into()),
        ("C2TCP_B_HOLD_SSTHRESH", BEHAVIOURS[6].1.into()),
        ("C2TCP_B_PACING", BEHAVIOURS[7].1.into()),
        ("C2TCP_B_DRAIN", variant::DRAIN.into()),
        ("C2TCP_B_ALL", variant::ALL.into()),
        // C2tcpInfo::condition: 0 good .. 2 bad (the README's table).
        ("C2TCP_COND_GOOD", 0),
        ("C2TCP_COND_BAD", 2),
        ("sizeof", size_of::<C2tcpInfo>() as u64),
    ];
    for (name, value) in rust {
        assert_eq!(
            h.get(name),
            Some(&value),
            "{name}: include/c2tcp.h vs crates/sockopt"
        );
    }
    // The behaviour names are the header's C2TCP_B_<NAME>, in bit order.
    assert_eq!(BEHAVIOURS.iter().fold(0, |a, (_, b)| a | b), variant::ALL);

    let offsets = [
        offset_of!(C2tcpInfo, version),
        offset_of!(C2tcpInfo, target_us),
        offset_of!(C2tcpInfo, alpha_pct),
        offset_of!(C2tcpInfo, min_rtt_us),
        offset_of!(C2tcpInfo, setpoint_us),
        offset_of!(C2tcpInfo, interval_us),
        offset_of!(C2tcpInfo, last_avg_rtt_us),
        offset_of!(C2tcpInfo, condition),
        offset_of!(C2tcpInfo, bad_events),
        offset_of!(C2tcpInfo, tune_cycles),
        offset_of!(C2tcpInfo, variant),
        offset_of!(C2tcpInfo, behaviours),
        offset_of!(C2tcpInfo, skipped_samples),
        offset_of!(C2tcpInfo, bdp_pkts),
        offset_of!(C2tcpInfo, paced),
    ];
    assert_eq!(offsets.len(), FIELDS.len());
    for (f, off) in FIELDS.iter().zip(offsets) {
        assert_eq!(
            h[&format!("offsetof.{f}")],
            off as u64,
            "offset of c2tcp_info.{f}"
        );
        assert_eq!(h[&format!("sizeof.{f}")], 4, "size of c2tcp_info.{f}");
    }
}
