// SPDX-License-Identifier: GPL-2.0-only
//! The project's BPF congestion controls, and how each is loaded.
//!
//! A congestion control is registered through a struct_ops *link*, pinned in
//! bpffs so it survives this process; cgroup programs (c2tcp's socket option)
//! are attached to the cgroup-v2 root through links pinned beside it. Unloading
//! removes the pins: the kernel then drops the links, unregisters the
//! congestion control and detaches the programs. Sockets already using it keep
//! their reference and finish normally.
use std::fs::{self, File};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use libbpf_rs::skel::{OpenSkel, SkelBuilder};
use libbpf_rs::{MapCore, MapFlags, MapHandle};

use crate::leftovers;
use crate::skel::c2tcp::C2tcpSkelBuilder;
use crate::sys::{self, ops_pin};

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
    /// Loads the object, attaches and pins everything into the directory.
    attach: fn(&LoadOptions, &Path) -> Result<()>,
    /// Applies new options to a loaded instance; returns whether they changed.
    reconfigure: fn(&LoadOptions, &Path) -> Result<bool>,
}

pub static CCS: &[CcSpec] = &[
    CcSpec {
        name: "c2tcp",
        summary: "C2TCP over the kernel's Cubic, with the SOL_C2TCP socket option",
        attach: attach_c2tcp,
        reconfigure: reconfigure_c2tcp,
    },
    CcSpec {
        name: "westwood",
        summary: "TCP Westwood+ (bandwidth estimate, ssthresh = BWE x RTTmin)",
        attach: attach_westwood,
        reconfigure: no_options,
    },
    CcSpec {
        name: "vegas",
        summary: "TCP Vegas (alpha 2, beta 4, gamma 1 packets)",
        attach: attach_vegas,
        reconfigure: no_options,
    },
    CcSpec {
        name: "vivace",
        summary: "PCC Vivace (rate-based, paced: gradient ascent on u = x^0.9 - 900 x dRTT/dT - 11.35 x L)",
        attach: attach_vivace,
        reconfigure: no_options,
    },
    CcSpec {
        name: "ledbat",
        summary: "LEDBAT (RFC 6817): one-way delay from TCP timestamps against a 10-minute base history, 100 ms target, gain 1",
        attach: attach_ledbat,
        reconfigure: no_options,
    },
    CcSpec {
        name: "compound",
        summary: "Compound TCP: Reno loss window + delay window (alpha 1/8, k 3/4, gamma 30 packets)",
        attach: attach_compound,
        reconfigure: no_options,
    },
    CcSpec {
        name: "abc",
        summary: "ABC's sender (NSDI'20): cwnd +1 per accelerate (ECT) ACKed, -1 per brake (CE), paced; Reno halving on loss",
        attach: attach_abc,
        reconfigure: no_options,
    },
    CcSpec {
        name: "prague",
        summary: "TCP Prague (L4S): DCTCP-style alpha from the CE fraction per RTT, cwnd x (1 - alpha/2) on CE, paced; Reno halving on loss",
        attach: attach_prague,
        reconfigure: no_options,
    },
    CcSpec {
        name: "natcp",
        summary: "NATCP: cwnd = 2 x minRTT x bandwidth / flows from NetAssist feedback, paced; Cubic without feedback",
        attach: crate::netassist::attach_natcp,
        reconfigure: no_options,
    },
    CcSpec {
        name: "nacubic",
        summary: "NACubic: Cubic with cwnd capped by NetAssist feedback (eq. 1), paced; Cubic without feedback",
        attach: crate::netassist::attach_nacubic,
        reconfigure: no_options,
    },
    CcSpec {
        name: "tg",
        summary: "TG (throughput guidance): cwnd = NetAssist bandwidth x own smoothed RTT, paced; Cubic without feedback",
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
    ops_pin(&sys::pin_dir(cc.name)).exists() && sys::is_registered(cc.name)
}

/// Loads the congestion controls (all when `names` is empty). Idempotent:
/// a loaded one is reconfigured, a half-loaded or foreign-registered one is
/// cleaned up and loaded afresh. Callers hold the exclusive [`BpfLock`].
///
/// [`BpfLock`]: crate::lock::BpfLock
pub fn load(names: &[String], opts: &LoadOptions) -> Result<Vec<(&'static str, LoadOutcome)>> {
    sys::require_root("c2tcp load")?;
    let specs = select(names)?;
    sys::ensure_bpffs()?;
    let mut done = Vec::new();
    for cc in specs {
        done.push((cc.name, load_one(cc, opts)?));
    }
    Ok(done)
}

fn load_one(cc: &CcSpec, opts: &LoadOptions) -> Result<LoadOutcome> {
    let dir = sys::pin_dir(cc.name);
    if is_loaded(cc) {
        let reconfigured = (cc.reconfigure)(opts, &dir)
            .with_context(|| format!("reconfiguring the loaded {}", cc.name))?;
        return Ok(LoadOutcome::AlreadyLoaded { reconfigured });
    }
    // Half-loaded (a crash between steps) or registered by someone else.
    remove_pins(&dir)?;
    if sys::is_registered(cc.name) {
        leftovers::unregister(cc.name)?;
    }
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    if let Err(e) = (cc.attach)(opts, &dir) {
        let _ = remove_pins(&dir);
        return Err(e.context(format!("loading {}", cc.name)));
    }
    if !sys::is_registered(cc.name) {
        let _ = remove_pins(&dir);
        bail!(
            "{} was attached but the kernel does not list it as available",
            cc.name
        );
    }
    Ok(LoadOutcome::Loaded)
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

fn release_pin_root() {
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

/// Loads a skeleton whose only job is one struct_ops map, registers it and
/// pins the link as `ops`.
macro_rules! attach_struct_ops_only {
    ($fn_name:ident, $builder:path, $map:ident) => {
        fn $fn_name(_opts: &LoadOptions, dir: &Path) -> Result<()> {
            let mut storage = MaybeUninit::uninit();
            let open = <$builder>::default()
                .open(&mut storage)
                .context("opening the BPF object")?;
            let mut skel = open
                .load()
                .context("the kernel's verifier rejected the programs")?;
            let mut ops = skel
                .maps
                .$map
                .attach_struct_ops()
                .context("registering the congestion control")?;
            ops.pin(ops_pin(dir))
                .context("pinning the struct_ops link")?;
            Ok(())
        }
    };
}

attach_struct_ops_only!(
    attach_westwood,
    crate::skel::westwood::WestwoodSkelBuilder,
    westwood
);
attach_struct_ops_only!(attach_vegas, crate::skel::vegas::VegasSkelBuilder, vegas);
attach_struct_ops_only!(
    attach_vivace,
    crate::skel::vivace::VivaceSkelBuilder,
    vivace
);

attach_struct_ops_only!(
    attach_ledbat,
    crate::skel::ledbat::LedbatSkelBuilder,
    ledbat
);
attach_struct_ops_only!(
    attach_compound,
    crate::skel::compound::CompoundSkelBuilder,
    compound
);
attach_struct_ops_only!(attach_abc, crate::skel::abc::AbcSkelBuilder, abc);
attach_struct_ops_only!(
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

fn attach_c2tcp(opts: &LoadOptions, dir: &Path) -> Result<()> {
    let mut storage = MaybeUninit::uninit();
    let open = C2tcpSkelBuilder::default()
        .open(&mut storage)
        .context("opening the BPF object")?;
    let mut skel = open
        .load()
        .context("the kernel's verifier rejected the programs")?;

    let key = 0u32.to_ne_bytes();
    skel.maps
        .c2tcp_config_map
        .update(&key, &c2tcp_config_bytes(opts), MapFlags::ANY)
        .context("writing the configuration map")?;
    skel.maps
        .c2tcp_config_map
        .pin(dir.join("config"))
        .context("pinning the configuration map")?;

    let mut ops = skel
        .maps
        .c2tcp
        .attach_struct_ops()
        .context("registering the congestion control")?;
    ops.pin(ops_pin(dir))
        .context("pinning the struct_ops link")?;

    let cgroup_path = sys::cgroup2_root()?;
    let cgroup =
        File::open(&cgroup_path).with_context(|| format!("opening {}", cgroup_path.display()))?;
    let mut set = skel
        .progs
        .c2tcp_setsockopt
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

    // `c2tcp top` reads this pinned iterator: each read walks the storage map.
    let mut iter = skel
        .progs
        .c2tcp_connections
        .attach_iter(skel.maps.c2tcp_sk_map.as_fd())
        .context("attaching the connections iterator")?;
    iter.pin(dir.join(crate::connections::ITER_PIN))
        .context("pinning the connections iterator")?;
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
