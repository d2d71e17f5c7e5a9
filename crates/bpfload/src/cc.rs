// SPDX-License-Identifier: GPL-2.0-only
//! The project's BPF congestion controls, and how each is loaded.
//!
//! A congestion control is registered through a struct_ops *link* (or, on
//! kernels before 6.4, its registered struct_ops map: `struct_ops.rs`),
//! pinned in bpffs so it survives this process; cgroup programs (c2tcp's
//! socket option) are attached to the cgroup-v2 root through links pinned
//! beside it. Unloading removes the pins: the kernel then drops the links,
//! unregisters the congestion control and detaches the programs. Sockets
//! already using it keep their reference and finish normally.
//!
//! Each object is loaded in the form the running kernel takes, decided from
//! `features::probe()` (what each needs and adapts to is in its `CcSpec`).
use std::fs::{self, File};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use libbpf_rs::skel::{OpenSkel, SkelBuilder};
use libbpf_rs::{MapCore, MapFlags, MapHandle, OpenObject};

use crate::explain;
use crate::features::{probe, Feature};
use crate::leftovers;
use crate::skel::c2tcp::{C2tcpSkel, C2tcpSkelBuilder, OpenC2tcpSkel};
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
    /// Name the kernel knows it by (`TCP_CONGESTION`, sysctl, `iperf3 -C`).
    pub name: &'static str,
    pub summary: &'static str,
    /// Kernel features it cannot load without.
    pub requires: &'static [Feature],
    /// Kernel features it uses where present and works without (`features.rs`
    /// says how).
    pub adapts: &'static [Feature],
    /// Loads the object, attaches and pins everything into the directory.
    attach: fn(&LoadOptions, &Path) -> Result<()>,
    /// Loads the object as `attach` would and releases it, attaching
    /// nothing (`c2tcp doctor`).
    trial: fn() -> Result<()>,
    /// Applies new options to a loaded instance; returns whether they changed.
    reconfigure: fn(&LoadOptions, &Path) -> Result<bool>,
}

impl CcSpec {
    /// Loads the object into the kernel and releases it.
    pub fn trial_load(&self) -> Result<()> {
        (self.trial)()
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

/// The kernel functions our struct_ops programs call (bpf/tcp_ca_common.h),
/// besides Cubic's idle-restart hook, whose name depends on the kernel
/// (`Feature::CwndEventTxStart`).
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

/// What every congestion control needs, and adapts to.
const BASE: &[Feature] = &[Feature::StructOps];
const WITH_KFUNCS: &[Feature] = &[Feature::StructOps, Feature::TcpKfuncs];
const LINK: &[Feature] = &[Feature::StructOpsLink];
const LINK_TX_START: &[Feature] = &[Feature::StructOpsLink, Feature::CwndEventTxStart];

/// Before loading an object that sets 7.1's `cwnd_event_tx_start`: the
/// skeleton's copy of its struct_ops holds every program it names, and
/// libbpf refuses a set member the kernel lacks, so before 7.1 that member
/// is unset and its program not loaded. From 7.1, Cubic has no
/// `cwnd_event` kfunc: an object whose `cwnd_event` only forwards to Cubic's
/// (`cubic_cwnd_event`) has that member unset and that program unloaded
/// instead, and its `cwnd_event_tx_start` serves.
pub(crate) fn tx_start_hooks(
    cwnd_event: &mut *mut libbpf_rs::libbpf_sys::bpf_program,
    tx_start: &mut *mut libbpf_rs::libbpf_sys::bpf_program,
    cubic_cwnd_event: Option<&mut libbpf_rs::OpenProgramMut<'_>>,
    tx_start_program: &mut libbpf_rs::OpenProgramMut<'_>,
) {
    if probe().has(Feature::CwndEventTxStart) {
        if let Some(p) = cubic_cwnd_event {
            *cwnd_event = std::ptr::null_mut();
            p.set_autoload(false);
        }
    } else {
        *tx_start = std::ptr::null_mut();
        tx_start_program.set_autoload(false);
    }
}

pub static CCS: &[CcSpec] = &[
    CcSpec {
        name: "c2tcp",
        summary: "C2TCP over the kernel's Cubic, with the SOL_C2TCP socket option",
        requires: &[Feature::StructOps, Feature::TcpKfuncs, Feature::CgroupSockopt],
        adapts: &[
            Feature::StructOpsLink,
            Feature::SetRetval,
            Feature::SkStorageIterator,
            Feature::CwndEventTxStart,
        ],
        trial: trial_c2tcp,
        attach: attach_c2tcp,
        reconfigure: reconfigure_c2tcp,
    },
    CcSpec {
        name: "westwood",
        summary: "TCP Westwood+ (bandwidth estimate, ssthresh = BWE x RTTmin)",
        requires: WITH_KFUNCS,
        adapts: LINK,
        trial: trial_westwood,
        attach: attach_westwood,
        reconfigure: no_options,
    },
    CcSpec {
        name: "vegas",
        summary: "TCP Vegas (alpha 2, beta 4, gamma 1 packets)",
        requires: WITH_KFUNCS,
        adapts: LINK_TX_START,
        trial: trial_vegas,
        attach: attach_vegas,
        reconfigure: no_options,
    },
    CcSpec {
        name: "vivace",
        summary: "PCC Vivace (rate-based, paced: gradient ascent on u = x^0.9 - 900 x dRTT/dT - 11.35 x L)",
        requires: BASE,
        adapts: LINK,
        trial: trial_vivace,
        attach: attach_vivace,
        reconfigure: no_options,
    },
    CcSpec {
        name: "ledbat",
        summary: "LEDBAT (RFC 6817): one-way delay from TCP timestamps against a 10-minute base history, 100 ms target, gain 1",
        requires: WITH_KFUNCS,
        adapts: &[Feature::StructOpsLink, Feature::TcpUsecTs],
        trial: trial_ledbat,
        attach: attach_ledbat,
        reconfigure: no_options,
    },
    CcSpec {
        name: "compound",
        summary: "Compound TCP: Reno loss window + delay window (alpha 1/8, k 3/4, gamma 30 packets)",
        requires: WITH_KFUNCS,
        adapts: LINK_TX_START,
        trial: trial_compound,
        attach: attach_compound,
        reconfigure: no_options,
    },
    CcSpec {
        name: "abc",
        summary: "ABC's sender (NSDI'20): cwnd +1 per accelerate (ECT) ACKed, -1 per brake (CE), paced; Reno halving on loss",
        requires: BASE,
        adapts: LINK,
        trial: trial_abc,
        attach: attach_abc,
        reconfigure: no_options,
    },
    CcSpec {
        name: "prague",
        summary: "TCP Prague (L4S): DCTCP-style alpha from the CE fraction per RTT, cwnd x (1 - alpha/2) on CE, paced; Reno halving on loss",
        requires: BASE,
        adapts: LINK,
        trial: trial_prague,
        attach: attach_prague,
        reconfigure: no_options,
    },
    CcSpec {
        name: "natcp",
        summary: "NATCP: cwnd = 2 x minRTT x bandwidth / flows from NetAssist feedback, paced; Cubic without feedback",
        requires: WITH_KFUNCS,
        adapts: crate::netassist::ADAPTS,
        trial: crate::netassist::trial_natcp,
        attach: crate::netassist::attach_natcp,
        reconfigure: no_options,
    },
    CcSpec {
        name: "nacubic",
        summary: "NACubic: Cubic with cwnd capped by NetAssist feedback (eq. 1), paced; Cubic without feedback",
        requires: WITH_KFUNCS,
        adapts: crate::netassist::ADAPTS,
        trial: crate::netassist::trial_nacubic,
        attach: crate::netassist::attach_nacubic,
        reconfigure: no_options,
    },
    CcSpec {
        name: "tg",
        summary: "TG (throughput guidance): cwnd = NetAssist bandwidth x own smoothed RTT, paced; Cubic without feedback",
        requires: WITH_KFUNCS,
        adapts: crate::netassist::ADAPTS,
        trial: crate::netassist::trial_tg,
        attach: crate::netassist::attach_tg,
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
    remove_pins(&dir)?;
    if sys::is_registered(cc.name) {
        leftovers::unregister(cc.name)?;
    }
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let attached = (cc.attach)(opts, &dir).and_then(|()| {
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
        let _ = remove_pins(&dir);
        release_pin_root();
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
                crate::features::Presence::Present => String::new(),
                crate::features::Presence::Missing(d)
                | crate::features::Presence::Refused(d)
                | crate::features::Presence::Unknown(d) => d.clone(),
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
        if unload_one(cc.name)? {
            removed.push(cc.name);
        }
    }
    release_pin_root();
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
        if unload_one(name)? {
            removed.push(name.clone());
        }
    }
    release_pin_root();
    Ok(removed)
}

/// Unregisters one congestion control by removing its pins; true when it
/// was there.
fn unload_one(name: &str) -> Result<bool> {
    let dir = sys::pin_dir(name);
    let was_there = dir.exists() || sys::is_registered(name);
    // The default congestion control holds a reference that would keep
    // new sockets on the old programs: hand the default back to Cubic.
    if sys::default_cc() == name {
        sys::set_default_cc("cubic")?;
    }
    // A registered map (kernels before 6.4) stays registered without its pin.
    struct_ops::unregister(&dir)?;
    remove_pins(&dir)?;
    if !wait_unregistered(name, Duration::from_secs(2)) {
        leftovers::unregister(name)?;
    }
    if !wait_unregistered(name, Duration::from_secs(2)) {
        bail!(
            "{name} is still registered: something outside c2tcp holds it (see `bpftool struct_ops show`)"
        );
    }
    Ok(was_there)
}

pub(crate) fn release_pin_root() {
    // Leave no empty directory, and no bpffs we mounted, behind.
    if fs::remove_dir(sys::PIN_ROOT).is_ok() || !std::path::Path::new(sys::PIN_ROOT).exists() {
        sys::release_bpffs();
    }
}

fn wait_unregistered(name: &str, limit: Duration) -> bool {
    let start = Instant::now();
    while sys::is_registered(name) {
        if start.elapsed() > limit {
            return false;
        }
        thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Removing a pin drops the kernel object it kept alive.
pub(crate) fn remove_pins(dir: &Path) -> Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        fs::remove_file(&path).with_context(|| format!("removing pin {}", path.display()))?;
    }
    fs::remove_dir(dir).with_context(|| format!("removing {}", dir.display()))
}

// ---- congestion controls that are nothing but a struct_ops ----

/// For a skeleton whose only job is one struct_ops map: `$load` opens it in
/// the running kernel's form and loads it, `$trial` loads and releases it,
/// `$attach` registers it and pins what keeps it registered as `ops`.
macro_rules! struct_ops_only {
    ($load:ident, $trial:ident, $attach:ident, $builder:path, $map:ident) => {
        struct_ops_only!($load, $trial, $attach, $builder, $map, |_open| {});
    };
    // `$tx_start`: the object's 7.1 `cwnd_event_tx_start` program, and the
    // accessor of its struct_ops in the skeleton.
    ($load:ident, $trial:ident, $attach:ident, $builder:path, $map:ident,
     tx_start = $tx_start:ident, $map_mut:ident) => {
        struct_ops_only!($load, $trial, $attach, $builder, $map, |open| {
            let ops = open.struct_ops.$map_mut();
            tx_start_hooks(
                &mut ops.cwnd_event,
                &mut ops.cwnd_event_tx_start,
                None,
                &mut open.progs.$tx_start,
            );
        });
    };
    ($load:ident, $trial:ident, $attach:ident, $builder:path, $map:ident, |$open:ident| $configure:block) => {
        fn $load(
            storage: &mut MaybeUninit<OpenObject>,
        ) -> Result<<<$builder as SkelBuilder<'_>>::Output as OpenSkel<'_>>::Output> {
            let mut $open = <$builder>::default()
                .open(storage)
                .context("opening the BPF object")?;
            struct_ops::prepare(&mut $open.maps.$map)?;
            $configure
            explain::load(stringify!($map), || $open.load())
        }

        fn $trial() -> Result<()> {
            let mut storage = MaybeUninit::uninit();
            $load(&mut storage).map(drop)
        }

        fn $attach(_opts: &LoadOptions, dir: &Path) -> Result<()> {
            let mut storage = MaybeUninit::uninit();
            let mut skel = $load(&mut storage)?;
            struct_ops::register_pinned(&mut skel.maps.$map, dir)
        }
    };
}

struct_ops_only!(
    load_westwood,
    trial_westwood,
    attach_westwood,
    crate::skel::westwood::WestwoodSkelBuilder,
    westwood
);
struct_ops_only!(
    load_vegas,
    trial_vegas,
    attach_vegas,
    crate::skel::vegas::VegasSkelBuilder,
    vegas,
    tx_start = vegas_cwnd_event_tx_start,
    vegas_mut
);
struct_ops_only!(
    load_vivace,
    trial_vivace,
    attach_vivace,
    crate::skel::vivace::VivaceSkelBuilder,
    vivace
);
struct_ops_only!(
    load_ledbat,
    trial_ledbat,
    attach_ledbat,
    crate::skel::ledbat::LedbatSkelBuilder,
    ledbat
);
struct_ops_only!(
    load_compound,
    trial_compound,
    attach_compound,
    crate::skel::compound::CompoundSkelBuilder,
    compound,
    tx_start = compound_cwnd_event_tx_start,
    compound_mut
);
struct_ops_only!(
    load_abc,
    trial_abc,
    attach_abc,
    crate::skel::abc::AbcSkelBuilder,
    abc
);
struct_ops_only!(
    load_prague,
    trial_prague,
    attach_prague,
    crate::skel::prague::PragueSkelBuilder,
    prague
);

fn no_options(_opts: &LoadOptions, _dir: &Path) -> Result<bool> {
    Ok(false)
}

// ---- c2tcp ----

/// `struct c2tcp_config` (bpf/c2tcp_sockopt.h).
fn c2tcp_config_bytes(opts: &LoadOptions) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&opts.default_target_us.to_ne_bytes());
    b[4..].copy_from_slice(&opts.default_variant.to_raw().to_ne_bytes());
    b
}

/// The kernel's HZ: its coarse clocks tick once a jiffy, so their
/// resolution is 1/HZ (no kernel config file needed).
pub fn kernel_hz() -> u32 {
    nix::time::clock_getres(nix::time::ClockId::CLOCK_MONOTONIC_COARSE)
        .ok()
        .map(|r| r.tv_sec() as i128 * 1_000_000_000 + r.tv_nsec() as i128)
        .filter(|ns| *ns > 0 && *ns <= 100_000_000)
        .map_or(250, |ns| (1_000_000_000 / ns) as u32)
}

/// C2TCP's object opened in the running kernel's form: HZ from the loader,
/// the struct_ops map with or without a link, the setsockopt program with or
/// without `bpf_set_retval`, the connections iterator only where the kernel
/// lets tracing programs load.
pub(crate) fn configure_c2tcp(open: &mut OpenC2tcpSkel<'_>) -> Result<()> {
    let p = probe();
    if let Some(ro) = open.maps.rodata_data.as_deref_mut() {
        ro.c2tcp_hz = kernel_hz();
    }
    struct_ops::prepare(&mut open.maps.c2tcp)?;
    let ops = open.struct_ops.c2tcp_mut();
    tx_start_hooks(
        &mut ops.cwnd_event,
        &mut ops.cwnd_event_tx_start,
        Some(&mut open.progs.c2tcp_cwnd_event),
        &mut open.progs.c2tcp_cwnd_event_tx_start,
    );
    let retval = p.has(Feature::SetRetval);
    open.progs.c2tcp_setsockopt.set_autoload(retval);
    open.progs.c2tcp_setsockopt_eperm.set_autoload(!retval);
    open.progs
        .c2tcp_connections
        .set_autoload(p.has(Feature::SkStorageIterator));
    Ok(())
}

fn load_c2tcp(storage: &mut MaybeUninit<OpenObject>) -> Result<C2tcpSkel<'_>> {
    let mut open = C2tcpSkelBuilder::default()
        .open(storage)
        .context("opening the BPF object")?;
    configure_c2tcp(&mut open)?;
    explain::load("c2tcp", || open.load())
}

fn trial_c2tcp() -> Result<()> {
    let mut storage = MaybeUninit::uninit();
    load_c2tcp(&mut storage).map(drop)
}

fn attach_c2tcp(opts: &LoadOptions, dir: &Path) -> Result<()> {
    let mut storage = MaybeUninit::uninit();
    let mut skel = load_c2tcp(&mut storage)?;

    let key = 0u32.to_ne_bytes();
    skel.maps
        .c2tcp_config_map
        .update(&key, &c2tcp_config_bytes(opts), MapFlags::ANY)
        .context("writing the configuration map")?;
    skel.maps
        .c2tcp_config_map
        .pin(dir.join("config"))
        .context("pinning the configuration map")?;

    struct_ops::register_pinned(&mut skel.maps.c2tcp, dir)?;

    let cgroup_path = sys::cgroup2_root()?;
    let cgroup =
        File::open(&cgroup_path).with_context(|| format!("opening {}", cgroup_path.display()))?;
    let setsockopt = if probe().has(Feature::SetRetval) {
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
    // map. Optional: left out where the kernel refuses tracing programs.
    if probe().has(Feature::SkStorageIterator) {
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
    let want = c2tcp_config_bytes(opts);
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
    let word = |i: usize| Some(u32::from_ne_bytes(v.get(i..i + 4)?.try_into().ok()?));
    Some(LoadOptions {
        default_target_us: word(0)?,
        default_variant: sockopt::Variant::from_raw(word(4).unwrap_or(0))?,
    })
}

/// The load-time default Target of the loaded c2tcp, in microseconds
/// (0: 2 x min RTT), or None when it is not loaded.
pub fn c2tcp_default_target_us() -> Option<u32> {
    c2tcp_load_options().map(|o| o.default_target_us)
}
