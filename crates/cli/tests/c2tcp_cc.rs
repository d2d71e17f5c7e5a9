// SPDX-License-Identifier: GPL-2.0-only
//! The c2tcp congestion control in the real kernel: loading, the socket
//! option, a real transfer between namespaces, and unloading without a trace.
//!
//! Registrations are kernel-global, so these tests run one at a time (SERIAL)
//! and also hold the same lock `c2tcp load` takes against other processes.
mod common;

use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::time::{Duration, Instant};

use common::{allowed, c2tcp, connect, drain, errno_of, registered, serial, tcp_socket, Loaded};
use sockopt::{C2TCP_ALPHA, C2TCP_INFO, C2TCP_TARGET, C2TCP_VARIANT, SOL_C2TCP};

#[test]
fn load_is_idempotent_and_unload_leaves_nothing() {
    let test = "load_is_idempotent_and_unload_leaves_nothing";
    if !testkit::require_root(test) {
        return;
    }
    let _serial = serial();
    let before = testkit::Registrations::now();
    if before.held_by_someone_else(test, &["c2tcp"]) {
        return;
    }
    {
        let _loaded = Loaded::new(&["c2tcp"]);
        assert!(registered("c2tcp"));
        assert!(
            allowed("c2tcp"),
            "c2tcp must be selectable by unprivileged programs"
        );
        let (ok, out) = c2tcp(&["load", "c2tcp"]);
        assert!(ok && out.contains("already loaded"), "second load: {out}");
        let (ok, out) = c2tcp(&["load", "c2tcp", "--default-target", "60"]);
        assert!(
            ok && out.contains("options updated"),
            "reconfiguring load: {out}"
        );

        let (ok, json) = c2tcp(&["status", "--json"]);
        assert!(ok, "{json}");
        let st: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(st["c2tcp_default_target_us"], 60000);
        let cc = st["ccs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "c2tcp")
            .unwrap();
        assert_eq!(cc["registered"], true);
        assert_eq!(cc["pinned"], true);
        assert!(cc["programs"].as_array().unwrap().len() >= 9, "{cc}");
        // The socket option answers while loaded.
        let s = tcp_socket();
        sockopt::set_target_us(&s, 20_000).unwrap();
    }
    // Unloaded: no congestion control, no pins, no socket-option programs,
    // and none of the others was loaded along the way (those a user had
    // loaded before are still there).
    assert!(!registered("c2tcp"), "c2tcp left loaded");
    before.assert_left_as_found(&["c2tcp", "westwood", "vegas", "natcp", "nacubic"]);
    assert!(!allowed("c2tcp"));
    assert!(
        !Path::new("/sys/fs/bpf/c2tcp/c2tcp").exists(),
        "pins left behind"
    );
    let s = tcp_socket();
    assert_eq!(
        errno_of(sockopt::set_target_us(&s, 20_000)),
        Some(libc::ENOPROTOOPT),
        "cgroup program still attached"
    );
    assert_eq!(
        errno_of(sockopt::set_congestion(&s, "c2tcp")),
        Some(libc::ENOENT)
    );
    let (ok, out) = c2tcp(&["unload", "c2tcp"]);
    assert!(
        ok && out.contains("nothing was loaded"),
        "unloading twice: {out}"
    );
}

#[test]
fn socket_option_validates_its_input() {
    if !testkit::require_root("socket_option_validates_its_input") {
        return;
    }
    let _serial = serial();
    let _loaded = Loaded::new(&["c2tcp"]);
    let s = tcp_socket();
    let fd = s.as_raw_fd();
    let set = |name, bytes: &[u8]| errno_of(sockopt::set_raw(fd, SOL_C2TCP, name, bytes));

    assert_eq!(set(C2TCP_TARGET, &1000u32.to_ne_bytes()), None);
    assert_eq!(set(C2TCP_TARGET, &10_000_000u32.to_ne_bytes()), None);
    assert_eq!(set(C2TCP_TARGET, &999u32.to_ne_bytes()), Some(libc::EINVAL));
    assert_eq!(
        set(C2TCP_TARGET, &10_000_001u32.to_ne_bytes()),
        Some(libc::EINVAL)
    );
    assert_eq!(
        set(C2TCP_TARGET, &[1, 2]),
        Some(libc::EINVAL),
        "short optlen"
    );
    assert_eq!(
        set(C2TCP_TARGET, &50_000u64.to_ne_bytes()),
        Some(libc::EINVAL),
        "long optlen"
    );
    assert_eq!(set(C2TCP_ALPHA, &100u32.to_ne_bytes()), None);
    assert_eq!(set(C2TCP_ALPHA, &1000u32.to_ne_bytes()), None);
    assert_eq!(set(C2TCP_ALPHA, &0u32.to_ne_bytes()), None);
    assert_eq!(set(C2TCP_ALPHA, &99u32.to_ne_bytes()), Some(libc::EINVAL));
    assert_eq!(set(C2TCP_ALPHA, &1001u32.to_ne_bytes()), Some(libc::EINVAL));
    assert_eq!(
        set(C2TCP_INFO, &0u32.to_ne_bytes()),
        Some(libc::ENOPROTOOPT),
        "INFO is read-only"
    );
    assert_eq!(set(77, &0u32.to_ne_bytes()), Some(libc::ENOPROTOOPT));

    // C2TCP_VARIANT: a base of 0-3, behaviour bits, none both on and off.
    // The last accepted value stays set (read back below).
    for ok in [
        0u32,
        1,
        2,
        3,
        2 | 0xff << 8,
        1 | 0x1f << 16,
        1 | 0x20 << 8,
        3 | 0x80 << 16,
        0x04 << 8,
    ] {
        assert_eq!(set(C2TCP_VARIANT, &ok.to_ne_bytes()), None, "{ok:#x}");
    }
    for bad in [
        4u32,
        0xff,
        3 | 0x40 << 8 | 0x40 << 16,
        1 | 1 << 8 | 1 << 16,
        1 << 24,
    ] {
        assert_eq!(
            set(C2TCP_VARIANT, &bad.to_ne_bytes()),
            Some(libc::EINVAL),
            "{bad:#x}"
        );
    }
    assert_eq!(
        set(C2TCP_VARIANT, &[1, 0]),
        Some(libc::EINVAL),
        "short optlen"
    );
    assert_eq!(
        sockopt::variant(&s).unwrap().to_string(),
        "default+ms_good_test"
    );
    sockopt::set_variant(&s, "paper+blind_window".parse().unwrap()).unwrap();
    assert_eq!(
        sockopt::variant(&s).unwrap().to_string(),
        "paper+blind_window"
    );

    // C2TCP_INFO v2 and v3 append; a version-1 reader (40 bytes) and a
    // version-2 one (52) still get their fields.
    let info = sockopt::c2tcp_info(&s).unwrap();
    assert_eq!(info.version, 3);
    assert_eq!((info.bdp_pkts, info.paced), (0, 0));
    assert_eq!(info.variant, 2 | 0x01 << 8);
    assert_eq!(info.behaviours, 0x01);
    assert_eq!(info.skipped_samples, 0);
    let mut v1 = [0u8; 40];
    assert_eq!(
        sockopt::get_raw(fd, SOL_C2TCP, C2TCP_INFO, &mut v1).unwrap(),
        40
    );
    assert_eq!(u32::from_ne_bytes(v1[..4].try_into().unwrap()), 3);
    let mut v2 = [0u8; 56];
    assert_eq!(
        sockopt::get_raw(fd, SOL_C2TCP, C2TCP_INFO, &mut v2).unwrap(),
        52
    );
    assert_eq!(u32::from_ne_bytes(v2[44..48].try_into().unwrap()), 0x01);
    let mut long = [0u8; 64];
    assert_eq!(
        sockopt::get_raw(fd, SOL_C2TCP, C2TCP_INFO, &mut long).unwrap(),
        60
    );
    // A socket that chose nothing reports the load-time default, jsac.
    let plain = sockopt::c2tcp_info(&tcp_socket()).unwrap();
    assert_eq!((plain.variant, plain.behaviours), (1, 0x1f));

    // The refused values did not stick.
    assert_eq!(sockopt::target_us(&s).unwrap(), 10_000_000);
    let mut short = [0u8; 16];
    assert_eq!(
        sockopt::get_raw(fd, SOL_C2TCP, C2TCP_INFO, &mut short)
            .unwrap_err()
            .raw_os_error(),
        Some(libc::EINVAL)
    );
    let mut b = [0u8; 4];
    assert_eq!(
        sockopt::get_raw(fd, SOL_C2TCP, 77, &mut b)
            .unwrap_err()
            .raw_os_error(),
        Some(libc::ENOPROTOOPT)
    );

    // Other levels are untouched; UDP sockets get the kernel's own answer.
    sockopt::set_raw(
        fd,
        libc::SOL_SOCKET,
        libc::SO_KEEPALIVE,
        &1i32.to_ne_bytes(),
    )
    .unwrap();
    // SAFETY: plain socket(2).
    let udp = unsafe { OwnedFd::from_raw_fd(libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0)) };
    assert_eq!(
        errno_of(sockopt::set_target_us(&udp, 50_000)),
        Some(libc::ENOPROTOOPT)
    );

    // Values are per socket: another socket does not see them.
    let other = tcp_socket();
    sockopt::set_target_us(&s, 42_000).unwrap();
    assert_eq!(sockopt::target_us(&s).unwrap(), 42_000);
    assert_ne!(sockopt::target_us(&other).unwrap(), 42_000);
}

#[test]
fn unprivileged_programs_can_select_c2tcp() {
    if !testkit::require_root("unprivileged_programs_can_select_c2tcp") {
        return;
    }
    let _serial = serial();
    let _loaded = Loaded::new(&["c2tcp"]);
    // A child that drops to nobody, then selects c2tcp and sets a Target.
    // SAFETY: the child only makes async-signal-safe system calls.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        unsafe {
            let mut code = 0;
            if libc::setgid(65534) != 0 || libc::setuid(65534) != 0 {
                libc::_exit(10);
            }
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
            let name = b"c2tcp";
            if libc::setsockopt(
                fd,
                libc::IPPROTO_TCP,
                libc::TCP_CONGESTION,
                name.as_ptr().cast(),
                5,
            ) != 0
            {
                code |= 1;
            }
            let target: u32 = 30_000;
            if libc::setsockopt(
                fd,
                SOL_C2TCP,
                C2TCP_TARGET,
                (&target as *const u32).cast(),
                4,
            ) != 0
            {
                code |= 2;
            }
            libc::_exit(code);
        }
    }
    let mut status = 0;
    unsafe { libc::waitpid(pid, &mut status, 0) };
    assert!(libc::WIFEXITED(status));
    assert_eq!(
        libc::WEXITSTATUS(status),
        0,
        "1: TCP_CONGESTION refused, 2: C2TCP_TARGET refused, 10: setuid failed"
    );
}

/// A bulk transfer from namespace `server` to namespace `ue` over veth with
/// c2tcp; returns the sender's C2TCP_INFO after `secs` seconds.
#[test]
fn real_transfer_between_namespaces_uses_c2tcp() {
    if !testkit::require_root("real_transfer_between_namespaces_uses_c2tcp") {
        return;
    }
    let _serial = serial();
    let _loaded = Loaded::new(&["c2tcp"]);
    let (server, ue) = common::veth_hosts();

    // The UE listens; its listener's Target must pass to accepted sockets.
    let listener = ue
        .run(|| {
            let l = TcpListener::bind("10.77.0.2:5001").unwrap();
            sockopt::set_target_us(&l, 77_000).unwrap();
            l
        })
        .unwrap();
    let receiver = std::thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        let inherited = sockopt::target_us(&conn).unwrap();
        (inherited, drain(conn))
    });

    let (info_before, info_mid, info_end, cc, sent) = server
        .run(|| {
            // Target and congestion control set before connect().
            let sock = tcp_socket();
            sockopt::set_congestion(&sock, "c2tcp").unwrap();
            sockopt::set_target_us(&sock, 30_000).unwrap();
            // The paper's variant: veth's sub-millisecond RTT is below the
            // authors' whole-ms arithmetic (their min RTT reads 0 ms).
            sockopt::set_variant(&sock, sockopt::Variant::PAPER).unwrap();
            let before = sockopt::c2tcp_info(&sock).unwrap();
            let addr: SocketAddr = "10.77.0.2:5001".parse().unwrap();
            let stream = connect(sock, addr);
            let mut stream = stream;
            let chunk = vec![0x5au8; 1 << 16];
            let mut sent = 0u64;
            let start = Instant::now();
            let mut mid = None;
            while start.elapsed() < Duration::from_millis(1800) {
                stream.write_all(&chunk).unwrap();
                sent += chunk.len() as u64;
                if mid.is_none() && start.elapsed() > Duration::from_millis(600) {
                    mid = Some(sockopt::c2tcp_info(&stream).unwrap());
                    // The Target may change during the connection.
                    sockopt::set_target_us(&stream, 40_000).unwrap();
                }
            }
            let end = sockopt::c2tcp_info(&stream).unwrap();
            let cc = sockopt::congestion(&stream).unwrap();
            (before, mid.unwrap(), end, cc, sent)
        })
        .unwrap();
    let (inherited, received) = receiver.join().unwrap();

    assert_eq!(cc, "c2tcp");
    assert_eq!(
        inherited, 77_000,
        "listener's Target not inherited by the accepted socket"
    );
    assert_eq!(received, sent);
    assert_eq!(info_before.version, 3);
    assert_eq!(
        (
            info_end.variant,
            info_end.behaviours,
            info_end.skipped_samples
        ),
        (2, 0, 0)
    );
    assert_eq!(info_before.target_us, 30_000);
    assert_eq!(info_mid.target_us, 30_000);
    assert!(info_mid.min_rtt_us > 0, "{info_mid:?}");
    assert!(info_mid.setpoint_us >= info_mid.min_rtt_us, "{info_mid:?}");
    assert!((100..=1000).contains(&info_mid.alpha_pct), "{info_mid:?}");
    assert_eq!(info_end.target_us, 40_000, "{info_end:?}");
    assert!(
        info_end.tune_cycles >= 2,
        "Tuner cycles must advance every 500 ms: {info_end:?}"
    );
    assert!(
        info_end.tune_cycles > info_mid.tune_cycles,
        "{info_mid:?} -> {info_end:?}"
    );
    assert!(info_end.last_avg_rtt_us > 0, "{info_end:?}");
}

/// The drain variant (issue 44) in the kernel: C2TCP_INFO reports it with
/// all eight behaviours, the kernel's pacing is held on while `pacing` is in
/// force and handed back when that behaviour is switched off mid-connection,
/// and the floor's measure (packets delivered per min RTT) follows the
/// transfer.
#[test]
fn drain_variant_paces_and_measures_what_the_path_delivers() {
    if !testkit::require_root("drain_variant_paces_and_measures_what_the_path_delivers") {
        return;
    }
    let _serial = serial();
    let _loaded = Loaded::new(&["c2tcp"]);
    let (server, ue) = common::veth_hosts();
    let listener = ue
        .run(|| TcpListener::bind("10.77.0.2:5002").unwrap())
        .unwrap();
    let receiver = std::thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        drain(conn)
    });

    let (before, mid, max_bdp, off, sent) = server
        .run(|| {
            let sock = tcp_socket();
            sockopt::set_congestion(&sock, "c2tcp").unwrap();
            sockopt::set_variant(&sock, sockopt::Variant::DRAIN).unwrap();
            let before = sockopt::c2tcp_info(&sock).unwrap();
            let mut stream = connect(sock, "10.77.0.2:5002".parse().unwrap());
            let chunk = vec![0x5au8; 1 << 16];
            let (mut sent, mut max_bdp) = (0u64, 0u32);
            let start = Instant::now();
            let mut mid = None;
            while start.elapsed() < Duration::from_millis(1200) {
                stream.write_all(&chunk).unwrap();
                sent += chunk.len() as u64;
                let info = sockopt::c2tcp_info(&stream).unwrap();
                max_bdp = max_bdp.max(info.bdp_pkts);
                if mid.is_none() && start.elapsed() > Duration::from_millis(700) {
                    mid = Some(info);
                    // Pacing off mid-connection: handed back on the next ACK.
                    sockopt::set_variant(&stream, "drain-pacing".parse().unwrap()).unwrap();
                }
            }
            let off = sockopt::c2tcp_info(&stream).unwrap();
            (before, mid.unwrap(), max_bdp, off, sent)
        })
        .unwrap();
    assert_eq!(receiver.join().unwrap(), sent);
    assert_eq!((before.variant, before.behaviours), (3, 0xff), "{before:?}");
    assert_eq!(before.paced, 0, "nothing paces before the connection: {before:?}");
    assert_eq!((mid.variant, mid.behaviours, mid.paced), (3, 0xff, 1), "{mid:?}");
    assert!(mid.min_rtt_us > 0 && mid.tune_cycles >= 1, "{mid:?}");
    assert!(max_bdp > 0, "no packets delivered per min RTT measured: {mid:?}");
    assert_eq!((off.variant, off.behaviours, off.paced), (3 | 0x80 << 16, 0x7f, 0), "{off:?}");
}
