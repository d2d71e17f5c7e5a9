// SPDX-License-Identifier: GPL-2.0-only
//! Rust mirror of `include/c2tcp.h`, plus the few standard TCP socket options
//! the project's senders and tests use (congestion control, TCP_INFO).
//!
//! The header owns the ABI; `tests/header.rs` compiles it with `cc` and fails
//! when a constant, a size or a field offset here disagrees with it.
use std::io;
use std::mem::size_of;
use std::os::fd::{AsRawFd, RawFd};

use serde::Serialize;

pub mod variant;
pub use variant::Variant;

pub const SOL_C2TCP: libc::c_int = 0xC2C2;
pub const C2TCP_TARGET: libc::c_int = 1;
pub const C2TCP_ALPHA: libc::c_int = 2;
pub const C2TCP_INFO: libc::c_int = 3;
pub const C2TCP_VARIANT: libc::c_int = 4;
pub const C2TCP_TARGET_MIN_US: u32 = 1_000;
pub const C2TCP_TARGET_MAX_US: u32 = 10_000_000;
pub const C2TCP_ALPHA_MIN_PCT: u32 = 100;
pub const C2TCP_ALPHA_MAX_PCT: u32 = 1_000;
/// The Target's range in milliseconds, as flags and scenario knobs give it:
/// the header's bounds, converted here once.
pub const C2TCP_TARGET_MIN_MS: f64 = C2TCP_TARGET_MIN_US as f64 / 1000.0;
pub const C2TCP_TARGET_MAX_MS: f64 = C2TCP_TARGET_MAX_US as f64 / 1000.0;
/// α's range as a number (Setpoint = α × minRTT), from the header's percent.
pub const C2TCP_ALPHA_MIN: f64 = C2TCP_ALPHA_MIN_PCT as f64 / 100.0;
pub const C2TCP_ALPHA_MAX: f64 = C2TCP_ALPHA_MAX_PCT as f64 / 100.0;

/// A Target given in milliseconds as the socket option takes it (µs,
/// rounded): the one ms → µs conversion, refusing what is out of range.
pub fn target_us_from_ms(ms: f64) -> Result<u32, String> {
    let us = (ms * 1000.0).round();
    if !(C2TCP_TARGET_MIN_US as f64..=C2TCP_TARGET_MAX_US as f64).contains(&us) {
        return Err(format!(
            "a Target of {ms} ms is out of range: it must be between {C2TCP_TARGET_MIN_MS} and {C2TCP_TARGET_MAX_MS} ms"
        ));
    }
    Ok(us as u32)
}

/// α given as a number (Setpoint = α × minRTT) as the socket option takes
/// it (percent, rounded): the one conversion, refusing what is out of range.
pub fn alpha_pct_from(alpha: f64) -> Result<u32, String> {
    let pct = (alpha * 100.0).round();
    if !(C2TCP_ALPHA_MIN_PCT as f64..=C2TCP_ALPHA_MAX_PCT as f64).contains(&pct) {
        return Err(format!(
            "an alpha of {alpha} is out of range: it must be between {C2TCP_ALPHA_MIN} and {C2TCP_ALPHA_MAX}"
        ));
    }
    Ok(pct as u32)
}

pub const C2TCP_INFO_VERSION: u32 = 3;
pub const C2TCP_INFO_V1_SIZE: usize = 40;
pub const C2TCP_INFO_V2_SIZE: usize = 52;
pub const C2TCP_INFO_V3_SIZE: usize = 60;

/// `struct c2tcp_info` (version 3; an older kernel leaves the tail zero).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct C2tcpInfo {
    pub version: u32,
    pub target_us: u32,
    pub alpha_pct: u32,
    pub min_rtt_us: u32,
    pub setpoint_us: u32,
    pub interval_us: u32,
    pub last_avg_rtt_us: u32,
    pub condition: u32,
    pub bad_events: u32,
    pub tune_cycles: u32,
    // version 2
    /// The socket's C2TCP_VARIANT with the base resolved (1 jsac, 2 paper, 3 drain).
    pub variant: u32,
    /// The C2TCP_B_* behaviours in force.
    pub behaviours: u32,
    /// RTT samples the blind window discarded.
    pub skipped_samples: u32,
    // version 3
    /// Packets delivered per min RTT in the last window (C2TCP_B_BDP_FLOOR's
    /// measure; 0 without it).
    pub bdp_pkts: u32,
    /// 1 while C2TCP holds the kernel's pacing on (C2TCP_B_PACING).
    pub paced: u32,
}

const _: () = assert!(size_of::<C2tcpInfo>() == C2TCP_INFO_V3_SIZE);

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// setsockopt with raw bytes (tests use it to send malformed values).
pub fn set_raw(fd: RawFd, level: libc::c_int, name: libc::c_int, value: &[u8]) -> io::Result<()> {
    // SAFETY: value outlives the call; the kernel copies it.
    check(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            value.as_ptr().cast(),
            value.len() as libc::socklen_t,
        )
    })
}

/// getsockopt into a buffer; returns the length the kernel wrote.
pub fn get_raw(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    buf: &mut [u8],
) -> io::Result<usize> {
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: buf is valid for len bytes.
    check(unsafe { libc::getsockopt(fd, level, name, buf.as_mut_ptr().cast(), &mut len) })?;
    Ok(len as usize)
}

/// Selects the congestion control of a TCP socket by name.
pub fn set_congestion(fd: &impl AsRawFd, name: &str) -> io::Result<()> {
    set_raw(
        fd.as_raw_fd(),
        libc::IPPROTO_TCP,
        libc::TCP_CONGESTION,
        name.as_bytes(),
    )
}

pub fn congestion(fd: &impl AsRawFd) -> io::Result<String> {
    let mut buf = [0u8; 16];
    let n = get_raw(
        fd.as_raw_fd(),
        libc::IPPROTO_TCP,
        libc::TCP_CONGESTION,
        &mut buf,
    )?;
    Ok(String::from_utf8_lossy(&buf[..n])
        .trim_end_matches('\0')
        .to_string())
}

/// C2TCP's Target in microseconds (1 000 - 10 000 000).
pub fn set_target_us(fd: &impl AsRawFd, target_us: u32) -> io::Result<()> {
    set_raw(
        fd.as_raw_fd(),
        SOL_C2TCP,
        C2TCP_TARGET,
        &target_us.to_ne_bytes(),
    )
}

pub fn target_us(fd: &impl AsRawFd) -> io::Result<u32> {
    let mut buf = [0u8; 4];
    get_raw(fd.as_raw_fd(), SOL_C2TCP, C2TCP_TARGET, &mut buf)?;
    Ok(u32::from_ne_bytes(buf))
}

/// Pins alpha (percent, 100 - 1000), or hands it back to the Tuner with 0.
pub fn set_alpha_pct(fd: &impl AsRawFd, alpha_pct: u32) -> io::Result<()> {
    set_raw(
        fd.as_raw_fd(),
        SOL_C2TCP,
        C2TCP_ALPHA,
        &alpha_pct.to_ne_bytes(),
    )
}

/// Chooses the C2TCP variant of this socket (see [`variant`]).
pub fn set_variant(fd: &impl AsRawFd, v: Variant) -> io::Result<()> {
    set_raw(
        fd.as_raw_fd(),
        SOL_C2TCP,
        C2TCP_VARIANT,
        &v.to_raw().to_ne_bytes(),
    )
}

/// The socket's C2TCP_VARIANT as set (base Default when never set).
pub fn variant(fd: &impl AsRawFd) -> io::Result<Variant> {
    let mut buf = [0u8; 4];
    get_raw(fd.as_raw_fd(), SOL_C2TCP, C2TCP_VARIANT, &mut buf)?;
    Variant::from_raw(u32::from_ne_bytes(buf))
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "unknown C2TCP_VARIANT value"))
}

pub fn c2tcp_info(fd: &impl AsRawFd) -> io::Result<C2tcpInfo> {
    let mut info = C2tcpInfo::default();
    // SAFETY: C2tcpInfo is repr(C) plain u32s; any byte pattern is valid.
    let buf = unsafe {
        std::slice::from_raw_parts_mut(
            (&mut info as *mut C2tcpInfo).cast::<u8>(),
            size_of::<C2tcpInfo>(),
        )
    };
    get_raw(fd.as_raw_fd(), SOL_C2TCP, C2TCP_INFO, buf)?;
    Ok(info)
}

/// `struct tcp_info` from include/uapi/linux/tcp.h, up to the AccECN
/// counters (libc's copy stops at `tcpi_total_retrans`). The kernel fills
/// what it has and reports the length; older kernels leave the tail zero
/// (`rcv_wnd` and `rehash` need Linux 6.2, the `total_rto*` fields 6.7, the
/// ECN counters 6.18).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    pub options: u8,
    pub wscale: u8,
    pub flags: u8,
    pub rto: u32,
    pub ato: u32,
    pub snd_mss: u32,
    pub rcv_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub fackets: u32,
    pub last_data_sent: u32,
    pub last_ack_sent: u32,
    pub last_data_recv: u32,
    pub last_ack_recv: u32,
    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    pub rtt: u32,
    pub rttvar: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,
    pub rcv_rtt: u32,
    pub rcv_space: u32,
    pub total_retrans: u32,
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub notsent_bytes: u32,
    pub min_rtt: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
    pub delivery_rate: u64,
    pub busy_time: u64,
    pub rwnd_limited: u64,
    pub sndbuf_limited: u64,
    pub delivered: u32,
    pub delivered_ce: u32,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    pub rcv_ooopack: u32,
    pub snd_wnd: u32,
    /// The window this end advertised last (bytes, after scaling).
    pub rcv_wnd: u32,
    pub rehash: u32,
    pub total_rto: u16,
    pub total_rto_recoveries: u16,
    pub total_rto_time: u32,
    /// CE-marked packets this end received (6.18).
    pub received_ce: u32,
    /// The bytes the peer reported received as ECT(1), ECT(0) and CE, from
    /// the AccECN option (6.18): they advance only on a connection that
    /// negotiated AccECN (zero under classic ECN).
    pub delivered_e1_bytes: u32,
    pub delivered_e0_bytes: u32,
    pub delivered_ce_bytes: u32,
    pub received_e1_bytes: u32,
    pub received_e0_bytes: u32,
    pub received_ce_bytes: u32,
    /// AccECN's failure mode and option state: two `u16` in 6.18, bit
    /// fields (with the ECN mode) later; kept raw, not read.
    pub accecn_word: u32,
}

const _: () = assert!(size_of::<TcpInfo>() == 280);

impl TcpInfo {
    /// Whether the connection's ECN feedback is Accurate ECN, as far as
    /// the sender can tell: the AccECN option's byte counters advanced
    /// (they stay zero under classic ECN, and before 6.18).
    pub fn accecn_seen(&self) -> bool {
        self.delivered_e1_bytes != 0 || self.delivered_e0_bytes != 0 || self.delivered_ce_bytes != 0
    }
}

pub fn tcp_info(fd: &impl AsRawFd) -> io::Result<TcpInfo> {
    let mut info = TcpInfo::default();
    // SAFETY: TcpInfo is repr(C) plain integers; any byte pattern is valid.
    let buf = unsafe {
        std::slice::from_raw_parts_mut(
            (&mut info as *mut TcpInfo).cast::<u8>(),
            size_of::<TcpInfo>(),
        )
    };
    get_raw(fd.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_INFO, buf)?;
    Ok(info)
}

/// TCP_WINDOW_CLAMP: the most this socket will advertise as its receive
/// window (bytes). Linux raises values below SOCK_MIN_RCVBUF/2 to that, and
/// its own receive-buffer autotuning may overwrite the clamp later.
pub fn set_window_clamp(fd: &impl AsRawFd, bytes: u32) -> io::Result<()> {
    let v =
        libc::c_int::try_from(bytes).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    set_raw(
        fd.as_raw_fd(),
        libc::IPPROTO_TCP,
        libc::TCP_WINDOW_CLAMP,
        &v.to_ne_bytes(),
    )
}

pub fn window_clamp(fd: &impl AsRawFd) -> io::Result<u32> {
    let mut buf = [0u8; 4];
    get_raw(
        fd.as_raw_fd(),
        libc::IPPROTO_TCP,
        libc::TCP_WINDOW_CLAMP,
        &mut buf,
    )?;
    Ok(libc::c_int::from_ne_bytes(buf).max(0) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn the_unit_conversions_round_and_keep_the_headers_ranges() {
        assert_eq!(target_us_from_ms(50.0), Ok(50_000));
        assert_eq!(
            target_us_from_ms(C2TCP_TARGET_MIN_MS),
            Ok(C2TCP_TARGET_MIN_US)
        );
        assert!(target_us_from_ms(0.5).is_err());
        assert_eq!(alpha_pct_from(1.5), Ok(150));
        assert_eq!(alpha_pct_from(C2TCP_ALPHA_MAX), Ok(C2TCP_ALPHA_MAX_PCT));
        assert!(alpha_pct_from(0.5)
            .unwrap_err()
            .contains("between 1 and 10"));
    }

    #[test]
    fn window_clamp_round_trips_and_tcp_info_reports_the_advertised_window() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut tx = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut rx, _) = l.accept().unwrap();
        set_window_clamp(&rx, 20_000).unwrap();
        assert_eq!(window_clamp(&rx).unwrap(), 20_000);
        // A clamp of 0 on a connected socket is refused by the kernel.
        assert!(set_window_clamp(&rx, 0).is_err());
        tx.write_all(&[7u8; 5000]).unwrap();
        let mut buf = [0u8; 5000];
        rx.read_exact(&mut buf).unwrap();
        let ti = tcp_info(&rx).unwrap();
        assert_eq!(ti.bytes_received, 5000);
        // Not yet <= the clamp: Linux never pulls back a window edge it has
        // advertised, so the clamp shows only as the edge stops advancing.
        assert!(ti.rcv_wnd > 0, "rcv_wnd {}", ti.rcv_wnd);
    }
}
