// SPDX-License-Identifier: GPL-2.0-only
//! The project's BPF congestion controls: what each is, what it needs of
//! the kernel, how its object is attached; and C2TCP's attach.
//!
//! A congestion control is registered through a struct_ops *link* (or, on
//! kernels before 6.4, its registered struct_ops map: `struct_ops.rs`),
//! pinned in bpffs so it survives this process; cgroup programs (c2tcp's
//! socket option) are attached to the cgroup-v2 root through links pinned
//! beside it. Unloading removes the pins: the kernel then drops the links,
//! unregisters the congestion control and detaches the programs. Sockets
//! already using it keep their reference and finish normally.
//!
//! Each one is a [`CcSpec`] in [`CCS`], its one owner: its summary (the
//! scheme of the same name shows it), the kernel features it requires and
//! adapts to (`doctor` and docs/kernels.md's tables read them) and the
//! function that loads its object. Every object is loaded in the form the
//! running kernel takes (`kernel_form.rs`, from `features::probe()`, once
//! per process), so a congestion control that is nothing but a struct_ops
//! map is one entry here and its `bpf/<name>.bpf.c` (docs/schemes.md).
use std::fs::{self, File};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd};
use std::path::Path;

use anyhow::{bail, Context, Result};
use libbpf_rs::skel::{Skel, SkelBuilder};
use libbpf_rs::{MapCore, MapFlags, MapHandle};

use crate::features::{probe, Feature, Presence};
use crate::kernel_form::KernelForm;
use crate::leftovers;
use crate::map_bytes::{map_bytes, MapBytes};
use crate::netassist;
use crate::skel;
use crate::skel::c2tcp::types::c2tcp_config;
use crate::struct_ops;
use crate::sys;

/// Options of `c2tcp load`.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Target for sockets that never set one, in microseconds; 0 means
    /// 2 x the connection's minimum RTT (the authors' server default).
    pub default_target_us: u32,
    /// C2TCP variant for sockets that choose none (jsac when Default).
    pub default_variant: sockopt::Variant,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadOutcome {
    Loaded,
    /// It was loaded already; `reconfigured` says whether the options changed.
    AlreadyLoaded {
        reconfigured: bool,
    },
}

/// One BPF congestion control of the project.
pub struct CcSpec {
    /// Name the kernel knows it by (`TCP_CONGESTION`, sysctl, `iperf3 -C`),
    /// and the name of its scheme.
    pub name: &'static str,
    /// What it does, in a sentence (`c2tcp status`, `run --list-schemes`).
    pub summary: &'static str,
    /// Kernel features it cannot load without.
    pub requires: &'static [Feature],
    /// Kernel features it uses where present and works without (`features.rs`
    /// says how).
    pub adapts: &'static [Feature],
    /// Loads its object in the kernel's form; given a directory, attaches
    /// it and pins there what keeps it (else releases it: `c2tcp doctor`).
    load: fn(&KernelForm, &LoadOptions, Option<&Path>) -> Result<()>,
    /// Applies new options to a loaded instance; returns whether they changed.
    reconfigure: fn(&LoadOptions, &Path) -> Result<bool>,
}

impl CcSpec {
    /// Loads the object into the kernel, in the form `load` would use,
    /// and releases it.
    pub fn trial_load(&self) -> Result<()> {
        (self.load)(&probe().form, &LoadOptions::default(), None)
    }

    /// The required features this kernel lacks or refuses.
    pub fn missing(&self) -> Vec<Feature> {
        let p = probe();
        self.requires
            .iter()
            .copied()
            .filter(|f| !p.has(*f))
            .collect()
    }

    /// The adapted-to features this kernel lacks or refuses whose absence
    /// loses something.
    pub fn degraded(&self) -> Vec<Feature> {
        self.older_forms()
            .into_iter()
            .filter(|f| crate::features::info(*f).degrades)
            .collect()
    }

    /// The adapted-to features this kernel lacks or refuses: it runs their
    /// older form.
    pub fn older_forms(&self) -> Vec<Feature> {
        let p = probe();
        self.adapts.iter().copied().filter(|f| !p.has(*f)).collect()
    }
}

/// What every congestion control needs, and adapts to.
const BASE: &[Feature] = &[Feature::StructOps];
const WITH_KFUNCS: &[Feature] = &[Feature::StructOps, Feature::TcpKfuncs];
const LINK: &[Feature] = &[Feature::StructOpsLink];
const LINK_TX_START: &[Feature] = &[Feature::StructOpsLink, Feature::CwndEventTxStart];

/// NATCP, NACubic and TG: links, and before 6.10 a `cong_control` without
/// the ACK's flags (their `<cc>_pre610` struct_ops); Cubic's idle hook.
const NETASSIST: &[Feature] = &[
    Feature::StructOpsLink,
    Feature::CongControlAckFlag,
    Feature::CwndEventTxStart,
];

/// Copa: links, and before 6.10 its `<cc>_pre610` struct_ops (it reads
/// only the rate sample); no kfunc, no idle hook.
const COPA: &[Feature] = &[Feature::StructOpsLink, Feature::CongControlAckFlag];
/// BBRv3: as Copa, and its restart after idle through 7.1's
/// `cwnd_event_tx_start` where the kernel has it.
const BBR3: &[Feature] = &[
    Feature::StructOpsLink,
    Feature::CongControlAckFlag,
    Feature::CwndEventTxStart,
];

/// Prague: links, and AccECN where the kernel has `TCP_CONG_NEEDS_ACCECN`
/// (else classic ECN with its receiver's per-packet echo).
const PRAGUE: &[Feature] = &[Feature::StructOpsLink, Feature::CongNeedsAccecn];

pub static CCS: &[CcSpec] = &[
    CcSpec {
        name: "c2tcp",
        summary: "C2TCP (BPF) over the kernel's Cubic, its Target and variant set per socket (SOL_C2TCP), per cgroup or at load",
        requires: &[Feature::StructOps, Feature::TcpKfuncs, Feature::CgroupSockopt],
        adapts: &[
            Feature::StructOpsLink,
            Feature::SetRetval,
            Feature::SkStorageIterator,
            Feature::CwndEventTxStart,
        ],
        load: load_c2tcp,
        reconfigure: reconfigure_c2tcp,
    },
    CcSpec {
        name: "westwood",
        summary: "TCP Westwood+ (BPF): Reno growth, ssthresh = BWE x RTTmin after a loss",
        requires: WITH_KFUNCS,
        adapts: LINK,
        load: struct_ops_cc::<skel::westwood::WestwoodSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "vegas",
        summary: "TCP Vegas (BPF): keeps 2-4 packets queued (alpha 2, beta 4, gamma 1)",
        requires: WITH_KFUNCS,
        adapts: LINK_TX_START,
        load: struct_ops_cc::<skel::vegas::VegasSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "vivace",
        summary: "PCC Vivace (BPF): paced rate from gradient ascent on a latency-and-loss utility, u = x^0.9 - 900 x dRTT/dT - 11.35 x L",
        requires: BASE,
        adapts: LINK,
        load: struct_ops_cc::<skel::vivace::VivaceSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "ledbat",
        summary: "LEDBAT (BPF, RFC 6817): scavenger holding its one-way queueing delay (from TCP timestamps, against a 10-minute base) at 100 ms, yields to loss-based TCP",
        requires: WITH_KFUNCS,
        adapts: &[Feature::StructOpsLink, Feature::TcpUsecTs],
        load: struct_ops_cc::<skel::ledbat::LedbatSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "compound",
        summary: "Compound TCP (BPF): Reno's loss window plus a delay window that retreats as the queue grows (alpha 1/8, k 3/4, gamma 30 packets)",
        requires: WITH_KFUNCS,
        adapts: LINK_TX_START,
        load: struct_ops_cc::<skel::compound::CompoundSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "abc",
        summary: "ABC's sender (BPF, NSDI'20): cwnd +1 per accelerate (ECT) ACKed, -1 per brake (CE), paced; Reno halving on loss",
        requires: BASE,
        adapts: LINK,
        load: struct_ops_cc::<skel::abc::AbcSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "prague",
        summary: "TCP Prague (BPF, L4S): DCTCP-style alpha from the CE fraction per RTT, cwnd x (1 - alpha/2) on CE, paced; Reno halving on loss",
        requires: BASE,
        adapts: PRAGUE,
        load: struct_ops_cc::<skel::prague::PragueSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "copa",
        summary: "Copa (BPF, NSDI'18): cwnd toward the target rate 1/(delta x queueing delay) with velocity doubling, paced at 2 cwnd/RTTstanding; delta 0.5, competitive mode when the queue does not empty within 5 RTTs",
        requires: BASE,
        adapts: COPA,
        load: struct_ops_cc::<skel::copa::CopaSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "copafixed",
        summary: "Copa (BPF) with delta held at 0.5 and no competitive mode, as mvfst and genericCC's constant_delta run it",
        requires: BASE,
        adapts: COPA,
        load: struct_ops_cc::<skel::copafixed::CopafixedSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "bbr3",
        summary: "BBRv3 (BPF, Google's v3 branch, draft-ietf-ccwg-bbr): bandwidth and min-RTT model, PROBE_BW DOWN/CRUISE/REFILL/UP, inflight_hi/lo on 2 % loss with beta 0.7, paced",
        requires: BASE,
        adapts: BBR3,
        load: struct_ops_cc::<skel::bbr3::Bbr3SkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "natcp",
        summary: "NATCP (BPF): cwnd = 2 x minRTT x bandwidth / flows with BBR's headroom, paced, from NetAssist feedback; Cubic without it",
        requires: WITH_KFUNCS,
        adapts: NETASSIST,
        load: netassist_cc::<skel::natcp::NatcpSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "nacubic",
        summary: "NACubic (BPF): the kernel's Cubic capped at eq. 1 and paced by live NetAssist feedback; Cubic without it",
        requires: WITH_KFUNCS,
        adapts: NETASSIST,
        load: netassist_cc::<skel::nacubic::NacubicSkelBuilder>,
        reconfigure: no_options,
    },
    CcSpec {
        name: "tg",
        summary: "TG, throughput guidance (BPF): cwnd = NetAssist bandwidth x the sender's own smoothed RTT, paced at that bandwidth; Cubic without it",
        requires: WITH_KFUNCS,
        adapts: NETASSIST,
        load: netassist_cc::<skel::tg::TgSkelBuilder>,
        reconfigure: no_options,
    },
];

pub fn spec(name: &str) -> Result<&'static CcSpec> {
    CCS.iter().find(|c| c.name == name).with_context(|| {
        let known: Vec<&str> = CCS.iter().map(|c| c.name).collect();
        format!(
            "unknown congestion control `{name}`; this build has: {}",
            known.join(", ")
        )
    })
}

/// Names given on the command line, or all of them.
pub fn select(names: &[String]) -> Result<Vec<&'static CcSpec>> {
    if names.is_empty() {
        return Ok(CCS.iter().collect());
    }
    names.iter().map(|n| spec(n)).collect()
}

pub fn is_loaded(cc: &CcSpec) -> bool {
    sys::ops_pin(&sys::pin_dir(cc.name)).exists() && sys::is_registered(cc.name)
}

/// Loads the congestion controls (all when `names` is empty). Idempotent:
/// a loaded one is reconfigured, a half-loaded or foreign-registered one is
/// cleaned up and loaded afresh. Callers hold the exclusive [`BpfLock`].
///
/// [`BpfLock`]: crate::lock::BpfLock
pub fn load(names: &[String], opts: &LoadOptions) -> Result<Vec<(&'static str, LoadOutcome)>> {
    load_each(names, opts)?
        .into_iter()
        .map(|(name, r)| r.map(|o| (name, o)))
        .collect()
}

/// As [`load`], each one on its own: a congestion control the kernel
/// refuses does not stop the others; each gets its outcome or its error.
pub fn load_each(
    names: &[String],
    opts: &LoadOptions,
) -> Result<Vec<(&'static str, Result<LoadOutcome>)>> {
    sys::require_root("c2tcp load")?;
    let specs = select(names)?;
    sys::ensure_bpffs()?;
    Ok(specs
        .into_iter()
        .map(|cc| (cc.name, load_one(cc, opts)))
        .collect())
}

fn load_one(cc: &CcSpec, opts: &LoadOptions) -> Result<LoadOutcome> {
    let dir = sys::pin_dir(cc.name);
    if is_loaded(cc) {
        let reconfigured = (cc.reconfigure)(opts, &dir)
            .with_context(|| format!("reconfiguring the loaded {}", cc.name))?;
        return Ok(LoadOutcome::AlreadyLoaded { reconfigured });
    }
    // Refused by name before anything is made, when the kernel lacks a
    // feature it cannot do without.
    let missing = cc.missing();
    if !missing.is_empty() {
        bail!(
            "{} cannot run on this kernel: {}",
            cc.name,
            describe_missing(&missing)
        );
    }
    // Half-loaded (a crash between steps) or registered by someone else.
    struct_ops::unregister(&dir)?;
    struct_ops::remove_pins(&dir)?;
    if sys::is_registered(cc.name) {
        leftovers::unregister(cc.name)?;
    }
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let attached = (cc.load)(&probe().form, opts, Some(&dir)).and_then(|()| {
        if sys::is_registered(cc.name) {
            Ok(())
        } else {
            bail!(
                "{} was attached but the kernel does not list it as available",
                cc.name
            )
        }
    });
    if let Err(e) = attached {
        // Nothing left behind: not the registration, not a pin, not an
        // empty directory.
        let _ = struct_ops::unregister(&dir);
        let _ = struct_ops::remove_pins(&dir);
        struct_ops::release_pin_root();
        return Err(e.context(format!("loading {}", cc.name)));
    }
    Ok(LoadOutcome::Loaded)
}

/// The missing features as a sentence: what each is and its first kernel.
pub fn describe_missing(missing: &[Feature]) -> String {
    let p = probe();
    missing
        .iter()
        .map(|f| {
            let i = crate::features::info(*f);
            let why = match p.presence(*f) {
                Presence::Present => String::new(),
                Presence::Missing(d) | Presence::Refused(d) | Presence::Unknown(d) => d.clone(),
            };
            format!("it needs {} (Linux {}): {why}", i.what, i.first_kernel)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Unloads the congestion controls (all when `names` is empty) and returns
/// the names that were loaded. Callers hold the exclusive lock.
pub fn unload(names: &[String]) -> Result<Vec<&'static str>> {
    sys::require_root("c2tcp unload")?;
    let specs = select(names)?;
    let mut removed = Vec::new();
    for cc in specs {
        if struct_ops::unload(cc.name)? {
            removed.push(cc.name);
        }
    }
    struct_ops::release_pin_root();
    Ok(removed)
}

/// Unloads congestion controls by name: ours, or a user's object that
/// `object::load` pinned (`bpf` schemes); names neither are refused.
/// Returns those that were loaded. Callers hold the exclusive lock.
pub fn unload_any(names: &[String]) -> Result<Vec<String>> {
    sys::require_root("c2tcp unload")?;
    let mut removed = Vec::new();
    for name in names {
        if spec(name).is_err() && !sys::pin_dir(name).exists() {
            bail!(
                "`{name}` is neither one of c2tcp's congestion controls nor a loaded bpf scheme's"
            );
        }
        if struct_ops::unload(name)? {
            removed.push(name.clone());
        }
    }
    struct_ops::release_pin_root();
    Ok(removed)
}

// ---- the loaders ----

/// A congestion control that is nothing but its struct_ops map: loaded in
/// `form`; given a directory, registered, what keeps it pinned as `ops`.
fn struct_ops_cc<B>(form: &KernelForm, _: &LoadOptions, dir: Option<&Path>) -> Result<()>
where
    B: for<'obj> SkelBuilder<'obj> + Default,
{
    let mut storage = MaybeUninit::uninit();
    let mut skel = form.load::<B>("the BPF object", &mut storage, |_| Ok(()))?;
    match dir {
        Some(dir) => struct_ops::register_created(skel.object_mut(), dir),
        None => Ok(()),
    }
}

/// NATCP, NACubic, TG: as [`struct_ops_cc`] (the struct_ops whose
/// `cong_control` this kernel calls), their NetAssist maps pinned first.
fn netassist_cc<B>(form: &KernelForm, _: &LoadOptions, dir: Option<&Path>) -> Result<()>
where
    B: for<'obj> SkelBuilder<'obj> + Default,
{
    let mut storage = MaybeUninit::uninit();
    let mut skel = form.load::<B>("the BPF object", &mut storage, |_| Ok(()))?;
    let Some(dir) = dir else { return Ok(()) };
    netassist::pin_maps(skel.object_mut(), dir)?;
    struct_ops::register_created(skel.object_mut(), dir)
}

fn no_options(_opts: &LoadOptions, _dir: &Path) -> Result<bool> {
    Ok(false)
}

// ---- c2tcp ----

// The configuration map's value is the skeleton's `struct c2tcp_config`
// (bpf/c2tcp_sockopt.h), every field listed (a test checks they cover it).
map_bytes!(c2tcp_config {
    default_target_us,
    default_variant
});

/// `struct c2tcp_config` from `c2tcp load`'s options.
pub(crate) fn c2tcp_config_of(opts: &LoadOptions) -> c2tcp_config {
    c2tcp_config {
        default_target_us: opts.default_target_us,
        default_variant: opts.default_variant.to_raw(),
    }
}

/// C2TCP: its object in the kernel's form (HZ, the link, the setsockopt
/// program with or without `bpf_set_retval`, the iterator where tracing
/// programs may load, Cubic's idle hook); given a directory, its
/// configuration written and everything attached and pinned there.
fn load_c2tcp(form: &KernelForm, opts: &LoadOptions, dir: Option<&Path>) -> Result<()> {
    let mut storage = MaybeUninit::uninit();
    let mut skel = form.load::<skel::c2tcp::C2tcpSkelBuilder>("c2tcp", &mut storage, |_| Ok(()))?;
    let Some(dir) = dir else { return Ok(()) };

    let key = 0u32.to_ne_bytes();
    skel.maps
        .c2tcp_config_map
        .update(&key, &c2tcp_config_of(opts).to_bytes(), MapFlags::ANY)
        .context("writing the configuration map")?;
    skel.maps
        .c2tcp_config_map
        .pin(dir.join("config"))
        .context("pinning the configuration map")?;

    struct_ops::register_pinned(&mut skel.maps.c2tcp, dir)?;

    let cgroup_path = sys::cgroup2_root()?;
    let cgroup =
        File::open(&cgroup_path).with_context(|| format!("opening {}", cgroup_path.display()))?;
    // The one of the two programs the form loaded.
    let setsockopt = if form.set_retval {
        &skel.progs.c2tcp_setsockopt
    } else {
        &skel.progs.c2tcp_setsockopt_eperm
    };
    let mut set = setsockopt
        .attach_cgroup(cgroup.as_raw_fd())
        .context("attaching cgroup/setsockopt")?;
    set.pin(dir.join("setsockopt"))?;
    let mut get = skel
        .progs
        .c2tcp_getsockopt
        .attach_cgroup(cgroup.as_raw_fd())
        .context("attaching cgroup/getsockopt")?;
    get.pin(dir.join("getsockopt"))?;

    // A Target per cgroup: the settings outlive this process in their pinned
    // map; the program that applies them runs at every TCP socket creation.
    skel.maps
        .c2tcp_cgroups
        .pin(dir.join(crate::cgroups::MAP_PIN))
        .context("pinning the cgroup Target map")?;
    let mut create = skel
        .progs
        .c2tcp_sock_create
        .attach_cgroup(cgroup.as_raw_fd())
        .context("attaching cgroup/sock_create")?;
    create.pin(dir.join("sock_create"))?;

    // `c2tcp top` reads this pinned iterator: each read walks the storage
    // map. Left out (not loaded) where the kernel refuses tracing programs.
    if form.iterators {
        let mut iter = skel
            .progs
            .c2tcp_connections
            .attach_iter(skel.maps.c2tcp_sk_map.as_fd())
            .context("attaching the connections iterator")?;
        iter.pin(dir.join(crate::connections::ITER_PIN))
            .context("pinning the connections iterator")?;
    }
    Ok(())
}

fn reconfigure_c2tcp(opts: &LoadOptions, dir: &Path) -> Result<bool> {
    let map = MapHandle::from_pinned_path(dir.join("config"))
        .context("opening the pinned configuration map")?;
    let key = 0u32.to_ne_bytes();
    let want = c2tcp_config_of(opts).to_bytes();
    let have = map.lookup(&key, MapFlags::ANY)?.unwrap_or_default();
    if have.as_slice() == want.as_slice() {
        return Ok(false);
    }
    map.update(&key, &want, MapFlags::ANY)?;
    Ok(true)
}

/// The load-time options of the loaded c2tcp, or None when it is not loaded.
pub fn c2tcp_load_options() -> Option<LoadOptions> {
    let map = MapHandle::from_pinned_path(sys::pin_dir("c2tcp").join("config")).ok()?;
    let v = map.lookup(&0u32.to_ne_bytes(), MapFlags::ANY).ok()??;
    let config = c2tcp_config::from_bytes(&v)?;
    Some(LoadOptions {
        default_target_us: config.default_target_us,
        default_variant: sockopt::Variant::from_raw(config.default_variant)?,
    })
}

/// The load-time default Target of the loaded c2tcp, in microseconds
/// (0: 2 x min RTT), or None when it is not loaded.
pub fn c2tcp_default_target_us() -> Option<u32> {
    c2tcp_load_options().map(|o| o.default_target_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `struct c2tcp_config` is the skeleton's, every byte a listed field,
    /// the same in `c2tcp cost`'s object; load options survive the trip.
    #[test]
    fn c2tcp_config_is_the_skeletons() {
        use std::mem::size_of;
        assert_eq!(
            (size_of::<c2tcp_config>(), c2tcp_config::listed_bytes()),
            (8, 8)
        );
        assert_eq!(size_of::<skel::cost_c2tcp::types::c2tcp_config>(), 8);
        let opts = LoadOptions {
            default_target_us: 50_000,
            default_variant: sockopt::Variant::PAPER,
        };
        let b = c2tcp_config_of(&opts).to_bytes();
        assert_eq!(b[..4], 50_000u32.to_ne_bytes());
        assert_eq!(b[4..], sockopt::Variant::PAPER.to_raw().to_ne_bytes());
        let back = c2tcp_config::from_bytes(&b).unwrap();
        assert_eq!(
            (back.default_target_us, back.default_variant),
            (50_000, sockopt::Variant::PAPER.to_raw())
        );
    }

    #[test]
    fn names_are_unique_and_the_kernels() {
        for cc in CCS {
            assert_eq!(CCS.iter().filter(|c| c.name == cc.name).count(), 1);
            assert!(cc.name.len() <= 15, "TCP_CA_NAME_MAX: {}", cc.name);
            assert!(cc.requires.contains(&Feature::StructOps), "{}", cc.name);
            assert!(!cc.summary.is_empty());
        }
        assert!(spec("c2tcp").is_ok());
        let e = spec("nope").err().unwrap().to_string();
        assert!(e.contains("this build has: c2tcp, westwood"), "{e}");
    }

    /// Loading each object runs the verifier over every program it loads
    /// on this kernel; nothing is registered or attached, so no lock.
    #[test]
    fn every_cc_passes_the_verifier() {
        if !sys::is_root() {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true requires root"
            );
            eprintln!("skipped: needs root to load BPF programs");
            return;
        }
        for cc in CCS {
            if cc.missing().is_empty() {
                cc.trial_load()
                    .unwrap_or_else(|e| panic!("{} does not load: {e:#}", cc.name));
            }
        }
    }
}
