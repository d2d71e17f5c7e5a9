// SPDX-License-Identifier: GPL-2.0-only
//! The kernel side of NATCP, NACubic and TG as seen from userspace: their
//! maps pinned at load, the feedback map the server agent writes, and the
//! per-flow state the programs export (`bpf/netassist.h`, `docs/netassist.md`).
//!
//! Each of the three congestion controls is its own BPF object with its own
//! maps, pinned under `/sys/fs/bpf/c2tcp/<cc>/`: `feedback` (per UE, written
//! by the agent) and `flows` (per connection, written by the programs). The
//! agent writes every loaded one's `feedback`, so a run may use both. Their
//! objects are loaded like every other (`cc.rs`, `kernel_form.rs`: the
//! `<cc>_pre610` struct_ops before 6.10).
use std::net::Ipv4Addr;
use std::path::Path;

use anyhow::{Context, Result};
use libbpf_rs::{MapCore, MapFlags, MapHandle, Object};

use crate::sys;

/// The congestion controls that read NetAssist feedback.
pub const NETASSIST_CCS: &[&str] = &["natcp", "nacubic", "tg"];

// The map types are the skeleton's: libbpf-cargo generates them from the
// objects' BTF, so they are `bpf/netassist.h`'s structs as the compiler laid
// them out, with no second spelling here. NATCP's, NACubic's and TG's objects
// include the same header (a test checks the sizes agree).
use crate::map_bytes::{map_bytes, MapBytes};
use crate::skel::natcp::types::{na_feedback, na_flow_key, na_flow_state};

/// `struct na_feedback`: one UE's latest accepted feedback (bandwidth in
/// bytes/s of IP packets, CLOCK_MONOTONIC µs of its acceptance, min RTT,
/// the UE's flow count `beta` >= 1, NetAssist's sequence number, the
/// fallback timer, eq. 1's alpha in percent, flags).
pub type Feedback = na_feedback;

/// `struct na_flow_state`: what a connection last did with the feedback
/// (`mode`: one of the `MODE_*`; `pacing_rate` 0 in the Cubic modes).
pub type FlowState = na_flow_state;

/// `na_feedback.flags` bits (`NA_FB_*` of bpf/netassist_logic.h): the
/// bandwidth was carried over an empty period; NATCP's window is eq. 1
/// alone, without the headroom of the authors' BBR-based implementation;
/// NATCP's assumed delay cap (eq. 1 alone while the RTT is above NetAssist's
/// minimum RTT, the target delay the authors' server gave their BBR).
pub const FLAG_CARRIED: u32 = 1;
pub const FLAG_EQ1_WINDOW: u32 = 2;
pub const FLAG_MAX_DELAY: u32 = 4;

pub const MODE_WAITING: u32 = 0;
pub const MODE_ASSISTED: u32 = 1;
pub const MODE_FALLBACK: u32 = 2;

// Every field of each map struct, in order (the test checks they cover all its bytes).
map_bytes!(na_feedback {
    bw_Bps,
    updated_us,
    min_rtt_us,
    beta,
    seq,
    timeout_us,
    alpha_pct,
    flags
});
map_bytes!(na_flow_state {
    pacing_rate,
    bw_Bps,
    changed_us,
    mode,
    fallbacks,
    resumes,
    seq,
    target_cwnd,
    cwnd,
    min_rtt_us,
    beta,
});
map_bytes!(na_flow_key { daddr, dport, pad });

/// The pins of a NetAssist object's maps in its directory: the feedback
/// the agent writes (`na_feedback`), the flow state the programs export
/// (`na_flows`).
const FEEDBACK_PIN: &str = "feedback";
const FLOWS_PIN: &str = "flows";

/// Pins a loaded NetAssist object's maps into its directory.
pub(crate) fn pin_maps(obj: &mut Object, dir: &Path) -> Result<()> {
    for (map, pin) in [("na_feedback", FEEDBACK_PIN), ("na_flows", FLOWS_PIN)] {
        obj.maps_mut()
            .find(|m| m.name() == map)
            .with_context(|| format!("the object has no map {map}"))?
            .pin(dir.join(pin))
            .with_context(|| format!("pinning the {map} map"))?;
    }
    Ok(())
}

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
            if let Ok(h) = MapHandle::from_pinned_path(sys::pin_dir(cc).join(FEEDBACK_PIN)) {
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
            map.update(&ue.octets(), &fb.to_bytes(), MapFlags::ANY)
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
        Feedback::from_bytes(&v)
    }
}

/// What connection `ue:port` using `cc` last exported, if anything.
pub fn flow_state(cc: &str, ue: Ipv4Addr, port: u16) -> Option<FlowState> {
    let map = MapHandle::from_pinned_path(sys::pin_dir(cc).join(FLOWS_PIN)).ok()?;
    flow_state_in(&map, ue, port)
}

/// The same, on a map opened once (a sampler that reads it often).
pub fn flow_state_in(map: &MapHandle, ue: Ipv4Addr, port: u16) -> Option<FlowState> {
    // Both in network order, as the kernel's skc_daddr and skc_dport.
    let key = na_flow_key {
        daddr: u32::from_ne_bytes(ue.octets()),
        dport: u16::from_ne_bytes(port.to_be_bytes()),
        pad: 0,
    };
    let v = map.lookup(&key.to_bytes(), MapFlags::ANY).ok()??;
    FlowState::from_bytes(&v)
}

/// Opens `cc`'s pinned flow-state map.
pub fn flows_map(cc: &str) -> Result<MapHandle> {
    let path = sys::pin_dir(cc).join(FLOWS_PIN);
    MapHandle::from_pinned_path(&path)
        .with_context(|| format!("opening {} (is {cc} loaded?)", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte of each struct is one of the fields the codec lists, at
    /// the BTF's sizes (bpf/netassist.h), and a value survives the trip.
    #[test]
    fn map_structs_are_the_bpf_ones_and_round_trip() {
        use crate::skel::nacubic::types as nacubic;
        use crate::skel::tg::types as tg;
        use std::mem::size_of;
        assert_eq!((size_of::<Feedback>(), Feedback::listed_bytes()), (40, 40));
        assert_eq!(
            (size_of::<FlowState>(), FlowState::listed_bytes()),
            (56, 56)
        );
        assert_eq!(
            (size_of::<na_flow_key>(), na_flow_key::listed_bytes()),
            (8, 8)
        );
        assert_eq!(size_of::<nacubic::na_feedback>(), size_of::<Feedback>());
        assert_eq!(size_of::<nacubic::na_flow_state>(), size_of::<FlowState>());
        assert_eq!(size_of::<tg::na_feedback>(), size_of::<Feedback>());
        assert_eq!(size_of::<tg::na_flow_state>(), size_of::<FlowState>());
        let fb = Feedback {
            bw_Bps: 1 << 40 | 1,
            updated_us: 2,
            min_rtt_us: 3,
            beta: 4,
            seq: 5,
            timeout_us: 6,
            alpha_pct: 7,
            flags: 8,
        };
        let b = fb.to_bytes();
        assert_eq!(b.len(), 40);
        assert_eq!(b[..8], (1u64 << 40 | 1).to_ne_bytes());
        assert_eq!(b[36..], 8u32.to_ne_bytes());
        let back = Feedback::from_bytes(&b).unwrap();
        assert_eq!(format!("{back:?}"), format!("{fb:?}"));
        assert!(Feedback::from_bytes(&b[..39]).is_none());
        // The flow key: the address's octets, then the port big-endian.
        let key = na_flow_key {
            daddr: u32::from_ne_bytes([10, 0, 0, 2]),
            dport: u16::from_ne_bytes(6000u16.to_be_bytes()),
            pad: 0,
        };
        assert_eq!(key.to_bytes(), [10, 0, 0, 2, 0x17, 0x70, 0, 0]);
    }
}
