// SPDX-License-Identifier: GPL-2.0-only
//! Reading TSO super-packets from a TUN device and splitting them into the
//! MTU packets a wire would carry.
//!
//! With offloads enabled (`Tun::enable_tso`) a sender's TCP hands the
//! device one unsegmented packet of up to 64 KiB (its IP and TCP headers,
//! then up to ~44 MSS of payload) with the MSS in the virtio-net header and
//! only the pseudo-header sum in the TCP checksum field. One `read` then
//! brings what took ~44 reads of 1500 bytes, and the sender skips software
//! segmentation and checksumming. The link must still see MTU packets — its
//! queue, drops, marks, opportunities and log lines are per packet, as in
//! Mahimahi — so each super-packet is split here into exactly the segments
//! the kernel's own software GSO (`tcp_gso_segment`) would have produced:
//! payload cut at the MSS, IPv4 total length, an identification that counts
//! up from the first segment's, the header checksum, sequence numbers, CWR
//! kept on the first segment only, FIN and PSH on the last only. The TCP
//! checksum stays partial (pseudo-header sum over the segment's length) and
//! the segment's virtio-net header says so (NEEDS_CSUM), so whoever receives
//! it from our write treats it as a locally sent packet whose checksum the
//! "hardware" completed. Nothing here allocates.
use crate::gso::{fold, sum16};
use crate::packet::HDR;

/// How many bytes a read may need: the virtio-net header and the largest
/// IPv4 packet.
pub const MAX_FRAME: usize = HDR + 65_535;

/// virtio_net_hdr.flags: the checksum at csum_start + csum_offset is partial.
pub(crate) const F_NEEDS_CSUM: u8 = 1;
/// virtio_net_hdr.gso_type values.
pub const GSO_NONE: u8 = 0;
pub const GSO_TCPV4: u8 = 1;
/// Set with a GSO type when the first segment carries CWR.
const GSO_ECN: u8 = 0x80;

const TCP_FIN: u8 = 0x01;
const TCP_PSH: u8 = 0x08;
const TCP_CWR: u8 = 0x80;

/// What a frame (virtio-net header + packet) read from the device holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// One packet, as it will go on the link.
    Plain,
    /// A TCP/IPv4 super-packet to split.
    Tcp(Split),
    /// A GSO frame we did not ask for or cannot parse (counted as oversize).
    Unsupported,
}

/// How one TCP super-packet splits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// IPv4 header length.
    ihl: usize,
    /// IPv4 + TCP header length (the headers every segment repeats).
    hl: usize,
    /// Payload bytes per segment (the virtio-net header's gso_size).
    mss: usize,
    /// Payload bytes in all.
    payload: usize,
    /// Segments.
    pub count: usize,
}

impl Split {
    /// Segment `i`'s IP packet length.
    #[inline]
    pub fn len(&self, i: usize) -> usize {
        self.hl + self.mss.min(self.payload - i * self.mss)
    }

    /// The headers every segment starts from (for a drop record when a
    /// segment cannot be built).
    pub fn headers<'a>(&self, frame: &'a [u8]) -> &'a [u8] {
        &frame[HDR..HDR + self.hl]
    }
}

/// Reads a frame's virtio-net header and, for a TCP/IPv4 super-packet, the
/// header lengths that decide its split. The header's own hdr_len is not
/// trusted: a tun device reports the skb's linear length there.
pub fn classify(frame: &[u8]) -> Frame {
    if frame.len() < HDR || frame[1] == GSO_NONE {
        return Frame::Plain;
    }
    if frame[1] & !GSO_ECN != GSO_TCPV4 {
        return Frame::Unsupported;
    }
    let ip = &frame[HDR..];
    if ip.len() < 40 || ip[0] >> 4 != 4 || ip[9] != 6 {
        return Frame::Unsupported;
    }
    let ihl = (ip[0] & 0x0f) as usize * 4;
    if ihl < 20 || ip.len() < ihl + 20 {
        return Frame::Unsupported;
    }
    let hl = ihl + (ip[ihl + 12] >> 4) as usize * 4;
    let mss = u16::from_ne_bytes([frame[4], frame[5]]) as usize;
    if hl < ihl + 20 || ip.len() <= hl || mss == 0 {
        return Frame::Unsupported;
    }
    let payload = ip.len() - hl;
    Frame::Tcp(Split {
        ihl,
        hl,
        mss,
        payload,
        count: payload.div_ceil(mss),
    })
}

/// Writes segment `i` of super-packet `frame` (virtio-net header + packet)
/// into `out` as a frame of its own: its virtio-net header, then the IP
/// packet of `split.len(i)` bytes. `out` must hold `HDR + split.len(i)`.
#[inline]
pub fn segment(frame: &[u8], split: &Split, i: usize, out: &mut [u8]) {
    let Split { ihl, hl, mss, .. } = *split;
    let len = split.len(i);
    let data = hl + i * mss;
    let ip_in = &frame[HDR..];
    // virtio-net header: no GSO, checksum partial at the TCP checksum field.
    out[..HDR].fill(0);
    out[0] = F_NEEDS_CSUM;
    out[6..8].copy_from_slice(&(ihl as u16).to_ne_bytes());
    out[8..10].copy_from_slice(&16u16.to_ne_bytes());
    let ip = &mut out[HDR..HDR + len];
    ip[..hl].copy_from_slice(&ip_in[..hl]);
    ip[hl..].copy_from_slice(&ip_in[data..data + len - hl]);
    // IPv4: total length, identification (+i, as software GSO counts), checksum.
    ip[2..4].copy_from_slice(&(len as u16).to_be_bytes());
    let id = u16::from_be_bytes([ip[4], ip[5]]).wrapping_add(i as u16);
    ip[4..6].copy_from_slice(&id.to_be_bytes());
    ip[10..12].fill(0);
    let c = !fold(sum16(&ip[..ihl]));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    // TCP: sequence number, flags, partial checksum.
    let tcp = &mut ip[ihl..];
    let seq = u32::from_be_bytes([tcp[4], tcp[5], tcp[6], tcp[7]]).wrapping_add((i * mss) as u32);
    tcp[4..8].copy_from_slice(&seq.to_be_bytes());
    if i > 0 {
        tcp[13] &= !TCP_CWR;
    }
    if i + 1 < split.count {
        tcp[13] &= !(TCP_FIN | TCP_PSH);
    }
    let pseudo = fold(sum16(&ip[12..20]) + 6 + (len - ihl) as u32);
    ip[ihl + 16..ihl + 18].copy_from_slice(&pseudo.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TSO frame as a tun device hands it over: `payload` bytes from `seq`,
    /// TCP timestamps, flags `flags`, the MSS in the virtio-net header.
    fn super_packet(seq: u32, payload: usize, mss: u16, flags: u8) -> Vec<u8> {
        let (ihl, thl) = (20, 32);
        let len = ihl + thl + payload;
        let mut f = vec![0u8; HDR + len];
        f[0] = F_NEEDS_CSUM;
        f[1] = GSO_TCPV4;
        f[2..4].copy_from_slice(&((ihl + thl) as u16).to_ne_bytes());
        f[4..6].copy_from_slice(&mss.to_ne_bytes());
        f[6..8].copy_from_slice(&20u16.to_ne_bytes());
        f[8..10].copy_from_slice(&16u16.to_ne_bytes());
        let p = &mut f[HDR..];
        p[0] = 0x45;
        p[1] = 0x02; // ECT(0)
        p[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        p[4..6].copy_from_slice(&0xfffeu16.to_be_bytes()); // wraps
        p[6] = 0x40; // DF
        p[8] = 64;
        p[9] = 6;
        p[12..16].copy_from_slice(&[100, 96, 0, 1]);
        p[16..20].copy_from_slice(&[100, 96, 0, 2]);
        p[20..22].copy_from_slice(&5201u16.to_be_bytes());
        p[22..24].copy_from_slice(&40000u16.to_be_bytes());
        p[24..28].copy_from_slice(&seq.to_be_bytes());
        p[28..32].copy_from_slice(&777u32.to_be_bytes());
        p[32] = (thl as u8 / 4) << 4;
        p[33] = flags;
        p[34..36].copy_from_slice(&500u16.to_be_bytes());
        p[40..52].copy_from_slice(&[1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 3]);
        for (i, b) in p[52..].iter_mut().enumerate() {
            *b = (i % 251) as u8;
        }
        f
    }

    fn split(frame: &[u8]) -> Vec<Vec<u8>> {
        let Frame::Tcp(s) = classify(frame) else {
            panic!("not a TCP super-packet")
        };
        (0..s.count)
            .map(|i| {
                let mut out = vec![0xaau8; crate::packet::BUF_SIZE];
                segment(frame, &s, i, &mut out);
                out.truncate(HDR + s.len(i));
                out
            })
            .collect()
    }

    /// Completes the partial checksum as a NIC (or the receiving kernel)
    /// would — the one's-complement sum from csum_start on, stored at
    /// csum_offset — and checks it against the checksum computed from
    /// scratch over the pseudo-header, header and payload.
    fn tcp_checksum_ok(ip: &[u8]) -> bool {
        let ihl = (ip[0] & 0x0f) as usize * 4;
        let completed = !fold(sum16(&ip[ihl..]));
        let mut t = ip[ihl..].to_vec();
        t[16..18].fill(0);
        let scratch = !fold(sum16(&ip[12..20]) + 6 + t.len() as u32 + sum16(&t));
        completed == scratch
    }

    #[test]
    fn splits_as_software_gso_would() {
        let payload = 1448 * 3 + 100;
        let f = super_packet(
            4_294_967_000,
            payload,
            1448,
            0x10 | TCP_PSH | TCP_FIN | TCP_CWR,
        );
        let segs = split(&f);
        assert_eq!(segs.len(), 4);
        let mut data = Vec::new();
        for (i, s) in segs.iter().enumerate() {
            let (vh, ip) = s.split_at(HDR);
            assert_eq!(vh[0], F_NEEDS_CSUM, "checksum left partial");
            assert_eq!(vh[1], GSO_NONE);
            assert_eq!(u16::from_ne_bytes([vh[6], vh[7]]), 20);
            assert_eq!(u16::from_ne_bytes([vh[8], vh[9]]), 16);
            let want_len = 52 + if i < 3 { 1448 } else { 100 };
            assert_eq!(ip.len(), want_len);
            assert_eq!(u16::from_be_bytes([ip[2], ip[3]]) as usize, want_len);
            assert_eq!(
                u16::from_be_bytes([ip[4], ip[5]]),
                0xfffeu16.wrapping_add(i as u16)
            );
            assert_eq!(fold(sum16(&ip[..20])), 0xffff, "valid IP header checksum");
            assert_eq!(ip[1], 0x02, "TOS kept");
            let seq = u32::from_be_bytes([ip[24], ip[25], ip[26], ip[27]]);
            assert_eq!(seq, 4_294_967_000u32.wrapping_add(1448 * i as u32));
            let flags = ip[33];
            assert_eq!(flags & TCP_CWR != 0, i == 0, "CWR on the first only");
            assert_eq!(
                flags & (TCP_PSH | TCP_FIN) != 0,
                i == 3,
                "PSH/FIN on the last only"
            );
            assert_eq!(flags & 0x10, 0x10);
            assert_eq!(ip[40..52], f[HDR + 40..HDR + 52], "options repeated");
            // The partial checksum is the pseudo-header sum over this segment's length.
            let pseudo = fold(sum16(&ip[12..20]) + 6 + (want_len - 20) as u32);
            assert_eq!(u16::from_be_bytes([ip[36], ip[37]]), pseudo);
            assert!(tcp_checksum_ok(ip));
            data.extend_from_slice(&ip[52..]);
        }
        assert_eq!(data, f[HDR + 52..], "payload in order, nothing lost");
    }

    #[test]
    fn plain_and_unsupported_frames() {
        let mut f = super_packet(0, 1000, 1448, 0x10);
        f[1] = GSO_NONE;
        assert_eq!(classify(&f), Frame::Plain);
        f[1] = 3; // UDP (never negotiated)
        assert_eq!(classify(&f), Frame::Unsupported);
        f[1] = GSO_TCPV4 | GSO_ECN;
        assert!(matches!(classify(&f), Frame::Tcp(s) if s.count == 1));
        f[4..6].fill(0); // no MSS
        assert_eq!(classify(&f), Frame::Unsupported);
        assert_eq!(classify(&f[..HDR + 30]), Frame::Unsupported);
    }

    #[test]
    fn exact_multiple_of_the_mss() {
        let segs = split(&super_packet(7, 1448 * 2, 1448, 0x10 | TCP_PSH));
        assert_eq!(segs.len(), 2);
        assert!(segs.iter().all(|s| s.len() == HDR + 1500));
        assert_eq!(segs[0][HDR + 33] & TCP_PSH, 0);
        assert_eq!(segs[1][HDR + 33] & TCP_PSH, TCP_PSH);
    }
}
