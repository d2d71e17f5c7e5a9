// SPDX-License-Identifier: GPL-2.0-only
//! TUN devices: layer-3 packets, no packet-information header (IFF_NO_PI),
//! a virtio-net header in front of each packet (IFF_VNET_HDR, for GSO
//! writes; see `gso`), non-blocking. A device belongs to the network namespace of the thread
//! that creates it and disappears when its file descriptor is closed, so a
//! dead emulator leaves no device behind.
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use anyhow::{bail, Context, Result};

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

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
