// SPDX-License-Identifier: GPL-2.0-only
//! The UE's packet tap: the headers of every TCP segment that arrives at or
//! leaves the controller's network namespace, with the kernel's time of
//! each, for the timestamp-echo RTT ([`crate::echo`]).
//!
//! Why a tap: TCP_INFO gives the receiver only the kernel's filtered RTT
//! (`tcpi_rcv_rtt`, see [`crate::estimator`]), never the TSecr of each
//! segment, and a BPF program that could read it (sockops with header-option
//! callbacks) is a registration the runner would have to own and clean up.
//! An AF_PACKET socket is what tcpdump uses: it sees each packet at the
//! interface (incoming before TCP, outgoing as it leaves), belongs to the
//! namespace it was opened in, and goes when its descriptor closes. It needs
//! CAP_NET_RAW; without it the controller falls back to the window span.
//!
//! Cost: one `recvmsg` per packet, about 7 000 packets a second at
//! 54 Mbit/s, drained once per tick into one buffer allocated at open; only
//! the first [`SNAP`] bytes are copied. Not batched yet: nix's `recvmmsg`
//! could take a tick's packets in one call.
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use etherparse::{LaxNetSlice, LaxSlicedPacket, TcpOptionElement, TransportSlice};
use nix::sys::socket::{
    recvmsg, setsockopt, socket, sockopt, AddressFamily, ControlMessageOwned, LinkAddr, MsgFlags,
    SockFlag, SockProtocol, SockType,
};

/// Bytes of each packet copied: IPv6 (40) + TCP with options (60) fit.
pub const SNAP: usize = 128;
/// `sll_pkttype` of a packet this host sent (linux/if_packet.h).
const PACKET_OUTGOING: u8 = 4;
/// Socket receive buffer: ~1 s of headers at 54 Mbit/s should the
/// controller's thread be held up.
const RCVBUF: usize = 4 << 20;

/// One TCP segment's headers, as the tap saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Sent by this host (an ACK of ours), else received.
    pub outgoing: bool,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    /// TCP payload bytes (from the IP header's length: the copy is cut).
    pub payload: u32,
    /// The timestamp option: (TSval, TSecr).
    pub ts: Option<(u32, u32)>,
}

/// The TCP segment in an IP packet (v4 or v6, possibly cut after its
/// headers), or None for anything else.
pub fn parse(ip: &[u8], outgoing: bool) -> Option<Segment> {
    let p = LaxSlicedPacket::from_ip(ip).ok()?;
    let Some(TransportSlice::Tcp(tcp)) = &p.transport else {
        return None;
    };
    let tcp_header = tcp.data_offset() as u32 * 4;
    let (src, dst, ip_payload) = match p.net.as_ref()? {
        LaxNetSlice::Ipv4(v4) => {
            let h = v4.header();
            (
                IpAddr::V4(h.source_addr()),
                IpAddr::V4(h.destination_addr()),
                (h.total_len() as u32).saturating_sub(h.ihl() as u32 * 4),
            )
        }
        LaxNetSlice::Ipv6(v6) => {
            let h = v6.header();
            (
                IpAddr::V6(h.source_addr()),
                IpAddr::V6(h.destination_addr()),
                h.payload_length() as u32,
            )
        }
    };
    let ts = tcp.options_iterator().find_map(|o| match o {
        Ok(TcpOptionElement::Timestamp(val, ecr)) => Some((val, ecr)),
        _ => None,
    });
    Some(Segment {
        outgoing,
        src: SocketAddr::new(src, tcp.source_port()),
        dst: SocketAddr::new(dst, tcp.destination_port()),
        payload: ip_payload.saturating_sub(tcp_header),
        ts,
    })
}

/// An open tap on every interface of the namespace it was opened in.
pub struct Tap {
    fd: OwnedFd,
    buf: Box<[u8; SNAP]>,
    cmsg: Vec<u8>,
}

impl Tap {
    /// Opens the tap in the calling thread's network namespace.
    pub fn open() -> io::Result<Tap> {
        let fd = socket(
            AddressFamily::Packet,
            SockType::Datagram,
            SockFlag::SOCK_CLOEXEC | SockFlag::SOCK_NONBLOCK,
            SockProtocol::EthAll,
        )?;
        setsockopt(&fd, sockopt::ReceiveTimestampns, &true)?;
        // A smaller buffer than asked for is no reason to refuse.
        let _ = setsockopt(&fd, sockopt::RcvBufForce, &RCVBUF)
            .or_else(|_| setsockopt(&fd, sockopt::RcvBuf, &RCVBUF));
        Ok(Tap {
            fd,
            buf: Box::new([0; SNAP]),
            cmsg: nix::cmsg_space!(nix::sys::time::TimeSpec),
        })
    }

    /// Every TCP segment queued since the last call, each with its time in
    /// µs since `epoch` (the kernel's receive time, moved from the wall
    /// clock it is kept in to `epoch`'s monotonic one).
    pub fn drain(&mut self, epoch: Instant, mut each: impl FnMut(u64, &Segment)) {
        // The wall clock and the monotonic clock, read together once.
        let now_mono = Instant::now().saturating_duration_since(epoch).as_micros() as i128;
        let now_wall = wall_us(SystemTime::now());
        loop {
            let mut iov = [io::IoSliceMut::new(&mut self.buf[..])];
            let (len, pkttype, wall) = match recvmsg::<LinkAddr>(
                self.fd.as_raw_fd(),
                &mut iov,
                Some(&mut self.cmsg),
                MsgFlags::MSG_DONTWAIT | MsgFlags::MSG_TRUNC,
            ) {
                Ok(m) => {
                    let mut wall = None;
                    if let Ok(cmsgs) = m.cmsgs() {
                        for c in cmsgs {
                            if let ControlMessageOwned::ScmTimestampns(ts) = c {
                                wall = Some(
                                    ts.tv_sec() as i128 * 1_000_000 + ts.tv_nsec() as i128 / 1_000,
                                );
                            }
                        }
                    }
                    (m.bytes, m.address.map_or(0, |a| a.pkttype()), wall)
                }
                Err(nix::errno::Errno::EINTR) => continue,
                Err(_) => return, // EAGAIN: drained
            };
            let copied = len.min(SNAP);
            let Some(seg) = parse(&self.buf[..copied], pkttype == PACKET_OUTGOING) else {
                continue;
            };
            let t = wall.map_or(now_mono, |w| now_mono - (now_wall - w));
            each(t.max(0) as u64, &seg);
        }
    }
}

fn wall_us(t: SystemTime) -> i128 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i128)
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;

    fn packet(payload: &[u8], ts: Option<(u32, u32)>) -> Vec<u8> {
        let mut b =
            PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64).tcp(5000, 40000, 7, 65535);
        if let Some((val, ecr)) = ts {
            b = b
                .options(&[
                    TcpOptionElement::Noop,
                    TcpOptionElement::Noop,
                    TcpOptionElement::Timestamp(val, ecr),
                ])
                .unwrap();
        }
        let mut out = Vec::new();
        b.write(&mut out, payload).unwrap();
        out
    }

    #[test]
    fn a_data_segment_cut_after_its_headers_keeps_its_length_and_timestamps() {
        let p = packet(&[0u8; 1448], Some((1_000, 777)));
        let s = parse(&p[..SNAP.min(p.len())], false).unwrap();
        assert_eq!(s.src, "10.0.0.1:5000".parse().unwrap());
        assert_eq!(s.dst, "10.0.0.2:40000".parse().unwrap());
        assert_eq!(s.payload, 1448);
        assert_eq!(s.ts, Some((1_000, 777)));
        assert!(!s.outgoing);
    }

    #[test]
    fn a_pure_ack_without_timestamps() {
        let p = packet(&[], None);
        let s = parse(&p, true).unwrap();
        assert_eq!((s.payload, s.ts, s.outgoing), (0, None, true));
    }

    #[test]
    fn not_tcp_is_none() {
        let mut out = Vec::new();
        PacketBuilder::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
            .udp(1, 2)
            .write(&mut out, &[1, 2, 3])
            .unwrap();
        assert_eq!(parse(&out, false), None);
        assert_eq!(parse(&[0x45, 0, 0], false), None);
    }
}
