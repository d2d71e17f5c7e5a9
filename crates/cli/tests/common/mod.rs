// SPDX-License-Identifier: GPL-2.0-only
//! Helpers shared by the CLI's integration tests.
#![allow(dead_code)]
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Registrations are kernel-global: tests that load or unload run one at a
/// time, across this binary's threads and across processes.
pub static SERIAL: Mutex<()> = Mutex::new(());

pub struct Serial {
    _kernel: testkit::KernelLock,
    _thread: std::sync::MutexGuard<'static, ()>,
}

pub fn serial() -> Serial {
    let thread = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    Serial {
        _kernel: testkit::kernel_lock(),
        _thread: thread,
    }
}

/// A JSON file of a run or bench, its path in any error.
pub fn json(path: &std::path::Path) -> serde_json::Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}: {text}", path.display()))
}

/// A run directory's metrics.json.
pub fn metrics(run_dir: &std::path::Path) -> serde_json::Value {
    json(&run_dir.join("metrics.json"))
}

/// No process outlived its run: none names the run's directory.
pub fn assert_no_process_mentions(dir: &std::path::Path) {
    let ps = Command::new("pgrep")
        .args(["-f", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        ps.stdout.is_empty(),
        "processes left: {}",
        String::from_utf8_lossy(&ps.stdout)
    );
}

pub fn c2tcp(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_c2tcp"))
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// `c2tcp run` of the authors' set-up (scenarios/c2tcp-default.toml) with
/// one scheme on one downlink trace for `secs` seconds, 3 s of warm-up.
pub fn run_authors_setup(
    scheme: &str,
    downlink: &std::path::Path,
    secs: u32,
    out: &std::path::Path,
) -> (bool, String) {
    let scenario =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/c2tcp-default.toml");
    let secs = secs.to_string();
    c2tcp(&[
        "run",
        scenario.to_str().unwrap(),
        "--scheme",
        scheme,
        "--downlink",
        downlink.to_str().unwrap(),
        "--duration",
        &secs,
        "--warmup",
        "3",
        "--out",
        out.to_str().unwrap(),
    ])
}

fn listed(file: &str, name: &str) -> bool {
    std::fs::read_to_string(file)
        .unwrap()
        .split_whitespace()
        .any(|c| c == name)
}

pub fn registered(name: &str) -> bool {
    listed("/proc/sys/net/ipv4/tcp_available_congestion_control", name)
}

pub fn allowed(name: &str) -> bool {
    listed("/proc/sys/net/ipv4/tcp_allowed_congestion_control", name)
}

/// Makes sure congestion controls are loaded for one test, and unloads
/// afterwards, even on panic, those it loaded: a user's (`c2tcp load` before
/// the tests) are used as they are, neither reconfigured nor unloaded
/// (`testkit::Registrations`).
pub struct Loaded(Vec<String>);

impl Loaded {
    pub fn new(names: &[&str]) -> Self {
        let ours: Vec<&str> = names.iter().copied().filter(|n| !registered(n)).collect();
        if !ours.is_empty() {
            let mut args = vec!["load"];
            args.extend_from_slice(&ours);
            let (ok, out) = c2tcp(&args);
            assert!(ok, "c2tcp load failed: {out}");
        }
        Loaded(ours.iter().map(|n| n.to_string()).collect())
    }
}

impl Drop for Loaded {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        let mut args = vec!["unload"];
        args.extend(self.0.iter().map(String::as_str));
        let (ok, out) = c2tcp(&args);
        if !std::thread::panicking() {
            assert!(ok, "c2tcp unload failed: {out}");
        }
    }
}

pub fn errno_of(r: std::io::Result<()>) -> Option<i32> {
    r.err().and_then(|e| e.raw_os_error())
}

pub fn tcp_socket() -> OwnedFd {
    // SAFETY: plain socket(2); the fd is owned immediately.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    assert!(fd >= 0);
    unsafe { OwnedFd::from_raw_fd(fd) }
}

pub fn connect(sock: OwnedFd, addr: SocketAddr) -> TcpStream {
    let SocketAddr::V4(v4) = addr else {
        unreachable!()
    };
    let sin = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: v4.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*v4.ip()).to_be(),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: sin is a valid sockaddr_in for the call.
    let rc = unsafe {
        libc::connect(
            sock.as_raw_fd(),
            (&sin as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    assert_eq!(rc, 0, "connect: {}", std::io::Error::last_os_error());
    TcpStream::from(sock)
}

/// Two namespaces joined by veth: `server` 10.77.0.1, `ue` 10.77.0.2.
pub fn veth_hosts() -> (netns::Netns, netns::Netns) {
    let server = netns::Netns::new("server").unwrap();
    let ue = netns::Netns::new("ue").unwrap();
    netns::veth_pair(&server, "srv0", &ue, "ue0").unwrap();
    server
        .ip(&["addr", "add", "10.77.0.1/24", "dev", "srv0"])
        .unwrap();
    ue.ip(&["addr", "add", "10.77.0.2/24", "dev", "ue0"])
        .unwrap();
    (server, ue)
}

/// Reads a connection to its end; returns the byte count.
pub fn drain(mut conn: TcpStream) -> u64 {
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        match conn.read(&mut buf) {
            Ok(0) => return total,
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => panic!("receiver: {e}"),
        }
    }
}

/// Writes to `stream` for `secs`; returns the byte count.
pub fn blast(stream: &mut TcpStream, secs: Duration) -> u64 {
    let chunk = vec![0x5au8; 1 << 16];
    let mut sent = 0u64;
    let start = Instant::now();
    while start.elapsed() < secs {
        stream.write_all(&chunk).unwrap();
        sent += chunk.len() as u64;
    }
    sent
}

/// A bulk transfer server -> ue with congestion control `cc` for `secs`;
/// returns (bytes sent, bytes received, the congestion control read back).
pub fn transfer_with(cc: &str, secs: Duration) -> (u64, u64, String) {
    let (server, ue) = veth_hosts();
    let listener = ue
        .run(|| TcpListener::bind("10.77.0.2:5001").unwrap())
        .unwrap();
    let receiver = std::thread::spawn(move || drain(listener.accept().unwrap().0));
    let cc = cc.to_string();
    let (sent, got_cc) = server
        .run(move || {
            let sock = tcp_socket();
            sockopt::set_congestion(&sock, &cc).unwrap();
            let mut stream = connect(sock, "10.77.0.2:5001".parse().unwrap());
            let sent = blast(&mut stream, secs);
            (sent, sockopt::congestion(&stream).unwrap())
        })
        .unwrap();
    (sent, receiver.join().unwrap(), got_cc)
}

/// A UDP transport's run (`scheme` `proto`, e.g. `sprout`, `verus`) left
/// both endpoints' reports in its directory and no endpoint process behind.
pub fn assert_udp_endpoints_reported(dir: &std::path::Path, proto: &str) {
    for side in ["receiver", "sender"] {
        assert!(
            dir.join(format!("{proto}-flow0-{side}.json")).is_file(),
            "{side} stats missing"
        );
    }
    // No endpoint outlived its run.
    assert_no_process_mentions(dir);
}

/// A UDP transport's sender is always backlogged: `c2tcp run` refuses a
/// sized flow of `scheme` by name (the message is checked as root, where
/// the run gets as far as the check).
pub fn assert_sized_flow_refused(scheme: &str, test: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let sc = tmp.path().join("s.toml");
    std::fs::write(
        &sc,
        format!(
            "[link]\ndownlink = \"constant:12\"\n[[flows]]\nscheme = \"{scheme}\"\nsize_bytes = 100000\n"
        ),
    )
    .unwrap();
    let (ok, text) = c2tcp(&[
        "run",
        sc.to_str().unwrap(),
        "--out",
        tmp.path().join("o").to_str().unwrap(),
    ]);
    assert!(!ok);
    if testkit::require_root(test) {
        assert!(
            text.contains("flows[0].size_bytes") && text.contains("always backlogged"),
            "{text}"
        );
    }
}

/// The Go endpoints, built beside the c2tcp under test by the Makefile's
/// own rule (a no-op when `make build` already did it); None after
/// skip_or_fail when Go is missing.
pub fn webrtc_gcc_built(test: &str) -> Option<std::path::PathBuf> {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_c2tcp"));
    let exe = bin.with_file_name("webrtc-gcc");
    if Command::new("go").arg("version").output().is_err() {
        testkit::skip_or_fail(test, "needs Go (>= 1.24) to build tools/webrtc-gcc");
        return None;
    }
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("make")
        .arg("-C")
        .arg(&repo)
        .arg(format!("BIN={}", bin.display()))
        .arg(&exe)
        .output()
        .expect("running make");
    assert!(
        out.status.success(),
        "make {}: {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}
