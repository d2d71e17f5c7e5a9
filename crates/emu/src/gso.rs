// SPDX-License-Identifier: GPL-2.0-only
//! Writing departures to a TUN device. Packets leaving at the same instant
//! (one trace millisecond with many opportunities) that are consecutive
//! segments of one TCP flow are merged into one GSO write — what a real
//! receiver's NIC does with GRO — instead of one write each: the kernel's
//! per-write cost (~3 µs, mostly the receiver's TCP processing) would
//! otherwise make the 80th packet of a 1 Gbit/s millisecond 250 µs late.
use std::io::IoSlice;

use crate::packet::{Packet, HDR};

/// Largest merged packet: the IPv4 total-length field's limit.
const MAX_GSO: usize = 65_535;
/// Most segments in one merged write (GRO's own limit is 64 too): bounds the
/// write's iovec array, which lives on the stack.
const MAX_SEGS: usize = 64;

const F_NEEDS_CSUM: u8 = 1;
const GSO_TCPV4: u8 = 1;

/// The parts of an IPv4/TCP packet that decide whether it can merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    ihl: usize,
    thl: usize,
    seq: u32,
    payload: usize,
}

const TCP_ACK: u8 = 0x10;
const TCP_PSH: u8 = 0x08;

/// A TCP segment carrying data with only ACK (and maybe PSH) set, unfragmented.
fn segment(p: &[u8]) -> Option<Segment> {
    if p.len() < 40 || p[0] >> 4 != 4 || p[9] != 6 {
        return None;
    }
    let ihl = (p[0] & 0x0f) as usize * 4;
    let frag = u16::from_be_bytes([p[6], p[7]]);
    if frag & 0x3fff != 0
        || p.len() < ihl + 20
        || u16::from_be_bytes([p[2], p[3]]) as usize != p.len()
    {
        return None;
    }
    let thl = (p[ihl + 12] >> 4) as usize * 4;
    let flags = p[ihl + 13];
    if thl < 20 || p.len() <= ihl + thl || flags & !(TCP_ACK | TCP_PSH) != 0 || flags & TCP_ACK == 0
    {
        return None;
    }
    let seq = u32::from_be_bytes([p[ihl + 4], p[ihl + 5], p[ihl + 6], p[ihl + 7]]);
    Some(Segment {
        ihl,
        thl,
        seq,
        payload: p.len() - ihl - thl,
    })
}

/// Whether `b` continues `a` as GRO would merge it: same addresses, ports,
/// ack, window and options, the next sequence number, same TOS/TTL/DF.
fn continues(a: &[u8], sa: &Segment, b: &[u8], sb: &Segment) -> bool {
    sa.ihl == sb.ihl
        && sa.thl == sb.thl
        && sa.seq.wrapping_add(sa.payload as u32) == sb.seq
        && a[1] == b[1]
        && a[6..10] == b[6..10]
        && a[12..sa.ihl] == b[12..sb.ihl]
        // ports
        && a[sa.ihl..sa.ihl + 4] == b[sb.ihl..sb.ihl + 4]
        // ack number, data offset, window
        && a[sa.ihl + 8..sa.ihl + 13] == b[sb.ihl + 8..sb.ihl + 13]
        && a[sa.ihl + 14..sa.ihl + 16] == b[sb.ihl + 14..sb.ihl + 16]
        // options (timestamps included, as GRO requires)
        && a[sa.ihl + 20..sa.ihl + sa.thl] == b[sb.ihl + 20..sb.ihl + sb.thl]
}

/// How many packets from the start of `pkts` merge into one write (1 = none).
fn run_length(pkts: &[(Packet, u64)]) -> usize {
    let first = pkts[0].0.data();
    let Some(s0) = segment(first) else { return 1 };
    let (mut prev, mut sprev) = (first, s0);
    let mut total = first.len();
    let mut n = 1;
    for (p, _) in &pkts[1..] {
        let d = p.data();
        let Some(s) = segment(d) else { break };
        // Every segment but the last must be full-sized (gso_size), and a
        // PSH ends a run.
        if sprev.payload != s0.payload || prev[sprev.ihl + 13] & TCP_PSH != 0 {
            break;
        }
        if n == MAX_SEGS
            || s.payload > s0.payload
            || total + s.payload > MAX_GSO
            || !continues(prev, &sprev, d, &s)
        {
            break;
        }
        total += s.payload;
        prev = d;
        sprev = s;
        n += 1;
    }
    n
}

pub(crate) fn fold(mut sum: u32) -> u16 {
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

pub(crate) fn sum16(bytes: &[u8]) -> u32 {
    bytes
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32)
        .sum()
}

/// Builds the head of one GSO frame from `pkts` (known to merge) in `out`:
/// the virtio-net header and the merged IPv4/TCP packet's headers. The
/// payloads follow in the write's iovec straight from each packet's buffer,
/// so they are copied once, by the kernel. Returns the header length.
fn build_head(pkts: &[(Packet, u64)], out: &mut Vec<u8>) -> usize {
    let first = pkts[0].0.data();
    let s0 = segment(first).expect("a mergeable run starts with a TCP segment");
    let hl = s0.ihl + s0.thl;
    out.clear();
    out.extend_from_slice(&[0u8; HDR]);
    out.extend_from_slice(&first[..hl]);
    let ip_len = hl + pkts.iter().map(|(p, _)| p.len as usize - hl).sum::<usize>();
    let ip = &mut out[HDR..];
    ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    let last = pkts[pkts.len() - 1].0.data();
    ip[s0.ihl + 13] = last[s0.ihl + 13]; // PSH of the last segment
    ip[10..12].copy_from_slice(&[0, 0]);
    let ip_csum = !fold(sum16(&ip[..s0.ihl]));
    ip[10..12].copy_from_slice(&ip_csum.to_be_bytes());
    // CHECKSUM_PARTIAL: the TCP checksum field holds the pseudo-header sum.
    let tcp_len = (ip_len - s0.ihl) as u32;
    let pseudo = fold(sum16(&ip[12..20]) + 6 + tcp_len);
    ip[s0.ihl + 16..s0.ihl + 18].copy_from_slice(&pseudo.to_be_bytes());
    // struct virtio_net_hdr, native endian (the TUN default).
    out[0] = F_NEEDS_CSUM;
    out[1] = GSO_TCPV4;
    out[2..4].copy_from_slice(&(hl as u16).to_ne_bytes());
    out[4..6].copy_from_slice(&(s0.payload as u16).to_ne_bytes());
    out[6..8].copy_from_slice(&(s0.ihl as u16).to_ne_bytes());
    out[8..10].copy_from_slice(&16u16.to_ne_bytes());
    hl
}

/// Turns a batch of departures into writes, merged where possible.
pub struct Batcher {
    scratch: Vec<u8>,
    pub merge: bool,
}

impl Batcher {
    pub fn new(merge: bool) -> Batcher {
        Batcher {
            scratch: Vec::with_capacity(HDR + 120),
            merge,
        }
    }

    /// For each write, in order: `write(frame)` returns a timestamp, then
    /// `written(packets, timestamp)` is told which packets that write
    /// carried. A frame is given as slices to write in one go (`writev`).
    pub fn for_each_write<T>(
        &mut self,
        pkts: &mut [(Packet, u64)],
        mut write: impl FnMut(&[IoSlice<'_>]) -> T,
        mut written: impl FnMut(&[(Packet, u64)], T),
    ) {
        let mut i = 0;
        while i < pkts.len() {
            let n = if self.merge {
                run_length(&pkts[i..])
            } else {
                1
            };
            let t = if n == 1 {
                // The packet's own virtio-net header, as read or as `tso`
                // wrote it: a partial checksum must stay flagged for the
                // receiver. Never a GSO frame.
                let frame = pkts[i].0.frame_mut();
                frame[1..6].fill(0);
                write(&[IoSlice::new(frame)])
            } else {
                let run = &pkts[i..i + n];
                let hl = build_head(run, &mut self.scratch);
                let mut iov = [IoSlice::new(&[]); MAX_SEGS + 1];
                iov[0] = IoSlice::new(&self.scratch);
                for (slot, (p, _)) in iov[1..].iter_mut().zip(run) {
                    *slot = IoSlice::new(&p.data()[hl..]);
                }
                write(&iov[..n + 1])
            };
            written(&pkts[i..i + n], t);
            i += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::BUF_SIZE;
    use std::ops::Range;

    /// An IPv4/TCP segment with timestamps, `payload` bytes from `seq`.
    fn seg(seq: u32, payload: usize, flags: u8, sport: u16) -> Packet {
        let (ihl, thl) = (20, 32);
        let len = ihl + thl + payload;
        let mut buf = vec![0u8; BUF_SIZE].into_boxed_slice();
        let p = &mut buf[HDR..HDR + len];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        p[6] = 0x40; // DF
        p[8] = 64;
        p[9] = 6;
        p[12..16].copy_from_slice(&[100, 96, 0, 1]);
        p[16..20].copy_from_slice(&[100, 96, 0, 2]);
        p[20..22].copy_from_slice(&sport.to_be_bytes());
        p[22..24].copy_from_slice(&5001u16.to_be_bytes());
        p[24..28].copy_from_slice(&seq.to_be_bytes());
        p[28..32].copy_from_slice(&777u32.to_be_bytes());
        p[32] = (thl as u8 / 4) << 4;
        p[33] = flags;
        p[34..36].copy_from_slice(&500u16.to_be_bytes());
        p[40..52].copy_from_slice(&[1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 3]);
        for (i, b) in p[52..].iter_mut().enumerate() {
            *b = (seq as usize + i) as u8;
        }
        Packet::new(buf, len as u32, 0)
    }

    fn writes(pkts: Vec<Packet>) -> Vec<(Vec<u8>, Range<usize>)> {
        let mut v: Vec<(Packet, u64)> = pkts.into_iter().map(|p| (p, 0)).collect();
        let mut frames = Vec::new();
        let mut ranges = Vec::new();
        let mut at = 0;
        Batcher::new(true).for_each_write(
            &mut v,
            |f| {
                frames.push(
                    f.iter()
                        .flat_map(|s| s.iter().copied())
                        .collect::<Vec<u8>>(),
                )
            },
            |pkts, ()| {
                ranges.push(at..at + pkts.len());
                at += pkts.len();
            },
        );
        frames.into_iter().zip(ranges).collect()
    }

    #[test]
    fn consecutive_segments_merge_into_one_gso_frame() {
        let w = writes(vec![
            seg(1000, 1448, TCP_ACK, 80),
            seg(2448, 1448, TCP_ACK, 80),
            seg(3896, 100, TCP_ACK | TCP_PSH, 80),
        ]);
        assert_eq!(w.len(), 1);
        let (f, r) = &w[0];
        assert_eq!(*r, 0..3);
        let ip = &f[HDR..];
        assert_eq!(ip.len(), 52 + 1448 * 2 + 100);
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]) as usize, ip.len());
        assert_eq!(fold(sum16(&ip[..20])), 0xffff, "valid IP header checksum");
        assert_eq!(ip[33], TCP_ACK | TCP_PSH);
        assert_eq!((f[0], f[1]), (F_NEEDS_CSUM, GSO_TCPV4));
        assert_eq!(u16::from_ne_bytes([f[2], f[3]]), 52);
        assert_eq!(u16::from_ne_bytes([f[4], f[5]]), 1448);
        // Payload bytes in order.
        assert_eq!(ip[52], (1000u32) as u8);
        assert_eq!(ip[52 + 1448], 2448u32 as u8);
        assert_eq!(ip[52 + 2896], 3896u32 as u8);
    }

    #[test]
    fn only_what_gro_would_merge_is_merged() {
        let ranges =
            |w: Vec<(Vec<u8>, Range<usize>)>| w.into_iter().map(|(_, r)| r).collect::<Vec<_>>();
        // A gap in sequence numbers, another flow, a short segment in the middle, a PSH.
        assert_eq!(
            ranges(writes(vec![
                seg(0, 1448, TCP_ACK, 80),
                seg(5000, 1448, TCP_ACK, 80)
            ])),
            vec![0..1, 1..2]
        );
        assert_eq!(
            ranges(writes(vec![
                seg(0, 1448, TCP_ACK, 80),
                seg(1448, 1448, TCP_ACK, 81)
            ])),
            vec![0..1, 1..2]
        );
        assert_eq!(
            ranges(writes(vec![
                seg(0, 1448, TCP_ACK, 80),
                seg(1448, 500, TCP_ACK, 80),
                seg(1948, 1448, TCP_ACK, 80)
            ])),
            vec![0..2, 2..3]
        );
        assert_eq!(
            ranges(writes(vec![
                seg(0, 1448, TCP_ACK | TCP_PSH, 80),
                seg(1448, 1448, TCP_ACK, 80)
            ])),
            vec![0..1, 1..2]
        );
        // A lone packet is written as is, behind its own (here zero) header.
        let w = writes(vec![seg(0, 10, TCP_ACK | 0x01, 80)]);
        assert_eq!(w[0].0[..HDR], [0u8; HDR]);
        // At most 64 KiB per frame.
        let many: Vec<Packet> = (0..50).map(|i| seg(i * 1448, 1448, TCP_ACK, 80)).collect();
        assert_eq!(ranges(writes(many)), vec![0..45, 45..50]);
    }
}
