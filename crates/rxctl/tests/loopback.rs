// SPDX-License-Identifier: GPL-2.0-only
//! The controller on real loopback sockets (no privileges needed): it
//! writes clamps within bounds, records, follows flows arriving and leaving.
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::time::{Duration, Instant};

use rxctl::{Config, Controller};

/// A loopback connection: (sender, accepted receiver).
fn pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let tx = TcpStream::connect(l.local_addr().unwrap()).unwrap();
    let (rx, _) = l.accept().unwrap();
    (tx, rx)
}

/// Sends for `dur` on a thread, then closes; the receiver reads with `tick`
/// called between reads. Returns (bytes sent, bytes read).
fn transfer(
    tx: TcpStream,
    rx: &mut TcpStream,
    dur: Duration,
    mut tick: impl FnMut(),
) -> (usize, usize) {
    let sender = std::thread::spawn(move || {
        let mut tx = tx;
        let chunk = vec![1u8; 64 * 1024];
        let end = Instant::now() + dur;
        let mut sent = 0;
        while Instant::now() < end {
            tx.write_all(&chunk).unwrap();
            sent += chunk.len();
        }
        sent
    });
    rx.set_read_timeout(Some(Duration::from_millis(2))).unwrap();
    let mut buf = vec![0u8; 256 * 1024];
    let mut got = 0;
    loop {
        match rx.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(e) => panic!("{e}"),
        }
        tick();
    }
    (sender.join().unwrap(), got)
}

#[test]
fn controlled_flow_keeps_its_clamp_within_bounds_and_is_recorded() {
    for cfg in [Config::dfcsd(), Config::drwa()] {
        let rule = cfg.rule.name();
        let ctl = Controller::spawn(cfg).unwrap();
        let (tx, mut rx) = pair();
        let id = ctl.register(&rx, "bulk").unwrap();
        let mss = sockopt::tcp_info(&rx).unwrap().advmss;
        let kernel_clamp = sockopt::window_clamp(&rx).unwrap();
        let mut clamps = Vec::new();
        let probe = rx.try_clone().unwrap();
        let (sent, got) = transfer(tx, &mut rx, Duration::from_millis(800), || {
            clamps.push(sockopt::window_clamp(&probe).unwrap())
        });
        drop(probe);
        assert_eq!(got, sent);
        // The peer closed: the controller lets go of the flow by itself.
        let deadline = Instant::now() + Duration::from_secs(2);
        while ctl.active() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(ctl.active(), 0, "{rule}: a closed flow stays registered");
        assert!(!ctl.unregister(id), "{rule}: already retired");
        let records = ctl.stop();
        assert_eq!(records.len(), 1);
        let r = &records[0];
        assert!(r.rows.len() >= 3, "{rule}: {} decisions", r.rows.len());
        assert!(r.retired_at_s.is_some() && r.bytes_received >= sent as u64);
        // Every window written is within [2 MSS, the kernel's own clamp].
        for row in &r.rows {
            assert!(row.rwnd_bytes >= 2 * mss, "{rule}: {row:?}");
        }
        let max_kernel = clamps.iter().copied().max().unwrap().max(kernel_clamp);
        assert!(
            r.rows.iter().all(|row| row.rwnd_bytes <= max_kernel),
            "{rule}"
        );
        // The controller did write the socket's clamp (it differs from the
        // kernel's once a decision is made).
        let last = r.rows.last().unwrap();
        assert!(
            clamps.contains(&last.rwnd_bytes),
            "{rule}: clamp never written"
        );
        let mut csv = Vec::new();
        rxctl::write_csv(&records, &mut csv).unwrap();
        assert_eq!(
            String::from_utf8(csv).unwrap().lines().count(),
            r.rows.len() + 1
        );
    }
}

#[test]
fn flows_arrive_and_leave_and_only_tcp_connections_register() {
    let ctl = Controller::new(Config::dfcsd()).unwrap();
    let (tx_a, rx_a) = pair();
    let (_tx_b, rx_b) = pair();
    let a = ctl.register(&rx_a, "a").unwrap();
    let b = ctl.register(&rx_b, "b").unwrap();
    assert_ne!(a, b);
    assert_eq!(ctl.active(), 2);
    ctl.tick();
    assert!(ctl.unregister(b));
    assert!(!ctl.unregister(b));
    assert_eq!(ctl.active(), 1);
    // The receiver may close its socket first: the controller's duplicate
    // keeps nothing dangling, and the record survives.
    drop(rx_a);
    drop(tx_a);
    ctl.tick();
    ctl.tick();
    assert_eq!(ctl.active(), 0);
    let records = ctl.stop();
    assert_eq!(
        records.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert!(records.iter().all(|r| r.retired_at_s.is_some()));
    // Stopped: the records stay, new flows are refused.
    assert_eq!(ctl.stop().len(), 2);
    let (_tx_c, rx_c) = pair();
    assert!(ctl
        .register(&rx_c, "c")
        .unwrap_err()
        .to_string()
        .contains("stopped"));

    let ctl = Controller::new(Config::drwa()).unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let e = format!("{:#}", ctl.register(&udp, "udp").unwrap_err());
    assert!(e.contains("TCP_INFO"), "{e}");
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let e = format!("{:#}", ctl.register(&l, "listener").unwrap_err());
    assert!(e.contains("not an established connection"), "{e}");
}

#[test]
fn refuses_to_run_where_linux_would_retract_advertised_windows() {
    if !testkit::require_root("refuses_to_run_where_linux_would_retract_advertised_windows") {
        return;
    }
    // A namespace of our own: the sysctl is per namespace.
    let ns = netns::Netns::new("rxctl-shrink").unwrap();
    ns.sysctl("net.ipv4.tcp_shrink_window", "1").unwrap();
    let e = ns
        .run(|| {
            Controller::new(Config::dfcsd())
                .map(|_| ())
                .unwrap_err()
                .to_string()
        })
        .unwrap();
    assert!(e.contains("tcp_shrink_window is 1"), "{e}");
    ns.sysctl("net.ipv4.tcp_shrink_window", "0").unwrap();
    assert!(ns.run(|| Controller::new(Config::dfcsd()).is_ok()).unwrap());
}
