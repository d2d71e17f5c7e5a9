// SPDX-License-Identifier: GPL-2.0-only
//! Every kernel feature the project's BPF objects use whose presence varies
//! between the kernels people run, the first mainline kernel that has it,
//! what we do without it, and a probe of the running kernel for each.
//!
//! The probes run once per process ([`probe`]), and the form every object
//! is loaded in follows from them there, once: [`Probes::form`], a
//! `kernel_form::KernelForm`, which `KernelForm::apply` puts an opened
//! object in (a struct_ops map without `BPF_F_LINK`, the setsockopt program
//! without `bpf_set_retval`, NetAssist's pre-6.10 `cong_control`, C2TCP
//! without its iterator, Cubic's idle-restart hook of the kernel's
//! version). Which congestion control requires or adapts to which feature
//! is in its `cc::CcSpec`; `doctor.rs` prints the probes, and
//! `docs/kernels.md` holds the table (`kernel_tables.rs`, a test keeps the
//! two equal).
//!
//! Most probes read the kernel's BTF (a type, a member, an enum value, a
//! function's parameter count): they need no privileges and load nothing.
//! One cannot: whether the kernel *allows* tracing programs is a policy
//! (some hosts refuse `BPF_PROG_TYPE_TRACING` with EPERM before the verifier
//! runs), so that probe loads the smallest iterator program there is.
use std::ffi::CString;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::OnceLock;

use libbpf_rs::btf::types::{Composite, Enum, Func, FuncProto};
use libbpf_rs::btf::{Btf, ReferencesType};
use serde::{Serialize, Serializer};

use crate::kernel_form::{
    self, KernelForm, CUBIC_CWND_EVENT, CUBIC_CWND_EVENT_TX_START, KFUNCS, TCP_CONG_NEEDS_ACCECN,
    TCP_CONG_NEEDS_ECN,
};

/// A kernel feature some object or command needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// BPF struct_ops programs implementing `tcp_congestion_ops`.
    StructOps,
    /// The kernel's Cubic and Reno functions callable from struct_ops
    /// programs as kfuncs.
    TcpKfuncs,
    /// Struct_ops maps registered through a BPF link (`BPF_F_LINK`).
    StructOpsLink,
    /// cgroup setsockopt/getsockopt programs (the SOL_C2TCP option).
    CgroupSockopt,
    /// `bpf_set_retval` in cgroup sockopt programs.
    SetRetval,
    /// The iterator over socket-storage maps, and the host allowing tracing
    /// programs to load at all.
    SkStorageIterator,
    /// `tcp_sock.tcp_usec_ts`: connections with microsecond TCP timestamps.
    TcpUsecTs,
    /// `cong_control(sk, ack, flag, rs)`: the ACK's sequence and flags.
    CongControlAckFlag,
    /// `BPF_ENABLE_STATS`: the kernel times BPF programs (`c2tcp cost`).
    BpfStats,
    /// `tcp_congestion_ops.cwnd_event_tx_start` and Cubic's kfunc for it,
    /// which replaced `cubictcp_cwnd_event`.
    CwndEventTxStart,
    /// `TCP_CONG_NEEDS_ACCECN` in the kernel's `TCP_CONG_MASK`: a
    /// congestion control that negotiates Accurate ECN (RFC 9768).
    CongNeedsAccecn,
}

impl Feature {
    /// Its name in JSON, `C2TCP_ASSUME_REFUSED` and messages.
    pub fn key(self) -> &'static str {
        match self {
            Feature::StructOps => "struct_ops",
            Feature::TcpKfuncs => "tcp_kfuncs",
            Feature::StructOpsLink => "struct_ops_link",
            Feature::CgroupSockopt => "cgroup_sockopt",
            Feature::SetRetval => "set_retval",
            Feature::SkStorageIterator => "sk_storage_iterator",
            Feature::TcpUsecTs => "tcp_usec_ts",
            Feature::CongControlAckFlag => "cong_control_ack_flag",
            Feature::BpfStats => "bpf_stats",
            Feature::CwndEventTxStart => "cwnd_event_tx_start",
            Feature::CongNeedsAccecn => "cong_needs_accecn",
        }
    }
}

/// A mainline kernel release, `major.minor` (`5.13`; a string in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release(pub u32, pub u32);

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

impl Serialize for Release {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A feature's documentation: the first kernel and what we do without it.
#[derive(Debug, Serialize)]
pub struct FeatureInfo {
    pub feature: Feature,
    /// What it is, in a few words.
    pub what: &'static str,
    /// Its name in a list of what a congestion control needs.
    pub short: &'static str,
    /// The first mainline kernel that has it.
    pub first_kernel: Release,
    /// What it serves, beside the congestion controls whose `CcSpec` names
    /// it (who they are is derived from the list: `kernel_tables.rs`).
    pub used_for: &'static str,
    /// What c2tcp does on a kernel without it.
    pub without: &'static str,
    /// Whether something is lost without it (else an older form does the
    /// same: `doctor` warns only of losses).
    pub degrades: bool,
}

/// The table, in the order `docs/kernels.md` shows it.
pub static FEATURES: &[FeatureInfo] = &[
    FeatureInfo {
        feature: Feature::StructOps,
        what: "BPF struct_ops congestion controls (`tcp_congestion_ops`)",
        short: "struct_ops",
        first_kernel: Release(5, 6),
        used_for: "",
        without: "nothing loads; `doctor` names the missing program type",
        degrades: true,
    },
    FeatureInfo {
        feature: Feature::TcpKfuncs,
        what: "the kernel's Cubic and Reno functions as kfuncs to struct_ops programs",
        short: "kfuncs",
        first_kernel: Release(5, 13),
        used_for: "",
        without: "each of those is refused, naming the function the kernel lacks",
        degrades: true,
    },
    FeatureInfo {
        feature: Feature::StructOpsLink,
        what: "struct_ops maps registered through a BPF link (`BPF_F_LINK`)",
        short: "struct_ops links",
        first_kernel: Release(6, 4),
        used_for: "",
        without: "the map itself is registered and pinned; `unload` deletes its element, which unregisters it",
        degrades: false,
    },
    FeatureInfo {
        feature: Feature::CgroupSockopt,
        what: "cgroup setsockopt/getsockopt programs",
        short: "cgroup sockopt",
        first_kernel: Release(5, 3),
        used_for: "the SOL_C2TCP socket option",
        without: "c2tcp is refused",
        degrades: true,
    },
    FeatureInfo {
        feature: Feature::SetRetval,
        what: "`bpf_set_retval` in cgroup sockopt programs",
        short: "`bpf_set_retval`",
        first_kernel: Release(5, 18),
        used_for: "the socket option's errors",
        without: "a refused SOL_C2TCP value fails with EPERM instead of EINVAL or ENOPROTOOPT",
        degrades: true,
    },
    FeatureInfo {
        feature: Feature::SkStorageIterator,
        what: "an iterator over a socket-storage map (a tracing program), and a host that allows tracing programs",
        short: "the connections iterator",
        first_kernel: Release(5, 9),
        used_for: "its connections iterator, `c2tcp top`",
        without: "c2tcp loads without it; `top` says why it cannot run",
        degrades: true,
    },
    FeatureInfo {
        feature: Feature::TcpUsecTs,
        what: "`tcp_sock.tcp_usec_ts` (microsecond TCP timestamps)",
        short: "`tcp_usec_ts`",
        first_kernel: Release(6, 7),
        used_for: "the unit of its one-way delay",
        without: "every TCP timestamp is in milliseconds, which ledbat then assumes",
        degrades: false,
    },
    FeatureInfo {
        feature: Feature::CongControlAckFlag,
        what: "`cong_control(sk, ack, flag, rs)`",
        short: "the 4-argument `cong_control`",
        first_kernel: Release(6, 10),
        used_for: "",
        without: "their `<cc>_pre610` form: `cong_control(sk, rs)`, the ACK flags derived from the socket",
        degrades: false,
    },
    FeatureInfo {
        feature: Feature::BpfStats,
        what: "`BPF_ENABLE_STATS` (run time and count of BPF programs)",
        short: "`BPF_ENABLE_STATS`",
        first_kernel: Release(5, 8),
        used_for: "`c2tcp cost`",
        without: "`cost` cannot time the programs and says so",
        degrades: true,
    },
    FeatureInfo {
        feature: Feature::CwndEventTxStart,
        what: "`tcp_congestion_ops.cwnd_event_tx_start` and `cubictcp_cwnd_event_tx_start` (Cubic's restart after idle, out of `cwnd_event`)",
        short: "7.1's `cwnd_event_tx_start`",
        first_kernel: Release(7, 1),
        used_for: "Cubic's restart after idle; Vegas's, Compound's and BBRv3's own",
        without: "the restart after idle through `cwnd_event` and `cubictcp_cwnd_event`, as before 7.1",
        degrades: false,
    },
    FeatureInfo {
        feature: Feature::CongNeedsAccecn,
        what: "`TCP_CONG_NEEDS_ACCECN`: a congestion control that negotiates Accurate ECN (RFC 9768) on both ends (also in 6.18.y's stable backport)",
        short: "`TCP_CONG_NEEDS_ACCECN`",
        first_kernel: Release(7, 0),
        used_for: "its CE feedback: exact counts from the kernel",
        without: "classic ECN, each packet's CE echoed by Prague's receiver (`bpf/ce_echo.h`)",
        degrades: false,
    },
];

pub fn info(feature: Feature) -> &'static FeatureInfo {
    FEATURES
        .iter()
        .find(|f| f.feature == feature)
        .expect("every feature is in FEATURES")
}

/// What the running kernel says of a feature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", content = "detail", rename_all = "snake_case")]
pub enum Presence {
    Present,
    /// The kernel lacks it (too old, or built without it).
    Missing(String),
    /// The kernel has it but refuses it (a policy of this host).
    Refused(String),
    /// Could not be probed (e.g. the probe needs root).
    Unknown(String),
}

impl Presence {
    pub fn is_present(&self) -> bool {
        matches!(self, Presence::Present)
    }
}

/// Every feature's presence on the running kernel, and the form it takes
/// our objects in.
#[derive(Debug, Serialize)]
pub struct Probes {
    /// `uname -r`.
    pub kernel: String,
    pub features: Vec<(Feature, Presence)>,
    /// What the presences make of every object (`kernel_form.rs`).
    pub form: KernelForm,
}

impl Probes {
    pub fn presence(&self, f: Feature) -> &Presence {
        &self
            .features
            .iter()
            .find(|(g, _)| *g == f)
            .expect("every feature is probed")
            .1
    }

    pub fn has(&self, f: Feature) -> bool {
        self.presence(f).is_present()
    }
}

/// The running kernel's probes, taken once per process.
pub fn probe() -> &'static Probes {
    static PROBES: OnceLock<Probes> = OnceLock::new();
    PROBES.get_or_init(probe_now)
}

/// `C2TCP_ASSUME_REFUSED=sk_storage_iterator` (comma-separated feature
/// names) makes the probes report those features as refused by the host:
/// the tests use it to take the degraded paths on a host that refuses
/// nothing (the kernel matrix has a guest that really refuses them).
const ASSUME_REFUSED: &str = "C2TCP_ASSUME_REFUSED";

fn probe_now() -> Probes {
    let kernel = nix::sys::utsname::uname()
        .map(|u| u.release().to_string_lossy().into_owned())
        .unwrap_or_default();
    let btf = Btf::from_vmlinux().ok();
    let assumed: Vec<String> = std::env::var(ASSUME_REFUSED)
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
        .unwrap_or_default();
    let features: Vec<(Feature, Presence)> = FEATURES
        .iter()
        .map(|fi| {
            let f = fi.feature;
            let p = if assumed.iter().any(|a| a == f.key()) {
                Presence::Refused(format!("assumed refused ({ASSUME_REFUSED})"))
            } else {
                match &btf {
                    None => Presence::Unknown(
                        "no kernel BTF at /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)".into(),
                    ),
                    Some(btf) => probe_one(f, btf, &kernel),
                }
            };
            (f, p)
        })
        .collect();
    let has = |f: Feature| features.iter().any(|(g, p)| *g == f && p.is_present());
    let form = KernelForm {
        struct_ops_link: has(Feature::StructOpsLink),
        set_retval: has(Feature::SetRetval),
        iterators: has(Feature::SkStorageIterator),
        cong_control_ack_flag: has(Feature::CongControlAckFlag),
        cwnd_event_tx_start: has(Feature::CwndEventTxStart),
        accecn: has(Feature::CongNeedsAccecn),
        hz: kernel_form::kernel_hz(),
    };
    Probes {
        kernel,
        features,
        form,
    }
}

fn probe_one(f: Feature, btf: &Btf<'_>, kernel: &str) -> Presence {
    let missing = |what: &str| Presence::Missing(format!("the kernel's BTF has no {what}"));
    match f {
        Feature::StructOps => {
            if !enum_has(btf, "bpf_prog_type", "BPF_PROG_TYPE_STRUCT_OPS") {
                missing("BPF_PROG_TYPE_STRUCT_OPS")
            } else if btf
                .type_by_name::<Composite<'_>>("tcp_congestion_ops")
                .is_none()
            {
                missing("struct tcp_congestion_ops")
            } else {
                Presence::Present
            }
        }
        Feature::TcpKfuncs => {
            let has = |k: &str| btf.type_by_name::<Func<'_>>(k).is_some();
            let mut absent: Vec<String> = KFUNCS
                .iter()
                .filter(|k| !has(k))
                .map(|k| k.to_string())
                .collect();
            // One or the other, by kernel (CwndEventTxStart).
            if !has(CUBIC_CWND_EVENT) && !has(CUBIC_CWND_EVENT_TX_START) {
                absent.push(format!(
                    "{CUBIC_CWND_EVENT} (or 7.1's {CUBIC_CWND_EVENT_TX_START})"
                ));
            }
            let first = info(f).first_kernel;
            if !absent.is_empty() {
                Presence::Missing(format!(
                    "the kernel has no {} (built without CONFIG_TCP_CONG_CUBIC=y?)",
                    absent.join(", ")
                ))
            } else if release_at_least(kernel, first) == Some(false) {
                Presence::Missing(format!(
                    "Linux {kernel} does not export them as kfuncs ({first} and later do)"
                ))
            } else {
                Presence::Present
            }
        }
        // The link object struct_ops registrations became in 6.4.
        Feature::StructOpsLink => {
            if btf
                .type_by_name::<Composite<'_>>("bpf_struct_ops_link")
                .is_some()
            {
                Presence::Present
            } else {
                missing("struct bpf_struct_ops_link")
            }
        }
        Feature::CgroupSockopt => {
            if enum_has(btf, "bpf_attach_type", "BPF_CGROUP_SETSOCKOPT") {
                Presence::Present
            } else {
                missing("BPF_CGROUP_SETSOCKOPT")
            }
        }
        Feature::SetRetval => {
            if enum_has(btf, "bpf_func_id", "BPF_FUNC_set_retval") {
                Presence::Present
            } else {
                missing("BPF_FUNC_set_retval")
            }
        }
        Feature::SkStorageIterator => probe_iterator(btf),
        Feature::TcpUsecTs => {
            if struct_has(btf, "tcp_sock", "tcp_usec_ts") {
                Presence::Present
            } else {
                missing("tcp_sock.tcp_usec_ts")
            }
        }
        Feature::CongControlAckFlag => match cong_control_params(btf) {
            Some(4) => Presence::Present,
            Some(n) => Presence::Missing(format!(
                "tcp_congestion_ops.cong_control takes {n} arguments, not 4"
            )),
            None => missing("tcp_congestion_ops.cong_control"),
        },
        Feature::CwndEventTxStart => {
            if struct_has(btf, "tcp_congestion_ops", "cwnd_event_tx_start")
                && btf
                    .type_by_name::<Func<'_>>("cubictcp_cwnd_event_tx_start")
                    .is_some()
            {
                Presence::Present
            } else {
                missing("tcp_congestion_ops.cwnd_event_tx_start")
            }
        }
        Feature::CongNeedsAccecn => probe_accecn(btf),
        Feature::BpfStats => {
            if enum_has(btf, "bpf_stats_type", "BPF_STATS_RUN_TIME") {
                Presence::Present
            } else {
                missing("BPF_STATS_RUN_TIME")
            }
        }
    }
}

fn enum_has(btf: &Btf<'_>, ty: &str, value: &str) -> bool {
    btf.type_by_name::<Enum<'_>>(ty).is_some_and(|e| {
        e.iter()
            .any(|m| m.name.is_some_and(|n| n.to_string_lossy() == value))
    })
}

fn struct_has(btf: &Btf<'_>, ty: &str, member: &str) -> bool {
    btf.type_by_name::<Composite<'_>>(ty).is_some_and(|s| {
        s.iter()
            .any(|m| m.name.is_some_and(|n| n.to_string_lossy() == member))
    })
}

/// How many parameters the kernel's `cong_control` hook takes.
fn cong_control_params(btf: &Btf<'_>) -> Option<usize> {
    let ops = btf.type_by_name::<Composite<'_>>("tcp_congestion_ops")?;
    let member = ops.iter().find(|m| {
        m.name
            .is_some_and(|n| n.to_string_lossy() == "cong_control")
    })?;
    // A pointer to a function prototype.
    let ptr = btf.type_by_id::<libbpf_rs::btf::types::Ptr<'_>>(member.ty)?;
    let proto = FuncProto::try_from(ptr.referenced_type().skip_mods_and_typedefs()).ok()?;
    Some(proto.len())
}

/// Whether `uname -r` (e.g. `6.1.0-50-amd64`) is at least `want`; None when
/// it does not parse.
pub fn release_at_least(release: &str, want: Release) -> Option<bool> {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = parts.next()?.parse().ok()?;
    Some(Release(major, minor) >= want)
}

/// Loads the smallest iterator over socket-storage maps (`r0 = 0; exit`)
/// and closes it at once: the only way to know whether this host lets
/// tracing programs load.
fn probe_iterator(btf: &Btf<'_>) -> Presence {
    let Some(target) = btf.type_by_name::<Func<'_>>("bpf_iter_bpf_sk_storage_map") else {
        return Presence::Missing(
            "the kernel's BTF has no bpf_iter_bpf_sk_storage_map (iterators over socket storage: 5.9)"
                .into(),
        );
    };
    if !crate::sys::is_root() {
        return Presence::Unknown("loading a program to find out needs root".into());
    }
    // BPF_MOV64_IMM(BPF_REG_0, 0); BPF_EXIT_INSN()
    let insns = [
        libbpf_rs::libbpf_sys::bpf_insn {
            code: 0xb7,
            _bitfield_align_1: [],
            _bitfield_1: libbpf_rs::libbpf_sys::bpf_insn::new_bitfield_1(0, 0),
            off: 0,
            imm: 0,
        },
        libbpf_rs::libbpf_sys::bpf_insn {
            code: 0x95,
            _bitfield_align_1: [],
            _bitfield_1: libbpf_rs::libbpf_sys::bpf_insn::new_bitfield_1(0, 0),
            off: 0,
            imm: 0,
        },
    ];
    let opts = libbpf_rs::libbpf_sys::bpf_prog_load_opts {
        sz: std::mem::size_of::<libbpf_rs::libbpf_sys::bpf_prog_load_opts>() as _,
        expected_attach_type: libbpf_rs::libbpf_sys::BPF_TRACE_ITER,
        attach_btf_id: target.type_id().into(),
        ..Default::default()
    };
    let mut opts = opts;
    let name = CString::new("c2tcp_probe").unwrap();
    let license = CString::new("GPL").unwrap();
    // SAFETY: the instructions, name, licence and options outlive the call;
    // a non-negative return is a descriptor the kernel just gave us.
    let fd = unsafe {
        libbpf_rs::libbpf_sys::bpf_prog_load(
            libbpf_rs::libbpf_sys::BPF_PROG_TYPE_TRACING,
            name.as_ptr(),
            license.as_ptr(),
            insns.as_ptr(),
            insns.len() as _,
            &mut opts,
        )
    };
    if fd >= 0 {
        // SAFETY: see above; dropping it closes the program.
        drop(unsafe { OwnedFd::from_raw_fd(fd) });
        return Presence::Present;
    }
    let errno = -fd;
    match errno {
        libc::EPERM | libc::EACCES => Presence::Refused(format!(
            "the kernel refuses tracing programs ({}) before its verifier runs: a policy of this host",
            crate::explain::errno_words(errno)
        )),
        _ => Presence::Missing(format!(
            "the kernel would not load an iterator program: {}",
            crate::explain::errno_words(errno)
        )),
    }
}

/// Whether the kernel takes `TCP_CONG_NEEDS_ACCECN` in a congestion
/// control's flags. No type or symbol tells (the flag is a #define, and
/// 6.18.y took it in a stable release: its BTF is the same either way), so
/// it asks the kernel: bpf_tcp_ca's `init_member` refuses flags outside
/// `TCP_CONG_MASK` with EINVAL when a struct_ops map's value is written.
/// The probe writes one, with the flag, into a `BPF_F_LINK` map, where the
/// write only checks (registration is the link's, never made here), its
/// required members three two-instruction programs; then the same without
/// the flag, so that a refusal for another reason is not taken for the
/// flag's, and first one with BIT(31), which must be refused (else the
/// probe could not tell). Everything is closed on return: nothing is
/// registered.
fn probe_accecn(btf: &Btf<'_>) -> Presence {
    if btf
        .type_by_name::<Composite<'_>>("bpf_struct_ops_link")
        .is_none()
    {
        return Presence::Missing(
            "no struct_ops links (6.4), so no probe without registering; AccECN came later (7.0)"
                .into(),
        );
    }
    if !crate::sys::is_root() {
        return Presence::Unknown("loading a program to find out needs root".into());
    }
    // A flag no kernel has: refused, or the probe cannot tell.
    if write_tcp_ca_flags(btf, TCP_CONG_NEEDS_ECN | 1 << 31).is_ok() {
        return Presence::Unknown(
            "the kernel took a congestion-control flag it cannot know (BIT(31)): flags are not checked"
                .into(),
        );
    }
    match (
        write_tcp_ca_flags(btf, TCP_CONG_NEEDS_ECN | TCP_CONG_NEEDS_ACCECN),
        write_tcp_ca_flags(btf, TCP_CONG_NEEDS_ECN),
    ) {
        (Ok(()), _) => Presence::Present,
        (Err(libc::EINVAL), Ok(())) => Presence::Missing(
            "the kernel refuses TCP_CONG_NEEDS_ACCECN in a congestion control's flags (not in its TCP_CONG_MASK)"
                .into(),
        ),
        (Err(e), Ok(())) => Presence::Unknown(format!(
            "writing a struct_ops with the flag failed: {}",
            crate::explain::errno_words(e)
        )),
        (_, Err(e)) => Presence::Unknown(format!(
            "the probe's struct_ops was refused even without the flag: {}",
            crate::explain::errno_words(e)
        )),
    }
}

/// Creates a `BPF_F_LINK` struct_ops map of `tcp_congestion_ops` and
/// writes its value: `ssthresh`, `undo_cwnd` and `cong_avoid` (what
/// `tcp_validate_congestion_control` requires) as trivial programs, a name,
/// `flags`. Returns the errno of the first refusal.
fn write_tcp_ca_flags(btf: &Btf<'_>, flags: u32) -> Result<(), i32> {
    use libbpf_rs::btf::types::MemberAttr;
    use libbpf_rs::libbpf_sys as sys;

    let ops = btf
        .type_by_name::<Composite<'_>>("tcp_congestion_ops")
        .ok_or(libc::ENOENT)?;
    let value = btf
        .type_by_name::<Composite<'_>>("bpf_struct_ops_tcp_congestion_ops")
        .ok_or(libc::ENOENT)?;
    let offset_in = |s: &Composite<'_>, name: &str| {
        s.iter().enumerate().find_map(|(i, m)| match m.attr {
            MemberAttr::Normal { offset }
                if m.name.is_some_and(|n| n.to_string_lossy() == name) =>
            {
                Some((i, offset as usize / 8))
            }
            _ => None,
        })
    };
    let (_, data) = offset_in(&value, "data").ok_or(libc::ENOENT)?;
    let size = btf
        .type_by_name::<libbpf_rs::btf::types::Struct<'_>>("bpf_struct_ops_tcp_congestion_ops")
        .map(|s| libbpf_rs::btf::HasSize::size(&s))
        .ok_or(libc::ENOENT)?;
    let mut buf = vec![0u8; size];
    let mut progs = Vec::new();
    for (member, ret) in [("ssthresh", 2), ("undo_cwnd", 2), ("cong_avoid", 0)] {
        let (index, at) = offset_in(&ops, member).ok_or(libc::ENOENT)?;
        // BPF_MOV64_IMM(BPF_REG_0, ret); BPF_EXIT_INSN()
        let insns = [
            sys::bpf_insn {
                code: 0xb7,
                _bitfield_align_1: [],
                _bitfield_1: sys::bpf_insn::new_bitfield_1(0, 0),
                off: 0,
                imm: ret,
            },
            sys::bpf_insn {
                code: 0x95,
                _bitfield_align_1: [],
                _bitfield_1: sys::bpf_insn::new_bitfield_1(0, 0),
                off: 0,
                imm: 0,
            },
        ];
        let mut opts = sys::bpf_prog_load_opts {
            sz: std::mem::size_of::<sys::bpf_prog_load_opts>() as _,
            expected_attach_type: index as _,
            attach_btf_id: ops.type_id().into(),
            ..Default::default()
        };
        let name = CString::new("c2tcp_probe").unwrap();
        let license = CString::new("GPL").unwrap();
        // SAFETY: as in probe_iterator.
        let fd = unsafe {
            sys::bpf_prog_load(
                sys::BPF_PROG_TYPE_STRUCT_OPS,
                name.as_ptr(),
                license.as_ptr(),
                insns.as_ptr(),
                insns.len() as _,
                &mut opts,
            )
        };
        if fd < 0 {
            return Err(-fd);
        }
        // SAFETY: a descriptor the kernel just gave us; closed on return.
        progs.push(unsafe { OwnedFd::from_raw_fd(fd) });
        buf[data + at..data + at + 8].copy_from_slice(&(fd as u64).to_ne_bytes());
    }
    let (_, name_at) = offset_in(&ops, "name").ok_or(libc::ENOENT)?;
    let probe_name = b"c2tcp_probe";
    buf[data + name_at..data + name_at + probe_name.len()].copy_from_slice(probe_name);
    let (_, flags_at) = offset_in(&ops, "flags").ok_or(libc::ENOENT)?;
    buf[data + flags_at..data + flags_at + 4].copy_from_slice(&flags.to_ne_bytes());

    // The kernel wants a BTF of the map's own (the one an object brings)
    // even for a kernel struct's value: one `int` is enough.
    // SAFETY: libbpf's own constructor; freed below, after the map is made.
    let own = unsafe { sys::btf__new_empty() };
    if own.is_null() {
        return Err(libc::ENOMEM);
    }
    let int = CString::new("int").unwrap();
    // SAFETY: `own` is a valid BTF; the name outlives the calls.
    let btf_fd = unsafe {
        sys::btf__add_int(own, int.as_ptr(), 4, sys::BTF_INT_SIGNED as _);
        match sys::btf__load_into_kernel(own) {
            0 => sys::btf__fd(own),
            e => e,
        }
    };
    if btf_fd < 0 {
        // SAFETY: made above, not used after.
        unsafe { sys::btf__free(own) };
        return Err(-btf_fd);
    }
    let opts = sys::bpf_map_create_opts {
        sz: std::mem::size_of::<sys::bpf_map_create_opts>() as _,
        btf_fd: btf_fd as _,
        btf_vmlinux_value_type_id: value.type_id().into(),
        map_flags: sys::BPF_F_LINK,
        ..Default::default()
    };
    let name = CString::new("c2tcp_probe").unwrap();
    // SAFETY: the name and options outlive the call.
    let map = unsafe {
        sys::bpf_map_create(
            sys::BPF_MAP_TYPE_STRUCT_OPS,
            name.as_ptr(),
            4,
            buf.len() as _,
            1,
            &opts,
        )
    };
    // SAFETY: the map holds its own reference to the BTF; this closes ours.
    unsafe { sys::btf__free(own) };
    if map < 0 {
        return Err(-map);
    }
    // SAFETY: see above.
    let map = unsafe { OwnedFd::from_raw_fd(map) };
    let key = 0u32;
    // SAFETY: the key and the value are the sizes the map was made with.
    let r = unsafe {
        sys::bpf_map_update_elem(
            std::os::fd::AsRawFd::as_raw_fd(&map),
            (&key as *const u32).cast(),
            buf.as_ptr().cast(),
            0,
        )
    };
    drop(map);
    drop(progs);
    if r < 0 {
        Err(-r)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_compare_by_major_and_minor() {
        assert_eq!(
            release_at_least("6.1.0-50-amd64", Release(5, 13)),
            Some(true)
        );
        assert_eq!(
            release_at_least("5.10.0-30-amd64", Release(5, 13)),
            Some(false)
        );
        assert_eq!(
            release_at_least("7.2.13+deb14-amd64", Release(6, 10)),
            Some(true)
        );
        assert_eq!(release_at_least("6.9", Release(6, 10)), Some(false));
        assert_eq!(release_at_least("garbage", Release(6, 10)), None);
        assert_eq!(Release(5, 13).to_string(), "5.13");
        assert!(Release(5, 9) < Release(5, 13) && Release(6, 10) < Release(7, 1));
    }

    #[test]
    fn every_feature_is_documented_once() {
        for f in FEATURES {
            assert_eq!(
                FEATURES.iter().filter(|g| g.feature == f.feature).count(),
                1,
                "{:?}",
                f.feature
            );
        }
    }

    /// On the kernel these tests run on, the BTF probes agree with its
    /// version (a kernel at or above a feature's first version has it).
    #[test]
    fn btf_probes_agree_with_the_running_kernel() {
        let p = probe();
        if Btf::from_vmlinux().is_err() {
            eprintln!("skipping: no kernel BTF");
            return;
        }
        for fi in FEATURES {
            if fi.feature == Feature::SkStorageIterator {
                continue; // a policy too, not only a version
            }
            if release_at_least(&p.kernel, fi.first_kernel) == Some(true) {
                assert!(
                    p.has(fi.feature) || std::env::var_os(ASSUME_REFUSED).is_some(),
                    "{:?} should be present on {}: {:?}",
                    fi.feature,
                    p.kernel,
                    p.presence(fi.feature)
                );
            }
        }
    }
}
