// SPDX-License-Identifier: GPL-2.0-only
//! Packets and the buffer pool they live in. Buffers are allocated in chunks
//! up front and recycled, so the per-packet path never allocates.
use crate::clock::Micros;

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
}

impl Packet {
    /// A packet of `len` bytes with no payload storage (queue unit tests).
    pub fn bare(len: u32, arrival: Micros) -> Packet {
        Packet {
            buf: Box::new([]),
            len,
            arrival,
            flow: 0,
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
mod tests {
    use super::*;

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
