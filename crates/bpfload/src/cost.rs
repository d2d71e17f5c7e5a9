// SPDX-License-Identifier: GPL-2.0-only
//! What a congestion control's hooks cost per call, C2TCP's programs and the
//! kernel's own Cubic timed the same way, in one session (`c2tcp cost`).
//!
//! The timer is the kernel's `bpf_stats` (run_time_ns / run_cnt of each BPF
//! program, switched on with `BPF_ENABLE_STATS` for the session only). The
//! kernel's Cubic has no counter of its own and fentry/fexit programs are
//! refused on this machine kind (DESIGN.md), so it runs behind
//! `bpf/cost_cubic.bpf.c`: BPF programs that only call Cubic's functions, as
//! C2TCP's programs do. C2TCP runs as `bpf/cost_c2tcp.bpf.c`, its own object
//! registered under a name of its own, so that its counters hold the
//! session's sockets alone. Both carry the same empty per-ACK hook
//! (`in_ack_event`): its ns per call is what the timing adds to any hook.
//!
//! Nothing is pinned: the two registrations (`cost_cubic`, `cost_c2tcp`) are
//! links held by this process and end with [`session`] (or with the
//! process); the shared `c2tcp` is never touched. Both objects are loaded in
//! the running kernel's form as every other (`kernel_form.rs`: HZ, Cubic's
//! idle-restart hook, the link).
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};

use anyhow::{bail, Context, Result};
use libbpf_rs::skel::{OpenSkel, Skel};
use libbpf_rs::{AsRawLibbpf, MapCore, MapFlags};
use serde::Serialize;

use crate::features::probe;
use crate::map_bytes::MapBytes;
use crate::skel::c2tcp::types::c2tcp_config;
use crate::skel::cost_c2tcp::CostC2tcpSkelBuilder;
use crate::skel::cost_cubic::CostCubicSkelBuilder;

/// The congestion control running the kernel's Cubic behind BPF programs.
pub const CUBIC_CC: &str = "cost_cubic";
/// C2TCP's object registered for the session.
pub const C2TCP_CC: &str = "cost_c2tcp";
/// The empty per-ACK hook on both sides.
pub const EMPTY_HOOK: &str = "ack_event";

/// One program's counters.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Totals {
    pub calls: u64,
    pub ns: u64,
}

impl Totals {
    pub fn ns_per_call(&self) -> Option<f64> {
        (self.calls > 0).then(|| self.ns as f64 / self.calls as f64)
    }
}

/// One side's programs by hook name (`pkts_acked`, `cong_avoid`, ...,
/// `ack_event`), in a fixed order.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Side {
    pub hooks: Vec<(String, Totals)>,
}

impl Side {
    pub fn get(&self, hook: &str) -> Totals {
        self.hooks
            .iter()
            .find(|(h, _)| h == hook)
            .map(|(_, t)| *t)
            .unwrap_or_default()
    }
    fn since(&self, before: &Side) -> Side {
        Side {
            hooks: self
                .hooks
                .iter()
                .map(|(h, t)| {
                    let b = before.get(h);
                    (
                        h.clone(),
                        Totals {
                            calls: t.calls.saturating_sub(b.calls),
                            ns: t.ns.saturating_sub(b.ns),
                        },
                    )
                })
                .collect(),
        }
    }
}

/// Both sides at one moment, or between two moments.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Snapshot {
    /// The kernel's Cubic (`cost_cubic`'s programs).
    pub cubic: Side,
    /// C2TCP (`cost_c2tcp`'s programs).
    pub c2tcp: Side,
}

impl Snapshot {
    pub fn since(&self, before: &Snapshot) -> Snapshot {
        Snapshot {
            cubic: self.cubic.since(&before.cubic),
            c2tcp: self.c2tcp.since(&before.c2tcp),
        }
    }
}

/// The registered pair; read their counters.
pub struct Session {
    cubic: Vec<(String, OwnedFd)>,
    c2tcp: Vec<(String, OwnedFd)>,
}

fn run_stats(fd: &OwnedFd) -> Result<Totals> {
    let mut info = libbpf_rs::libbpf_sys::bpf_prog_info::default();
    let mut len = std::mem::size_of_val(&info) as u32;
    // SAFETY: info is a bpf_prog_info of len bytes; the kernel writes at most len.
    let rc = unsafe {
        libbpf_rs::libbpf_sys::bpf_prog_get_info_by_fd(fd.as_raw_fd(), &mut info, &mut len)
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error()).context("reading a program's run time");
    }
    Ok(Totals {
        calls: info.run_cnt,
        ns: info.run_time_ns,
    })
}

impl Session {
    /// The counters now.
    pub fn snapshot(&self) -> Result<Snapshot> {
        let side = |progs: &[(String, OwnedFd)]| -> Result<Side> {
            Ok(Side {
                hooks: progs
                    .iter()
                    .map(|(h, fd)| Ok((h.clone(), run_stats(fd)?)))
                    .collect::<Result<_>>()?,
            })
        };
        Ok(Snapshot {
            cubic: side(&self.cubic)?,
            c2tcp: side(&self.c2tcp)?,
        })
    }
}

/// Options of the C2TCP instance.
#[derive(Debug, Clone, Copy)]
pub struct SessionOptions {
    /// Target for the session's sockets, in microseconds (0: 2 x min RTT).
    pub c2tcp_target_us: u32,
    /// `C2TCP_VARIANT` value for them (0: jsac).
    pub c2tcp_variant: u32,
}

fn cc_name(name: &str) -> [i8; 16] {
    let mut out = [0i8; 16];
    for (o, b) in out.iter_mut().zip(name.bytes()) {
        *o = b as i8;
    }
    out
}

/// The hook's programs of one object (`<prefix><hook>`), their fds.
fn hook_fds<'a>(
    progs: impl Iterator<Item = libbpf_rs::Program<'a>>,
    prefix: &str,
) -> Result<Vec<(String, OwnedFd)>> {
    let mut out = Vec::new();
    for p in progs {
        if p.prog_type() != libbpf_rs::ProgramType::StructOps {
            continue;
        }
        let name = p.name().to_string_lossy().into_owned();
        let Some(hook) = name.strip_prefix(prefix) else {
            continue;
        };
        // A hook the kernel lacks (cwnd_event vs cwnd_event_tx_start) was
        // left unloaded: it has no descriptor (fd -1, which no BorrowedFd
        // may hold) and no cost.
        if !p.autoload() {
            continue;
        }
        let fd = p
            .as_fd()
            .try_clone_to_owned()
            .with_context(|| format!("duplicating {name}'s descriptor"))?;
        out.push((hook.to_string(), fd));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Switches bpf_stats on for as long as the returned descriptor lives
/// (BPF_ENABLE_STATS; counted, so it does not fight the sysctl or another
/// holder).
fn enable_stats() -> Result<OwnedFd> {
    // SAFETY: plain syscall wrapper; returns a new descriptor or -errno.
    let fd = unsafe {
        libbpf_rs::libbpf_sys::bpf_enable_stats(libbpf_rs::libbpf_sys::BPF_STATS_RUN_TIME)
    };
    if fd < 0 {
        bail!(
            "BPF_ENABLE_STATS: {}",
            std::io::Error::from_raw_os_error(-fd)
        );
    }
    // SAFETY: the kernel just gave us this descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Registers `cost_cubic` and `cost_c2tcp`, switches bpf_stats on, runs `f`,
/// then unregisters both (sockets still on them finish normally). Needs root.
pub fn session<R>(opts: SessionOptions, f: impl FnOnce(&Session) -> Result<R>) -> Result<R> {
    let stats = enable_stats()?;

    let form = &probe().form;
    let mut cubic_storage = MaybeUninit::uninit();
    let mut cubic =
        form.load::<CostCubicSkelBuilder>("the Cubic timing object", &mut cubic_storage, |_| {
            Ok(())
        })?;
    let cubic_link = cubic
        .maps
        .cost_cubic_ops
        .attach_struct_ops()
        .with_context(|| {
            format!(
                "registering {CUBIC_CC} (is one left from a killed run? it goes with its process)"
            )
        })?;

    let mut c2_storage = MaybeUninit::uninit();
    let mut c2 =
        form.load::<CostC2tcpSkelBuilder>("C2TCP's timing object", &mut c2_storage, |open| {
            // Only the congestion control: no cgroup hooks, no iterator.
            for mut p in open.open_object_mut().progs_mut() {
                if p.prog_type() != libbpf_rs::ProgramType::StructOps {
                    p.set_autoload(false);
                }
            }
            let ack_event = open.progs.cost_c2_ack_event.as_libbpf_object().as_ptr();
            let ops = open.struct_ops.cost_c2tcp_ops_mut();
            ops.name = cc_name(C2TCP_CC);
            ops.in_ack_event = ack_event;
            Ok(())
        })?;
    let config = c2tcp_config {
        default_target_us: opts.c2tcp_target_us,
        default_variant: opts.c2tcp_variant,
    };
    c2.maps
        .cost_c2_config
        .update(&0u32.to_ne_bytes(), &config.to_bytes(), MapFlags::ANY)
        .context("writing the C2TCP instance's configuration")?;
    let c2_link = c2
        .maps
        .cost_c2tcp_ops
        .attach_struct_ops()
        .with_context(|| format!("registering {C2TCP_CC}"))?;

    let session = Session {
        cubic: hook_fds(cubic.object().progs(), "cost_cu_")?,
        c2tcp: hook_fds(c2.object().progs(), "cost_c2_")?,
    };
    let r = f(&session);
    drop(session);
    drop(c2_link);
    drop(cubic_link);
    drop(stats);
    r
}
