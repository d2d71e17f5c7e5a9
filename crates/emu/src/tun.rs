// SPDX-License-Identifier: GPL-2.0-only
//! TUN devices: layer-3 packets, no packet-information header (IFF_NO_PI),
//! a virtio-net header in front of each packet (IFF_VNET_HDR, for GSO
//! writes, see `gso`, and with [`Tun::enable_tso`] GSO reads, see `tso`),
//! non-blocking. A device belongs to the network namespace of the thread
//! that creates it and disappears when its file descriptor is closed, so a
//! dead emulator leaves no device behind.
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use anyhow::{bail, Context, Result};

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
/// _IOW('T', 208, unsigned int): the offloads the reader of the device
/// accepts (linux/if_tun.h).
const TUNSETOFFLOAD: libc::c_ulong = 0x4004_54d0;
const TUN_F_CSUM: libc::c_uint = 0x01;
const TUN_F_TSO4: libc::c_uint = 0x02;
const TUN_F_TSO_ECN: libc::c_uint = 0x08;

#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

pub struct Tun {
    fd: OwnedFd,
    name: String,
}

impl Tun {
    /// Creates TUN device `name` in the calling thread's network namespace.
    pub fn create(name: &str) -> Result<Tun> {
        Self::open(name, true)
    }

    /// A TUN device whose frames are bare IP packets (no virtio-net header):
    /// SproutTunnel's, which never writes GSO super-packets.
    pub fn create_plain(name: &str) -> Result<Tun> {
        Self::open(name, false)
    }

    fn open(name: &str, vnet_hdr: bool) -> Result<Tun> {
        if name.len() >= libc::IFNAMSIZ {
            bail!(
                "TUN name {name} is longer than {} bytes",
                libc::IFNAMSIZ - 1
            );
        }
        let path = CString::new("/dev/net/tun").unwrap();
        // SAFETY: open(2) on a constant path; the fd is owned right away.
        let raw = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(io::Error::last_os_error())
                .context("opening /dev/net/tun (needs root and the tun driver)");
        }
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req = IfReq {
            name: [0; libc::IFNAMSIZ],
            flags: (libc::IFF_TUN | libc::IFF_NO_PI | if vnet_hdr { libc::IFF_VNET_HDR } else { 0 })
                as libc::c_short,
            _pad: [0; 22],
        };
        for (dst, src) in req.name.iter_mut().zip(name.bytes()) {
            *dst = src as libc::c_char;
        }
        // SAFETY: TUNSETIFF reads an ifreq we own.
        if unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF, &mut req) } < 0 {
            return Err(io::Error::last_os_error())
                .with_context(|| format!("creating TUN device {name}"));
        }
        Ok(Tun {
            fd,
            name: name.to_string(),
        })
    }

    /// Tells the kernel that we take TCP/IPv4 segmentation and checksum
    /// offload (TUNSETOFFLOAD with CSUM, TSO4 and TSO_ECN): the device then
    /// advertises TSO, a sender's TCP hands it super-packets of up to 64 KiB
    /// with a partial checksum and its MSS in the virtio-net header, and one
    /// `read` returns what would have been up to ~44 MTU packets, unsegmented
    /// and unchecksummed (`tso` splits them). Must come before the sockets
    /// that send through the device connect: a socket learns its route's
    /// offloads when it connects. Only for a device with a virtio-net header.
    pub fn enable_tso(&self) -> Result<()> {
        let flags = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO_ECN;
        // SAFETY: TUNSETOFFLOAD takes its argument by value.
        if unsafe { libc::ioctl(self.fd.as_raw_fd(), TUNSETOFFLOAD, flags as libc::c_ulong) } < 0 {
            return Err(io::Error::last_os_error())
                .with_context(|| format!("enabling TSO on TUN device {}", self.name));
        }
        Ok(())
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl std::os::fd::AsFd for Tun {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl Tun {
    /// Reads one frame (virtio-net header, unless plain, + packet); WouldBlock when none is waiting.
    #[inline]
    pub fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        // SAFETY: read(2) into a buffer we own, bounded by its length.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    /// Reads one frame into `first`, continuing into `rest` when it is
    /// longer: a pooled packet buffer first (an ordinary packet lands where
    /// it will live, no copy), a large buffer behind it for a GSO frame.
    #[inline]
    pub fn read2(&self, first: &mut [u8], rest: &mut [u8]) -> io::Result<usize> {
        let iov = [
            libc::iovec {
                iov_base: first.as_mut_ptr().cast(),
                iov_len: first.len(),
            },
            libc::iovec {
                iov_base: rest.as_mut_ptr().cast(),
                iov_len: rest.len(),
            },
        ];
        // SAFETY: readv(2) into two buffers we own, each bounded by its length.
        let n = unsafe { libc::readv(self.fd.as_raw_fd(), iov.as_ptr(), 2) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    /// Writes one frame given in pieces (`writev`): a merged GSO frame's
    /// head, then each segment's payload from where it lies.
    #[inline]
    pub fn writev(&self, iov: &[io::IoSlice<'_>]) -> io::Result<usize> {
        // SAFETY: IoSlice is ABI-compatible with struct iovec on Unix; the
        // slices outlive the call.
        let n = unsafe {
            libc::writev(
                self.fd.as_raw_fd(),
                iov.as_ptr().cast::<libc::iovec>(),
                iov.len() as libc::c_int,
            )
        };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }

    /// Writes one frame (the kernel receives it as if from the wire).
    #[inline]
    pub fn write(&self, pkt: &[u8]) -> io::Result<usize> {
        // SAFETY: write(2) from a slice we own.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), pkt.as_ptr().cast(), pkt.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }
}
