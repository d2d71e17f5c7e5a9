// SPDX-License-Identifier: GPL-2.0-only
//! The form the running kernel takes our BPF objects in, and the one
//! function that puts an opened object into it.
//!
//! Each object in `bpf/` is written once for every kernel from 5.13 to the
//! newest. What varies between kernels (`features.rs` probes it, once per
//! process, into a [`KernelForm`]) is carried in the object by naming
//! conventions, and [`KernelForm::apply`] reads them, after the object is
//! opened and before it is loaded:
//!
//! | in the object | the kernel fact | what `apply` does |
//! | --- | --- | --- |
//! | a `.struct_ops.link` map | struct_ops links (6.4) | clears `BPF_F_LINK` before 6.4 (`struct_ops.rs` pins the registered map instead) |
//! | struct_ops maps `X` and `X_pre610` | the 4-argument `cong_control` (6.10) | creates `X` from 6.10, `X_pre610` before (libbpf then loads only the programs the created one names) |
//! | programs `P` and `P_eperm` | `bpf_set_retval` (5.18) | loads `P` with it, `P_eperm` without |
//! | `iter/` programs | the host allowing tracing programs | loads them only where it does |
//! | a struct_ops member `cwnd_event_tx_start` | the hook of 7.1 | before 7.1: unset, its program not loaded; from 7.1, in an object that calls Cubic's `cubictcp_cwnd_event` (its BTF declares the kfunc), `cwnd_event` is unset and its program not loaded instead: it only forwards Cubic's idle restart, which 7.1 sends to `cwnd_event_tx_start` (Vegas and Compound keep their own `cwnd_event`) |
//! | a struct_ops `flags` with `TCP_CONG_NEEDS_ACCECN` | the flag in the kernel's `TCP_CONG_MASK` (7.0; 6.18.y's backport) | clears it where the kernel lacks it (it would refuse the struct_ops with EINVAL): Prague's connections then negotiate classic ECN, its receiver echoing CE per packet (`bpf/ce_echo.h`) |
//! | a `.rodata` `__u32 *_hz` | the kernel's HZ | set to it (measured, no kernel config needed) |
//! | a `.rodata` `bool *_writes_cwnd_stamp` | struct_ops programs may write `snd_cwnd_stamp` (6.10) | set to whether they may |
//!
//! A struct_ops member is found by name in the object's BTF and its
//! program through libbpf's shadow copy of the struct (the pointer the
//! skeleton's typed `struct_ops` shows), so the rules hold for any object,
//! a user's (`object.rs`) included, and do nothing where a convention is
//! absent. [`KernelForm::load`] is the sequence every loader runs: open,
//! apply, the caller's own settings, load with libbpf's log explained
//! (`explain.rs`).
use std::mem::MaybeUninit;

use anyhow::{Context, Result};
use libbpf_rs::btf::types::{Composite, DataSec, Func, MemberAttr, Var};
use libbpf_rs::btf::Btf;
use libbpf_rs::libbpf_sys;
use libbpf_rs::skel::{OpenSkel, SkelBuilder};
use libbpf_rs::{AsRawLibbpf, MapType, Object, OpenObject};
use serde::Serialize;

use crate::explain;

/// The kernel functions our struct_ops programs call (`bpf/tcp_ca_common.h`,
/// a test keeps the two equal), besides Cubic's idle-restart hook, whose
/// name depends on the kernel ([`CUBIC_CWND_EVENT`],
/// [`CUBIC_CWND_EVENT_TX_START`]).
pub const KFUNCS: &[&str] = &[
    "cubictcp_init",
    "cubictcp_recalc_ssthresh",
    "cubictcp_cong_avoid",
    "cubictcp_state",
    "cubictcp_acked",
    "tcp_reno_undo_cwnd",
    "tcp_reno_ssthresh",
    "tcp_reno_cong_avoid",
    "tcp_slow_start",
    "tcp_cong_avoid_ai",
];

/// The suffix of a struct_ops map's form for kernels before 6.10.
pub const PRE_610: &str = "_pre610";
/// The suffix of a program's form for kernels without `bpf_set_retval`.
pub const EPERM: &str = "_eperm";

/// Cubic's idle-restart kfunc before 7.1 (weak in the objects).
pub const CUBIC_CWND_EVENT: &str = "cubictcp_cwnd_event";
/// Its successor from 7.1 (weak in the objects).
pub const CUBIC_CWND_EVENT_TX_START: &str = "cubictcp_cwnd_event_tx_start";

/// `TCP_CONG_NEEDS_ECN` (include/net/tcp.h, BIT(1)), as bpf/tcp_ca_common.h has it.
pub const TCP_CONG_NEEDS_ECN: u32 = 1 << 1;

/// `TCP_CONG_NEEDS_ACCECN` (include/net/tcp.h, BIT(2)): in a struct_ops'
/// `flags`, cleared by `apply` where the kernel lacks it.
pub const TCP_CONG_NEEDS_ACCECN: u32 = 1 << 2;

/// What the running kernel takes, as `apply` needs it: each field one
/// feature of `features.rs` (or the kernel's HZ).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KernelForm {
    /// `Feature::StructOpsLink` (6.4).
    pub struct_ops_link: bool,
    /// `Feature::SetRetval` (5.18).
    pub set_retval: bool,
    /// `Feature::SkStorageIterator`: iterators, and a host that allows them.
    pub iterators: bool,
    /// `Feature::CongControlAckFlag` (6.10).
    pub cong_control_ack_flag: bool,
    /// `Feature::CwndEventTxStart` (7.1).
    pub cwnd_event_tx_start: bool,
    /// `Feature::CongNeedsAccecn` (7.0, and 6.18.y).
    pub accecn: bool,
    /// The kernel's HZ ([`kernel_hz`]).
    pub hz: u32,
}

/// The kernel's HZ: its coarse clocks tick once a jiffy, so their
/// resolution is 1/HZ (no kernel config file needed; docs/kernels.md).
pub fn kernel_hz() -> u32 {
    nix::time::clock_getres(nix::time::ClockId::CLOCK_MONOTONIC_COARSE)
        .ok()
        .map(|r| r.tv_sec() as i128 * 1_000_000_000 + r.tv_nsec() as i128)
        .filter(|ns| *ns > 0 && *ns <= 100_000_000)
        .map_or(250, |ns| (1_000_000_000 / ns) as u32)
}

/// A struct_ops map's hook members, found in the object's BTF.
struct Hooks {
    map: String,
    /// Byte offsets of `cwnd_event` and `cwnd_event_tx_start` in the
    /// struct, where it has them.
    cwnd_event: Option<usize>,
    tx_start: Option<usize>,
    /// Byte offset of `flags`.
    flags: Option<usize>,
}

/// What `apply` reads from the object's BTF before changing anything.
#[derive(Default)]
struct Layout {
    hooks: Vec<Hooks>,
    /// Whether a program calls Cubic's pre-7.1 `cubictcp_cwnd_event`.
    calls_cubic_cwnd_event: bool,
    /// `.rodata` variables: name, offset, size.
    rodata: Vec<(String, usize, usize)>,
}

impl KernelForm {
    /// Opens `B`'s object (`what` names it in errors), puts it in this form
    /// ([`apply`](Self::apply)), runs `configure` on it (a caller's own
    /// settings: names, maps' values) and loads it, libbpf's log turned
    /// into what the kernel refused.
    pub fn load<'obj, B>(
        &self,
        what: &str,
        storage: &'obj mut MaybeUninit<OpenObject>,
        configure: impl FnOnce(&mut B::Output) -> Result<()>,
    ) -> Result<<B::Output as OpenSkel<'obj>>::Output>
    where
        B: SkelBuilder<'obj> + Default,
    {
        let mut open = B::default()
            .open(storage)
            .with_context(|| format!("opening {what}"))?;
        self.apply(open.open_object_mut())?;
        configure(&mut open)?;
        explain::load(what, || open.load())
    }

    /// As [`load`](Self::load), for an object opened from a file (a user's
    /// own: `object.rs`).
    pub fn load_object(&self, what: &str, mut open: OpenObject) -> Result<Object> {
        self.apply(&mut open)?;
        explain::load(what, || open.load())
    }

    /// Puts an opened object in this form (the conventions of the module's
    /// header). Touches nothing an object does not follow a convention for.
    pub fn apply(&self, obj: &mut OpenObject) -> Result<()> {
        let layout = layout(obj)?;
        self.apply_maps(obj, &layout)?;
        self.apply_programs(obj, &layout);
        Ok(())
    }

    fn apply_maps(&self, obj: &mut OpenObject, layout: &Layout) -> Result<()> {
        let struct_ops: Vec<String> = obj
            .maps()
            .filter(|m| m.map_type() == MapType::StructOps)
            .map(|m| m.name().to_string_lossy().into_owned())
            .collect();
        let has = |n: &str| struct_ops.iter().any(|m| m == n);
        for mut map in obj.maps_mut() {
            let name = map.name().to_string_lossy().into_owned();
            if map.map_type() == MapType::StructOps {
                if !self.accecn {
                    let at = layout
                        .hooks
                        .iter()
                        .find(|h| h.map == name)
                        .and_then(|h| h.flags);
                    if let (Some(at), Some(shadow)) = (at, map.initial_value_mut()) {
                        clear_flag(shadow, at, TCP_CONG_NEEDS_ACCECN);
                    }
                }
                let link = libbpf_sys::BPF_F_LINK;
                if !self.struct_ops_link && map.map_flags() & link != 0 {
                    map.set_map_flags(map.map_flags() & !link)
                        .context("clearing BPF_F_LINK (this kernel has no struct_ops links)")?;
                }
                // Of `X` and `X_pre610`, the one whose `cong_control` this
                // kernel calls is created; libbpf loads its programs only.
                let older = name.strip_suffix(PRE_610).is_some_and(has);
                if older || has(&format!("{name}{PRE_610}")) {
                    map.set_autocreate(older != self.cong_control_ack_flag)
                        .with_context(|| format!("choosing struct_ops {name}"))?;
                }
            } else if name.ends_with(".rodata") {
                let Some(data) = map.initial_value_mut() else {
                    continue;
                };
                // Read-only data is frozen at load: set now.
                for (var, at, size) in &layout.rodata {
                    let Some(bytes) = data.get_mut(*at..at + size) else {
                        continue;
                    };
                    if var.ends_with("_hz") && *size == 4 {
                        bytes.copy_from_slice(&self.hz.to_ne_bytes());
                    } else if var.ends_with("_writes_cwnd_stamp") && *size == 1 {
                        bytes[0] = self.cong_control_ack_flag.into();
                    }
                }
            }
        }
        Ok(())
    }

    fn apply_programs(&self, obj: &mut OpenObject, layout: &Layout) {
        // The hooks' programs left out, as libbpf's pointers.
        let mut unload: Vec<*mut libbpf_sys::bpf_program> = Vec::new();
        for mut map in obj.maps_mut() {
            let name = map.name().to_string_lossy().into_owned();
            let Some(h) = layout.hooks.iter().find(|h| h.map == name) else {
                continue;
            };
            let Some(shadow) = map.initial_value_mut() else {
                continue;
            };
            let Some(tx) = h.tx_start.filter(|at| program_at(shadow, *at).is_some()) else {
                continue;
            };
            let dropped = if !self.cwnd_event_tx_start {
                Some(tx)
            } else if layout.calls_cubic_cwnd_event {
                h.cwnd_event
            } else {
                None
            };
            if let Some(p) = dropped.and_then(|at| take_program(shadow, at)) {
                unload.push(p);
            }
        }
        let names: Vec<String> = obj
            .progs()
            .map(|p| p.name().to_string_lossy().into_owned())
            .collect();
        let has = |n: &str| names.iter().any(|p| p == n);
        for mut prog in obj.progs_mut() {
            let name = prog.name().to_string_lossy().into_owned();
            if unload.contains(&prog.as_libbpf_object().as_ptr()) {
                prog.set_autoload(false);
            } else if name.strip_suffix(EPERM).is_some_and(has) {
                prog.set_autoload(!self.set_retval);
            } else if has(&format!("{name}{EPERM}")) {
                prog.set_autoload(self.set_retval);
            } else if prog.section().to_string_lossy().starts_with("iter/") {
                prog.set_autoload(self.iterators);
            }
        }
    }
}

/// Clears `bit` in the `u32` a struct_ops shadow holds at byte `at`.
fn clear_flag(shadow: &mut [u8], at: usize, bit: u32) {
    if let Some(b) = shadow.get_mut(at..at + 4) {
        let v = u32::from_ne_bytes(b.try_into().expect("4 bytes")) & !bit;
        b.copy_from_slice(&v.to_ne_bytes());
    }
}

/// The program a struct_ops shadow names at byte `at`, if any.
fn program_at(shadow: &[u8], at: usize) -> Option<*mut libbpf_sys::bpf_program> {
    let b: [u8; 8] = shadow.get(at..at + 8)?.try_into().ok()?;
    let p = u64::from_ne_bytes(b) as usize as *mut libbpf_sys::bpf_program;
    (!p.is_null()).then_some(p)
}

/// Unsets the member at byte `at`; returns the program it named.
fn take_program(shadow: &mut [u8], at: usize) -> Option<*mut libbpf_sys::bpf_program> {
    let p = program_at(shadow, at)?;
    shadow[at..at + 8].fill(0);
    Some(p)
}

/// Reads from the object's BTF what `apply` needs, before it changes anything.
fn layout(obj: &OpenObject) -> Result<Layout> {
    let raw = obj.as_libbpf_object();
    // SAFETY: the object is open and outlives this borrow; nothing
    // changes it while `btf` lives.
    let Some(btf) = Btf::from_bpf_object(unsafe { raw.as_ref() })? else {
        return Ok(Layout::default());
    };
    let member = |s: &Composite<'_>, name: &str| {
        s.iter().find_map(|m| match m.attr {
            MemberAttr::Normal { offset } if m.name.is_some_and(|n| n == name) => {
                Some(offset as usize / 8)
            }
            _ => None,
        })
    };
    let mut hooks = Vec::new();
    for map in obj.maps().filter(|m| m.map_type() == MapType::StructOps) {
        // SAFETY: a map of the open object.
        let ty = unsafe { libbpf_sys::bpf_map__btf_value_type_id(map.as_libbpf_object().as_ptr()) };
        let Some(s) = btf.type_by_id::<Composite<'_>>(ty.into()) else {
            continue;
        };
        hooks.push(Hooks {
            map: map.name().to_string_lossy().into_owned(),
            cwnd_event: member(&s, "cwnd_event"),
            tx_start: member(&s, "cwnd_event_tx_start"),
            flags: member(&s, "flags"),
        });
    }
    // Its BTF holds the kfunc's FUNC only where a program calls it (libbpf
    // makes the extern's linkage global at open: the name tells).
    let calls_cubic_cwnd_event = btf.type_by_name::<Func<'_>>(CUBIC_CWND_EVENT).is_some();
    let rodata = btf
        .type_by_name::<DataSec<'_>>(".rodata")
        .map(|sec| {
            sec.iter()
                .filter_map(|v| {
                    let var = btf.type_by_id::<Var<'_>>(v.ty)?;
                    let name = var.name()?.to_string_lossy().into_owned();
                    Some((name, v.offset as usize, v.size))
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Layout {
        hooks,
        calls_cubic_cwnd_event,
        rodata,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skel;

    /// A kernel with none of the varying features (6.1-like, refusing
    /// tracing programs, HZ 100), and one with all of them (7.1 and later).
    const OLDEST: KernelForm = KernelForm {
        struct_ops_link: false,
        set_retval: false,
        iterators: false,
        cong_control_ack_flag: false,
        cwnd_event_tx_start: false,
        accecn: false,
        hz: 100,
    };
    const NEWEST: KernelForm = KernelForm {
        struct_ops_link: true,
        set_retval: true,
        iterators: true,
        cong_control_ack_flag: true,
        cwnd_event_tx_start: true,
        accecn: true,
        hz: 1000,
    };

    fn linked(flags: u32) -> bool {
        flags & libbpf_sys::BPF_F_LINK != 0
    }

    /// KFUNCS and the two idle-restart kfuncs are the header's `__ksym`
    /// declarations, those two the only weak ones.
    #[test]
    fn kfuncs_are_tcp_ca_common_h_ksym_list() {
        let header = include_str!("../../../bpf/tcp_ca_common.h");
        let (mut strong, mut weak) = (Vec::new(), Vec::new());
        for l in header.lines().filter(|l| l.contains(" __ksym")) {
            let head = l.split('(').next().unwrap();
            let name = head.rsplit([' ', '*']).next().unwrap();
            if l.contains("__weak") {
                weak.push(name);
            } else {
                strong.push(name);
            }
        }
        let mut want = KFUNCS.to_vec();
        want.sort();
        strong.sort();
        weak.sort();
        assert_eq!(strong, want, "bpf/tcp_ca_common.h's __ksym list");
        assert_eq!(weak, [CUBIC_CWND_EVENT, CUBIC_CWND_EVENT_TX_START]);
    }

    /// C2TCP in each form: HZ, the link, the setsockopt program with or
    /// without bpf_set_retval, the iterator, Cubic's idle-restart hook.
    #[test]
    fn c2tcp_takes_each_form() {
        for form in [&OLDEST, &NEWEST] {
            let mut storage = MaybeUninit::uninit();
            let mut open = skel::c2tcp::C2tcpSkelBuilder::default()
                .open(&mut storage)
                .unwrap();
            form.apply(open.open_object_mut()).unwrap();
            assert_eq!(open.maps.rodata_data.as_deref().unwrap().c2tcp_hz, form.hz);
            assert_eq!(linked(open.maps.c2tcp.map_flags()), form.struct_ops_link);
            let p = &open.progs;
            assert_eq!(p.c2tcp_setsockopt.autoload(), form.set_retval);
            assert_eq!(p.c2tcp_setsockopt_eperm.autoload(), !form.set_retval);
            assert_eq!(p.c2tcp_connections.autoload(), form.iterators);
            let tx = form.cwnd_event_tx_start;
            assert_eq!(p.c2tcp_cwnd_event.autoload(), !tx);
            assert_eq!(p.c2tcp_cwnd_event_tx_start.autoload(), tx);
            for q in [&p.c2tcp_init, &p.c2tcp_getsockopt, &p.c2tcp_sock_create] {
                assert!(q.autoload(), "{:?}", q.name());
            }
            let ops = open.struct_ops.c2tcp();
            assert_eq!(ops.cwnd_event.is_null(), tx);
            assert_eq!(ops.cwnd_event_tx_start.is_null(), !tx);
            assert!(!ops.pkts_acked.is_null() && !ops.init.is_null());
        }
    }

    /// NATCP, NACubic and TG: one of their two struct_ops created, the
    /// stamp's switch, Cubic's hook in both struct_ops.
    #[test]
    fn netassist_ccs_take_each_form() {
        macro_rules! check {
            ($builder:path, $ops:ident, $pre:ident, $ev:ident, $tx:ident) => {
                for form in [&OLDEST, &NEWEST] {
                    let mut storage = MaybeUninit::uninit();
                    let mut open = <$builder>::default().open(&mut storage).unwrap();
                    form.apply(open.open_object_mut()).unwrap();
                    let now = form.cong_control_ack_flag;
                    assert_eq!(open.maps.$ops.autocreate(), now);
                    assert_eq!(open.maps.$pre.autocreate(), !now);
                    assert_eq!(linked(open.maps.$pre.map_flags()), form.struct_ops_link);
                    let ro = open.maps.rodata_data.as_deref().unwrap();
                    assert_eq!(ro.na_writes_cwnd_stamp, now);
                    let tx = form.cwnd_event_tx_start;
                    assert_eq!(open.progs.$ev.autoload(), !tx);
                    assert_eq!(open.progs.$tx.autoload(), tx);
                    for ops in [open.struct_ops.$ops(), open.struct_ops.$pre()] {
                        assert_eq!(ops.cwnd_event.is_null(), tx);
                        assert_eq!(ops.cwnd_event_tx_start.is_null(), !tx);
                        assert!(!ops.cong_control.is_null());
                    }
                }
            };
        }
        check!(
            skel::natcp::NatcpSkelBuilder,
            natcp,
            natcp_pre610,
            natcp_cwnd_event,
            natcp_cwnd_event_tx_start
        );
        check!(
            skel::nacubic::NacubicSkelBuilder,
            nacubic,
            nacubic_pre610,
            nacubic_cwnd_event,
            nacubic_cwnd_event_tx_start
        );
        check!(
            skel::tg::TgSkelBuilder,
            tg,
            tg_pre610,
            tg_cwnd_event,
            tg_cwnd_event_tx_start
        );
    }

    /// Vegas and Compound keep their own `cwnd_event` on every kernel and
    /// add the 7.1 hook where it exists; `c2tcp cost`'s objects take
    /// Cubic's hook and HZ as C2TCP does.
    #[test]
    fn own_and_cubic_idle_hooks_in_each_form() {
        macro_rules! own {
            ($builder:path, $ops:ident, $ev:ident, $tx:ident) => {
                for form in [&OLDEST, &NEWEST] {
                    let mut storage = MaybeUninit::uninit();
                    let mut open = <$builder>::default().open(&mut storage).unwrap();
                    form.apply(open.open_object_mut()).unwrap();
                    let tx = form.cwnd_event_tx_start;
                    assert!(open.progs.$ev.autoload());
                    assert_eq!(open.progs.$tx.autoload(), tx);
                    let ops = open.struct_ops.$ops();
                    assert!(!ops.cwnd_event.is_null());
                    assert_eq!(ops.cwnd_event_tx_start.is_null(), !tx);
                }
            };
        }
        own!(
            skel::vegas::VegasSkelBuilder,
            vegas,
            vegas_cwnd_event,
            vegas_cwnd_event_tx_start
        );
        own!(
            skel::compound::CompoundSkelBuilder,
            compound,
            compound_cwnd_event,
            compound_cwnd_event_tx_start
        );
        for form in [&OLDEST, &NEWEST] {
            let tx = form.cwnd_event_tx_start;
            let mut storage = MaybeUninit::uninit();
            let mut open = skel::cost_cubic::CostCubicSkelBuilder::default()
                .open(&mut storage)
                .unwrap();
            form.apply(open.open_object_mut()).unwrap();
            assert_eq!(open.progs.cost_cu_cwnd_event.autoload(), !tx);
            assert_eq!(
                open.struct_ops
                    .cost_cubic_ops()
                    .cwnd_event_tx_start
                    .is_null(),
                !tx
            );
            let mut storage = MaybeUninit::uninit();
            let mut open = skel::cost_c2tcp::CostC2tcpSkelBuilder::default()
                .open(&mut storage)
                .unwrap();
            form.apply(open.open_object_mut()).unwrap();
            assert_eq!(
                open.maps.rodata_data.as_deref().unwrap().cost_c2_hz,
                form.hz
            );
            assert_eq!(open.progs.cost_c2_cwnd_event.autoload(), !tx);
            assert_eq!(open.struct_ops.cost_c2tcp_ops().cwnd_event.is_null(), tx);
        }
    }

    /// The objects that follow no convention but the link's keep every
    /// program and every member, whatever the form.
    #[test]
    fn plain_struct_ops_change_only_their_link_flag() {
        macro_rules! plain {
            ($builder:path, $map:ident) => {
                for form in [&OLDEST, &NEWEST] {
                    let mut storage = MaybeUninit::uninit();
                    let mut open = <$builder>::default().open(&mut storage).unwrap();
                    let before = open.maps.$map.initial_value().unwrap().to_vec();
                    form.apply(open.open_object_mut()).unwrap();
                    assert_eq!(linked(open.maps.$map.map_flags()), form.struct_ops_link);
                    assert_eq!(open.maps.$map.initial_value().unwrap(), &before[..]);
                    assert!(open.open_object().progs().all(|p| p.autoload()));
                }
            };
        }
        plain!(skel::westwood::WestwoodSkelBuilder, westwood);
        plain!(skel::vivace::VivaceSkelBuilder, vivace);
        plain!(skel::ledbat::LedbatSkelBuilder, ledbat);
        plain!(skel::abc::AbcSkelBuilder, abc);
    }

    /// Prague asks for AccECN where the kernel takes the flag and keeps
    /// its classic-ECN flags exactly elsewhere; no other struct_ops asks.
    #[test]
    fn prague_requests_accecn_only_where_the_kernel_has_it() {
        for form in [&OLDEST, &NEWEST] {
            let mut storage = MaybeUninit::uninit();
            let mut open = skel::prague::PragueSkelBuilder::default()
                .open(&mut storage)
                .unwrap();
            assert_ne!(open.struct_ops.prague().flags & TCP_CONG_NEEDS_ACCECN, 0);
            form.apply(open.open_object_mut()).unwrap();
            let flags = open.struct_ops.prague().flags;
            assert_eq!(flags & TCP_CONG_NEEDS_ACCECN != 0, form.accecn);
            // TCP_CONG_NON_RESTRICTED | TCP_CONG_NEEDS_ECN, as before.
            assert_eq!(flags & !TCP_CONG_NEEDS_ACCECN, 0x3);
            assert!(linked(open.maps.prague.map_flags()) == form.struct_ops_link);
            assert!(open.open_object().progs().all(|p| p.autoload()));
        }
        let mut storage = MaybeUninit::uninit();
        let open = skel::abc::AbcSkelBuilder::default()
            .open(&mut storage)
            .unwrap();
        assert_eq!(open.struct_ops.abc().flags & TCP_CONG_NEEDS_ACCECN, 0);
    }
}
