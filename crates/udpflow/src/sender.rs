// SPDX-License-Identifier: GPL-2.0-only
//! The sender's loop every UDP transport here runs, around its protocol
//! logic (sans I/O, [`SenderLogic`]): until a signal or the flow's
//! duration, read every datagram waiting (the receiver's feedback or acks:
//! each to the logic; another kind counted unexpected; a malformed one
//! counted by why), let the logic send what it may now, and sleep in
//! `ppoll` until a datagram arrives or the logic's next event; then say
//! bye three times (one may be lost; the receiver also stops when idle).
//!
//! Where the protocols differ, the logic says: whether a datagram the
//! socket cannot take now is retried (Sprout: the forecast decided it) or
//! given back to the logic, which stops sending until the next wake-up
//! (Verus: its window accounts for it), and what it does before sending
//! ([`SenderLogic::poll`]: Verus's epoch timer).
use std::io::ErrorKind;
use std::net::UdpSocket;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Result;

use crate::endpoint::{drain, monotonic_us, send_retrying, wait, EndedBy, SenderLife};
use crate::wire::{DropCounts, Protocol, WireError, BYE_LEN, MAX_DATAGRAM};
use crate::PollFlags;

/// What the loop does when the socket's buffer is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenFull {
    /// Waits for room (up to a second, `send_retrying`): the datagram is
    /// sent as decided.
    Retry,
    /// Hands it back ([`SenderLogic::transmit_refused`]) and sends no more
    /// until the next wake-up.
    GiveBack,
}

/// A sender's protocol logic as the loop drives it; times are µs of
/// [`monotonic_us`].
pub trait SenderLogic {
    type Protocol: Protocol;
    const WHEN_FULL: WhenFull;
    /// Takes one datagram from the receiver: Ok(true) when it was the kind
    /// this sender reads (and the logic took it), Ok(false) for another.
    fn on_datagram(&mut self, now_us: u64, bytes: &[u8])
        -> Result<bool, WireError<Self::Protocol>>;
    /// Timers due by `now_us`, before sending.
    fn poll(&mut self, _now_us: u64) {}
    /// The next datagram to send now, written into `out`; its length.
    fn poll_transmit(&mut self, now_us: u64, out: &mut [u8]) -> Option<usize>;
    /// The datagram just made could not be sent (the socket was full).
    fn transmit_refused(&mut self, _now_us: u64) {}
    /// When the logic next has something to do.
    fn next_event_us(&self, now_us: u64) -> u64;
    /// The bye, written into `out`; its length.
    fn write_bye(&self, out: &mut [u8]) -> usize;
}

/// What the loop saw, for the sender's report.
#[derive(Debug)]
pub struct SenderRun {
    pub ended_by: EndedBy,
    /// From the loop's start to its end (before the byes).
    pub duration_s: f64,
    pub dropped: DropCounts,
    /// Datagrams of a kind this sender does not read.
    pub unexpected: u64,
    pub send_errors: u64,
}

/// Runs `logic` on the connected, non-blocking `sock` for `duration` (or
/// until `stop`), datagrams up to `max_datagram` bytes (its bye included),
/// then sends the bye.
pub fn run<L: SenderLogic>(
    sock: &UdpSocket,
    logic: &mut L,
    duration: Duration,
    max_datagram: usize,
    stop: &AtomicBool,
) -> Result<SenderRun> {
    let mut buf = vec![0u8; MAX_DATAGRAM + 1];
    let mut dropped = DropCounts::default();
    let (mut unexpected, mut send_errors) = (0u64, 0u64);
    let life = SenderLife::start(duration);
    // Only headers are written into it: the padding stays zero.
    let mut out = vec![0u8; max_datagram.max(BYE_LEN)];
    let ended_by = loop {
        if let Some(why) = life.ended(stop) {
            break why;
        }
        // The receiver not up yet (ICMP port unreachable) reads past.
        drain(sock, &mut buf, |bytes| {
            match logic.on_datagram(monotonic_us(), bytes) {
                Ok(true) => {}
                Ok(false) => unexpected += 1,
                Err(e) => dropped.record(&e),
            }
        })?;
        let now = monotonic_us();
        logic.poll(now);
        while let Some(n) = logic.poll_transmit(now, &mut out) {
            if !send(sock, &out[..n], L::WHEN_FULL, &mut send_errors) {
                logic.transmit_refused(now);
                break;
            }
        }
        let deadline = logic.next_event_us(monotonic_us()).min(life.end_us());
        wait(sock, PollFlags::POLLIN, deadline);
    };
    let duration_s = life.uptime_s();
    let n = logic.write_bye(&mut out);
    for _ in 0..3 {
        send(sock, &out[..n], L::WHEN_FULL, &mut 0);
    }
    Ok(SenderRun {
        ended_by,
        duration_s,
        dropped,
        unexpected,
        send_errors,
    })
}

/// Sends one datagram as `when_full` says; false when the socket was full
/// and it is to be given back. Any other error counts in `errors` and the
/// datagram counts as sent (the network lost it).
fn send(sock: &UdpSocket, datagram: &[u8], when_full: WhenFull, errors: &mut u64) -> bool {
    match when_full {
        WhenFull::Retry => {
            if send_retrying(sock, datagram, None).is_err() {
                *errors += 1;
            }
            true
        }
        WhenFull::GiveBack => match sock.send(datagram) {
            Ok(_) => true,
            Err(e) if e.kind() == ErrorKind::WouldBlock => false,
            Err(_) => {
                *errors += 1;
                true
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{check_header, parse_bye, write_header, Bye, KIND_BYE};
    use std::net::SocketAddr;

    struct Test;
    impl Protocol for Test {
        const NAME: &'static str = "Test";
        const MAGIC: [u8; 4] = *b"TEST";
        const VERSION: u8 = 1;
    }
    const DATA: u8 = 1;
    const REPLY: u8 = 2;
    const OTHER: u8 = 4;

    /// Sends `to_send` 100-byte datagrams, one per reply received after
    /// the first; counts the replies.
    struct Logic {
        to_send: u32,
        sent: u32,
        replies: u32,
        polls: u32,
    }

    impl SenderLogic for Logic {
        type Protocol = Test;
        const WHEN_FULL: WhenFull = WhenFull::GiveBack;
        fn on_datagram(&mut self, _now: u64, b: &[u8]) -> Result<bool, WireError<Test>> {
            let h = check_header::<Test>(b)?;
            if h.kind == REPLY {
                self.replies += 1;
                return Ok(true);
            }
            Ok(false)
        }
        fn poll(&mut self, _now: u64) {
            self.polls += 1;
        }
        fn poll_transmit(&mut self, _now: u64, out: &mut [u8]) -> Option<usize> {
            if self.sent >= self.to_send || self.sent > self.replies {
                return None;
            }
            self.sent += 1;
            write_header::<Test>(out, DATA, 100, 7);
            Some(100)
        }
        fn next_event_us(&self, now: u64) -> u64 {
            now + 5_000
        }
        fn write_bye(&self, out: &mut [u8]) -> usize {
            crate::wire::write_bye::<Test>(
                &Bye {
                    session: 7,
                    packets_sent: self.sent as u64,
                    bytes_sent: 100 * self.sent as u64,
                },
                out,
            )
        }
    }

    /// The loop against a peer on loopback that replies to each data
    /// datagram, and also sends one of another kind and one of garbage:
    /// every datagram is sent, each reply reaches the logic, the others
    /// are counted, and the three byes say what was sent.
    #[test]
    fn the_loop_sends_reads_counts_and_says_bye() {
        let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
        let to: SocketAddr = peer.local_addr().unwrap();
        let sock = crate::endpoint::connect_sender(to, None).unwrap();
        let from = sock.local_addr().unwrap();
        let echo = std::thread::spawn(move || {
            peer.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let (mut data, mut byes, mut buf) = (0, Vec::new(), [0u8; 2048]);
            let mut reply = [0u8; 12];
            while byes.len() < 3 {
                let (n, _) = peer.recv_from(&mut buf).expect("the sender's datagrams");
                let h = check_header::<Test>(&buf[..n]).unwrap();
                if h.kind == KIND_BYE {
                    byes.push(parse_bye::<Test>(&buf[..n], h.session).unwrap());
                    continue;
                }
                data += 1;
                write_header::<Test>(&mut reply, REPLY, 12, 7);
                peer.send_to(&reply, from).unwrap();
                if data == 1 {
                    write_header::<Test>(&mut reply, OTHER, 12, 7);
                    peer.send_to(&reply, from).unwrap();
                    peer.send_to(b"garbage", from).unwrap();
                }
            }
            (data, byes)
        });
        let mut logic = Logic {
            to_send: 20,
            sent: 0,
            replies: 0,
            polls: 0,
        };
        let stop = AtomicBool::new(false);
        let run = run(&sock, &mut logic, Duration::from_millis(300), 100, &stop).unwrap();
        let (data, byes) = echo.join().unwrap();
        assert_eq!((data, logic.sent, logic.replies), (20, 20, 20));
        assert!(logic.polls > 0);
        assert_eq!(run.ended_by, EndedBy::Duration);
        assert!(
            run.duration_s >= 0.3 && run.duration_s < 2.0,
            "{}",
            run.duration_s
        );
        assert_eq!(
            (run.unexpected, run.dropped.total(), run.send_errors),
            (1, 1, 0)
        );
        assert_eq!(byes.len(), 3);
        assert!(byes
            .iter()
            .all(|b| b.packets_sent == 20 && b.bytes_sent == 2000));
    }
}
