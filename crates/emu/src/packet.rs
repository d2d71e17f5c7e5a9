// SPDX-License-Identifier: GPL-2.0-only
//! Packets and the buffer pool they live in. Buffers are allocated in chunks
//! up front and recycled, so the per-packet path never allocates.
use crate::clock::Micros;
use logformat::MarkCause;

/// Room for one packet read from a TUN device: its virtio-net header
/// ([`HDR`] bytes), then the IP packet — the 1500-byte MTU plus slack, so a
/// packet above the MTU is still read whole, then dropped as oversize.
pub const BUF_SIZE: usize = 2048;

/// The virtio-net header in front of every packet on our TUN devices
/// (IFF_VNET_HDR): it lets one write carry several TCP segments (GSO).
pub const HDR: usize = 10;

/// A packet on its way through the emulator.
#[derive(Debug)]
pub struct Packet {
    /// `HDR` bytes of virtio-net header, then the IP packet.
    pub buf: Box<[u8]>,
    /// The IP packet's length.
    pub len: u32,
    /// When it reached the current stage (the bottleneck queue, once queued), µs.
    pub arrival: Micros,
    /// Flow id in the log (0 when logging is off).
    pub flow: u32,
    /// Whether a queue of this emulator set CE on it (counted and logged at
    /// departure; a packet that arrived already CE is not ours).
    pub marked: bool,
    /// CellReplay's light stage released it and it may leave at once when
    /// the heavy queue is empty (`cellreplay`); false under Mahimahi's model.
    pub light: bool,
    /// Whether it went through an L4S queue (DualPI2's L queue, or the
    /// L4S ramp's marking as an ECT(1) packet): logged with the departure.
    pub l4s: bool,
    /// Why the queue marked it, where the queue tells (DualPI2): logged
    /// after ` ce` as ` ce:<cause>`.
    pub mark_cause: Option<MarkCause>,
}

/// The ECN field's codepoints (RFC 3168): the low two bits of the IPv4 TOS byte.
pub mod ecn {
    pub const NOT_ECT: u8 = 0b00;
    pub const ECT1: u8 = 0b01;
    pub const ECT0: u8 = 0b10;
    pub const CE: u8 = 0b11;
}

impl Packet {
    /// A packet of `len` bytes with no payload storage (queue unit tests).
    pub fn bare(len: u32, arrival: Micros) -> Packet {
        Packet {
            buf: Box::new([]),
            len,
            arrival,
            flow: 0,
            marked: false,
            light: false,
            l4s: false,
            mark_cause: None,
        }
    }

    /// A packet around `buf` (virtio-net header, then `len` bytes of IP packet).
    pub fn new(buf: Box<[u8]>, len: u32, arrival: Micros) -> Packet {
        Packet {
            buf,
            len,
            arrival,
            flow: 0,
            marked: false,
            light: false,
            l4s: false,
            mark_cause: None,
        }
    }

    /// The IPv4 header's ECN field, or `ecn::NOT_ECT` for anything that is
    /// not a whole IPv4 header (other protocols, bare test packets).
    #[inline]
    pub fn ecn(&self) -> u8 {
        match self.buf.get(HDR..HDR + 20) {
            Some(ip) if ip[0] >> 4 == 4 && self.len >= 20 => ip[1] & 0b11,
            _ => ecn::NOT_ECT,
        }
    }

    /// What an AQM does instead of dropping (RFC 3168 §5): sets CE on an
    /// ECN-capable packet and says true; false for a Not-ECT packet, which
    /// the caller then drops. The header checksum is updated incrementally
    /// (RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), over the 16-bit word that
    /// holds the TOS byte), so no per-packet sum over the header is needed.
    #[inline]
    pub fn mark_ce(&mut self) -> bool {
        match self.ecn() {
            ecn::NOT_ECT => false,
            ecn::CE => true,
            _ => {
                let ip = &mut self.buf[HDR..HDR + 20];
                let old = u16::from_be_bytes([ip[0], ip[1]]);
                ip[1] |= ecn::CE;
                let new = u16::from_be_bytes([ip[0], ip[1]]);
                let hc = u16::from_be_bytes([ip[10], ip[11]]);
                let mut sum = u32::from(!hc) + u32::from(!old) + u32::from(new);
                sum = (sum & 0xffff) + (sum >> 16);
                sum = (sum & 0xffff) + (sum >> 16);
                ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
                self.marked = true;
                true
            }
        }
    }

    /// The IP packet.
    pub fn data(&self) -> &[u8] {
        &self.buf[HDR..HDR + self.len as usize]
    }

    /// Header and packet, as written to a TUN device.
    pub fn frame_mut(&mut self) -> &mut [u8] {
        &mut self.buf[..HDR + self.len as usize]
    }
}

/// Recycles packet buffers. Grows by `CHUNK` buffers when empty, up to
/// `max` buffers in all; beyond that it refuses (the caller drops).
pub struct Pool {
    free: Vec<Box<[u8]>>,
    allocated: usize,
    max: usize,
}

const CHUNK: usize = 1024;

impl Pool {
    pub fn new(initial: usize, max: usize) -> Pool {
        let mut p = Pool {
            free: Vec::with_capacity(max.min(1 << 20)),
            allocated: 0,
            max,
        };
        p.grow(initial);
        p
    }

    fn grow(&mut self, n: usize) {
        let n = n.min(self.max - self.allocated);
        for _ in 0..n {
            self.free.push(vec![0u8; BUF_SIZE].into_boxed_slice());
        }
        self.allocated += n;
    }

    /// A buffer, or None when `max` buffers are all in use.
    #[inline]
    pub fn get(&mut self) -> Option<Box<[u8]>> {
        if self.free.is_empty() {
            self.grow(CHUNK);
        }
        self.free.pop()
    }

    #[inline]
    pub fn put(&mut self, buf: Box<[u8]>) {
        if buf.len() == BUF_SIZE {
            self.free.push(buf);
        }
    }

    pub fn in_use(&self) -> usize {
        self.allocated - self.free.len()
    }
}

#[cfg(test)]
pub(crate) mod testpkt {
    use super::*;

    /// The IPv4 header checksum of `ip` (RFC 791), computed in full.
    pub fn ip_checksum(ip: &[u8]) -> u16 {
        let mut sum: u32 = ip
            .chunks(2)
            .enumerate()
            .filter(|(i, _)| *i != 5)
            .map(|(_, w)| u32::from(u16::from_be_bytes([w[0], w[1]])))
            .sum();
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        !(sum as u16)
    }

    /// A `len`-byte IPv4/UDP packet from `src_port` with ECN field `ecn`
    /// and a valid header checksum, queued at `arrival`.
    pub fn ipv4(len: u32, ecn: u8, src_port: u16, arrival: Micros) -> Packet {
        let mut buf = vec![0u8; BUF_SIZE].into_boxed_slice();
        let ip = &mut buf[HDR..HDR + 28];
        ip[0] = 0x45;
        ip[1] = 0xb8 | ecn; // DSCP EF, so the update must keep the DSCP bits
        ip[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        ip[8] = 64;
        ip[9] = 17;
        ip[12..16].copy_from_slice(&[100, 64, 0, 1]);
        ip[16..20].copy_from_slice(&[100, 64, 0, 2]);
        ip[20..22].copy_from_slice(&src_port.to_be_bytes());
        ip[22..24].copy_from_slice(&9u16.to_be_bytes());
        let c = ip_checksum(&ip[..20]);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        Packet::new(buf, len, arrival)
    }
}

#[cfg(test)]
mod tests {
    use super::testpkt::*;
    use super::*;

    #[test]
    fn ce_marking_keeps_the_header_checksum_valid() {
        for e in [ecn::ECT0, ecn::ECT1] {
            // Every TOS/checksum combination the carry can touch: vary the
            // identification field so the old checksum takes many values.
            for id in (0..=u16::MAX).step_by(251) {
                let mut p = ipv4(1500, e, 1, 0);
                p.buf[HDR + 4..HDR + 6].copy_from_slice(&id.to_be_bytes());
                let c = ip_checksum(&p.data()[..20]);
                p.buf[HDR + 10..HDR + 12].copy_from_slice(&c.to_be_bytes());
                assert!(p.mark_ce());
                assert_eq!(p.ecn(), ecn::CE);
                assert_eq!(p.data()[1] >> 2, 0xb8 >> 2, "DSCP kept");
                let d = p.data();
                assert_eq!(u16::from_be_bytes([d[10], d[11]]), ip_checksum(&d[..20]));
                assert!(p.marked);
            }
        }
        let mut not_ect = ipv4(1500, ecn::NOT_ECT, 1, 0);
        assert!(!not_ect.mark_ce() && !not_ect.marked);
        let mut already = ipv4(1500, ecn::CE, 1, 0);
        assert!(
            already.mark_ce() && !already.marked,
            "a CE packet is not re-marked"
        );
        assert!(
            !Packet::bare(1500, 0).mark_ce(),
            "no header: not ECN-capable"
        );
    }

    #[test]
    fn pool_recycles_and_caps() {
        let mut p = Pool::new(2, 3);
        let a = p.get().unwrap();
        let b = p.get().unwrap();
        let c = p.get().unwrap();
        assert!(p.get().is_none(), "cap of 3 buffers");
        assert_eq!(p.in_use(), 3);
        p.put(a);
        assert!(p.get().is_some());
        p.put(b);
        p.put(c);
        assert_eq!(p.in_use(), 1);
    }
}
