// SPDX-License-Identifier: GPL-2.0-only
//! The kernel side of NATCP and NACubic as seen from userspace: loading them,
//! the feedback map the server agent writes, and the per-flow state the
//! programs export (`bpf/netassist.h`, `docs/netassist.md`).
//!
//! Each of the two congestion controls is its own BPF object with its own
//! maps, pinned under `/sys/fs/bpf/c2tcp/<cc>/`: `feedback` (per UE, written
//! by the agent) and `flows` (per connection, written by the programs). The
//! agent writes every loaded one's `feedback`, so a run may use both.
use std::mem::MaybeUninit;
use std::net::Ipv4Addr;
use std::path::Path;

use anyhow::{Context, Result};
use libbpf_rs::skel::{OpenSkel, SkelBuilder};
use libbpf_rs::{MapCore, MapFlags, MapHandle};

use crate::sys;

/// The congestion controls that read NetAssist feedback.
pub const NETASSIST_CCS: &[&str] = &["natcp", "nacubic"];

/// `struct na_feedback`: one UE's latest accepted feedback.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Feedback {
    /// Bottleneck bandwidth, bytes/s of IP packets.
    pub bw_bps: u64,
    /// CLOCK_MONOTONIC µs at which the agent accepted it.
    pub updated_us: u64,
    pub min_rtt_us: u32,
    /// The UE's flow count, >= 1.
    pub beta: u32,
    pub seq: u32,
    /// The fallback timer: older feedback is ignored.
    pub timeout_us: u32,
    /// Eq. 1's alpha in percent.
    pub alpha_pct: u32,
    pub flags: u32,
}

/// `struct na_flow_state`: what a connection last did with the feedback.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FlowState {
    /// Payload bytes/s in force while assisted, 0 in the Cubic modes.
    pub pacing_rate: u64,
    pub bw_bps: u64,
    /// tcp_mstamp (CLOCK_MONOTONIC µs) of this record.
    pub changed_us: u64,
    /// 0 waiting for feedback, 1 assisted, 2 fallen back to Cubic.
    pub mode: u32,
    pub fallbacks: u32,
    pub resumes: u32,
    pub seq: u32,
    pub target_cwnd: u32,
    pub cwnd: u32,
    pub min_rtt_us: u32,
    pub beta: u32,
}

pub const MODE_WAITING: u32 = 0;
pub const MODE_ASSISTED: u32 = 1;
pub const MODE_FALLBACK: u32 = 2;

fn as_bytes<T: Copy>(v: &T) -> &[u8] {
    // SAFETY: T is a repr(C) plain-old-data struct without padding holes
    // that matter (the kernel copies the bytes as they are).
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
}

fn from_bytes<T: Copy + Default>(b: &[u8]) -> Option<T> {
    if b.len() < std::mem::size_of::<T>() {
        return None;
    }
    let mut v = T::default();
    // SAFETY: T is plain old data and b holds at least size_of::<T>() bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(
            b.as_ptr(),
            (&mut v as *mut T).cast::<u8>(),
            std::mem::size_of::<T>(),
        )
    };
    Some(v)
}

macro_rules! attach_netassist {
    ($fn_name:ident, $builder:path, $ops:ident) => {
        pub(crate) fn $fn_name(_opts: &crate::LoadOptions, dir: &Path) -> Result<()> {
            let mut storage = MaybeUninit::uninit();
            let open = <$builder>::default()
                .open(&mut storage)
                .context("opening the BPF object")?;
            let mut skel = open
                .load()
                .context("the kernel's verifier rejected the programs")?;
            skel.maps
                .na_feedback
                .pin(dir.join("feedback"))
                .context("pinning the feedback map")?;
            skel.maps
                .na_flows
                .pin(dir.join("flows"))
                .context("pinning the flow-state map")?;
            let mut ops = skel
                .maps
                .$ops
                .attach_struct_ops()
                .context("registering the congestion control")?;
            ops.pin(sys::ops_pin(dir))
                .context("pinning the struct_ops link")?;
            Ok(())
        }
    };
}

attach_netassist!(attach_natcp, crate::skel::natcp::NatcpSkelBuilder, natcp);
attach_netassist!(
    attach_nacubic,
    crate::skel::nacubic::NacubicSkelBuilder,
    nacubic
);

/// The agent's handle on the `feedback` maps of the loaded NetAssist
/// congestion controls.
pub struct FeedbackMaps {
    maps: Vec<(&'static str, MapHandle)>,
}

impl FeedbackMaps {
    /// Opens the maps of those of `ccs` that are loaded now.
    pub fn open(ccs: &[&'static str]) -> FeedbackMaps {
        let mut m = FeedbackMaps { maps: Vec::new() };
        m.refresh(ccs);
        m
    }

    /// Opens the maps of congestion controls loaded since (cheap when all
    /// are open already).
    pub fn refresh(&mut self, ccs: &[&'static str]) {
        for cc in ccs {
            if self.maps.iter().any(|(n, _)| n == cc) {
                continue;
            }
            if let Ok(h) = MapHandle::from_pinned_path(sys::pin_dir(cc).join("feedback")) {
                self.maps.push((cc, h));
            }
        }
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.maps.iter().map(|(n, _)| *n).collect()
    }

    /// Writes `fb` as the feedback of `ue` into every open map.
    pub fn write(&self, ue: Ipv4Addr, fb: &Feedback) -> Result<()> {
        for (cc, map) in &self.maps {
            map.update(&ue.octets(), as_bytes(fb), MapFlags::ANY)
                .with_context(|| format!("writing {ue}'s feedback into {cc}'s map"))?;
        }
        Ok(())
    }

    /// Removes `ue`'s entry (the run is over).
    pub fn remove(&self, ue: Ipv4Addr) {
        for (_, map) in &self.maps {
            let _ = map.delete(&ue.octets());
        }
    }

    /// `ue`'s entry in `cc`'s map, if any (tests).
    pub fn read(&self, cc: &str, ue: Ipv4Addr) -> Option<Feedback> {
        let (_, map) = self.maps.iter().find(|(n, _)| *n == cc)?;
        let v = map.lookup(&ue.octets(), MapFlags::ANY).ok()??;
        from_bytes(&v)
    }
}

/// What connection `ue:port` using `cc` last exported, if anything.
pub fn flow_state(cc: &str, ue: Ipv4Addr, port: u16) -> Option<FlowState> {
    let map = MapHandle::from_pinned_path(sys::pin_dir(cc).join("flows")).ok()?;
    flow_state_in(&map, ue, port)
}

/// The same, on a map opened once (a sampler that reads it often).
pub fn flow_state_in(map: &MapHandle, ue: Ipv4Addr, port: u16) -> Option<FlowState> {
    let mut key = [0u8; 8];
    key[..4].copy_from_slice(&ue.octets());
    key[4..6].copy_from_slice(&port.to_be_bytes());
    let v = map.lookup(&key, MapFlags::ANY).ok()??;
    from_bytes(&v)
}

/// Opens `cc`'s pinned flow-state map.
pub fn flows_map(cc: &str) -> Result<MapHandle> {
    let path = sys::pin_dir(cc).join("flows");
    MapHandle::from_pinned_path(&path)
        .with_context(|| format!("opening {} (is {cc} loaded?)", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_bpf_structs() {
        // struct na_feedback and struct na_flow_state in bpf/netassist.h.
        assert_eq!(std::mem::size_of::<Feedback>(), 40);
        assert_eq!(std::mem::size_of::<FlowState>(), 56);
        let fb = Feedback {
            bw_bps: 1,
            updated_us: 2,
            min_rtt_us: 3,
            beta: 4,
            seq: 5,
            timeout_us: 6,
            alpha_pct: 7,
            flags: 8,
        };
        assert_eq!(from_bytes::<Feedback>(as_bytes(&fb)), Some(fb));
        assert_eq!(from_bytes::<Feedback>(&[0u8; 39]), None);
    }
}

#[cfg(test)]
mod verifier {
    use super::*;

    /// Loading the objects runs the verifier over every program; nothing is
    /// registered (that needs the struct_ops link), so no lock is needed.
    #[test]
    fn natcp_and_nacubic_pass_the_verifier() {
        if !crate::sys::is_root() {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true requires root"
            );
            eprintln!("skipped: needs root to load BPF programs");
            return;
        }
        let mut s1 = MaybeUninit::uninit();
        crate::skel::natcp::NatcpSkelBuilder::default()
            .open(&mut s1)
            .unwrap()
            .load()
            .expect("natcp verifies");
        let mut s2 = MaybeUninit::uninit();
        crate::skel::nacubic::NacubicSkelBuilder::default()
            .open(&mut s2)
            .unwrap()
            .load()
            .expect("nacubic verifies");
    }
}
