// SPDX-License-Identifier: GPL-2.0-only
//! The UE's side of intra-fairness: beta, the number of the UE's active
//! flows, reported to NetAssist every period.
//!
//! A reporter thread runs inside the UE's namespace and counts the
//! established TCP connections there that are not on loopback (every one of
//! them crosses the UE's cellular queue), reading the namespace's own
//! `/proc/thread-self/net/tcp` and `tcp6`. It sends the count as a flow
//! report to NetAssist over the UE's own veth to the NetAssist namespace: a
//! control channel beside the emulated data link, as a UE's signalling to its
//! base station would be. Idle but open connections count too (the UE cannot
//! tell a pause from the end of a flow); the count never goes below 1.
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use netns::Netns;

use crate::wire::{encode, realtime_us, Key, Kind, Message, MAX_LEN};

/// TCP_ESTABLISHED in /proc/net/tcp's `st` column.
const ESTABLISHED: &str = "01";

/// Established, non-loopback TCP connections in a /proc/net/tcp{,6} text.
pub fn count_established(text: &str) -> usize {
    text.lines()
        .skip(1)
        .filter(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() < 4 || f[3] != ESTABLISHED {
                return false;
            }
            // local address: 0100007F:PORT (IPv4, little-endian hex) or the
            // IPv6 loopback; both ends are local for a loopback connection.
            let local = f[1].split(':').next().unwrap_or("");
            !(local.ends_with("7F") && local.len() == 8)
                && local != "00000000000000000000000001000000"
        })
        .count()
}

/// The calling thread's namespace's established connections.
fn established_here() -> usize {
    ["/proc/thread-self/net/tcp", "/proc/thread-self/net/tcp6"]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .map(|t| count_established(&t))
        .sum()
}

pub struct Reporter {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<Result<()>>>>,
}

impl Reporter {
    /// Reports `ue`'s flows to `netassist` every `period`, from a thread in
    /// the UE's namespace.
    pub fn start(
        ue_ns: &Netns,
        ue: Ipv4Addr,
        bind: Ipv4Addr,
        netassist: SocketAddrV4,
        period: Duration,
        key: Option<Key>,
    ) -> Result<Reporter> {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let thread = ue_ns.spawn("netassist-ue", move || -> Result<()> {
            let sock = UdpSocket::bind(SocketAddrV4::new(bind, 0))
                .context("binding the UE's flow reporter")?;
            let session: u32 = rand::random();
            let mut seq = 0u32;
            let mut buf = [0u8; MAX_LEN];
            while !s.load(Relaxed) {
                seq = seq.wrapping_add(1);
                let beta = established_here().clamp(1, u16::MAX as usize) as u16;
                let m = Message {
                    kind: Kind::FlowReport,
                    carried: false,
                    period_ms: period.as_millis().min(u16::MAX as u128) as u16,
                    session,
                    seq,
                    timestamp_us: realtime_us(),
                    ue,
                    bw_bps: 0,
                    min_rtt_us: 0,
                    beta,
                };
                let n = encode(&m, key.as_ref(), &mut buf);
                let _ = sock.send_to(&buf[..n], netassist);
                std::thread::sleep(period);
            }
            Ok(())
        })?;
        Ok(Reporter {
            stop,
            thread: Some(thread),
        })
    }

    pub fn stop(mut self) -> Result<()> {
        self.stop.store(true, Relaxed);
        match self.thread.take() {
            Some(t) => {
                t.join()
                    .map_err(|_| anyhow::anyhow!("the UE reporter panicked"))???;
                Ok(())
            }
            None => Ok(()),
        }
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_established_non_loopback_connections() {
        let text = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 026000644:1770 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 0 0 0 0\n\
   1: 02006064:1770 01006064:C350 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 0 0 0 0\n\
   2: 02006064:1771 01006064:C351 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0 0 0 0 0\n\
   3: 0100007F:1F90 0100007F:D000 01 00000000:00000000 00:00000000 00000000     0        0 4 1 0 0 0 0 0\n\
   4: 02006064:1772 01006064:C352 06 00000000:00000000 00:00000000 00000000     0        0 5 1 0 0 0 0 0\n";
        assert_eq!(
            count_established(text),
            2,
            "two established, one listening, one loopback, one TIME_WAIT"
        );
        assert_eq!(count_established(""), 0);
    }
}
