// SPDX-License-Identifier: GPL-2.0-only
//! What the kernel refused, in words.
//!
//! A BPF object can fail to load for reasons that have nothing to do with
//! the verifier: a map flag the kernel does not know (EINVAL at map
//! creation), a program type the host refuses (EPERM before the verifier
//! looks at an instruction), a kfunc or BTF field the kernel lacks (libbpf
//! stops before loading), a hook with fewer arguments than the program
//! reads. libbpf says which in its log, not in the error it returns, so
//! [`load`] captures that log while an object loads and [`explain`] turns
//! it into one sentence naming the kernel's own error. "The verifier
//! rejected" is said only when a verifier log shows it ran.
use std::sync::{Mutex, OnceLock};

use anyhow::anyhow;
use libbpf_rs::PrintLevel;

/// The helper number libbpf writes over an instruction whose CO-RE
/// relocation failed (a field or type this kernel's BTF lacks): 0xbad2310,
/// "bad relo" (libbpf's `bpf_core_poison_insn`, src/relo_core.c). When the
/// instruction is reachable the verifier refuses it as `invalid func
/// unknown#195896080`, and libbpf's log names the relocation beside it.
const POISONED_CORE_RELO: u32 = 0xbad2310;

/// The lines libbpf printed while a capture was open (None: not capturing).
static CAPTURED: Mutex<Option<Vec<String>>> = Mutex::new(None);
/// One capture at a time (libbpf's print callback is process-wide).
static CAPTURE: Mutex<()> = Mutex::new(());

fn print(level: PrintLevel, msg: String) {
    let mut captured = CAPTURED.lock().unwrap_or_else(|e| e.into_inner());
    match captured.as_mut() {
        Some(lines) => lines.extend(msg.lines().map(str::to_string)),
        // Outside our loads only warnings reach the user, as before.
        None if level == PrintLevel::Warn => eprint!("{msg}"),
        None => {}
    }
}

fn install() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        libbpf_rs::set_print(Some((PrintLevel::Info, print)));
    });
}

/// Runs `f` (a libbpf object load) with libbpf's log captured; returns its
/// result and what libbpf printed.
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    install();
    let _one = CAPTURE.lock().unwrap_or_else(|e| e.into_inner());
    *CAPTURED.lock().unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
    let r = f();
    let lines = CAPTURED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .unwrap_or_default();
    (r, lines)
}

/// Loads `what` through `f`; on failure the error says what the kernel
/// refused ([`explain`]), and `C2TCP_DEBUG_BPF=1` prints libbpf's whole log.
pub fn load<T>(what: &str, f: impl FnOnce() -> libbpf_rs::Result<T>) -> anyhow::Result<T> {
    let (r, log) = capture(f);
    r.map_err(|e| {
        if std::env::var_os("C2TCP_DEBUG_BPF").is_some() {
            eprintln!("libbpf's log while loading {what}:\n{}", log.join("\n"));
        }
        anyhow!("{}", explain(&log, &e.to_string()))
    })
}

/// An errno as the kernel's name and its meaning: `EPERM (operation not
/// permitted)`.
pub fn errno_words(errno: i32) -> String {
    let name = match errno {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::E2BIG => "E2BIG",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
        libc::EEXIST => "EEXIST",
        libc::EINVAL => "EINVAL",
        libc::ENOSPC => "ENOSPC",
        libc::ENOMEM => "ENOMEM",
        libc::ESRCH => "ESRCH",
        libc::ENOTSUP => "EOPNOTSUPP",
        524 => return "ENOTSUPP (the kernel does not support this operation here)".into(),
        _ => "",
    };
    let meaning = nix::errno::Errno::from_raw(errno).desc().to_lowercase();
    if name.is_empty() {
        format!("errno {errno} ({meaning})")
    } else {
        format!("{name} ({meaning})")
    }
}

/// `-EINVAL`, `-524`, `Operation not permitted` ... as an errno.
fn parse_errno(s: &str) -> Option<i32> {
    let s = s.trim().trim_end_matches('.');
    let names = [
        ("EPERM", libc::EPERM),
        ("ENOENT", libc::ENOENT),
        ("E2BIG", libc::E2BIG),
        ("EACCES", libc::EACCES),
        ("EINVAL", libc::EINVAL),
        ("ENOSPC", libc::ENOSPC),
        ("ENOMEM", libc::ENOMEM),
        ("ESRCH", libc::ESRCH),
        ("EBUSY", libc::EBUSY),
        ("EOPNOTSUPP", libc::ENOTSUP),
        ("ENOTSUPP", 524),
        ("Operation not permitted", libc::EPERM),
        ("Invalid argument", libc::EINVAL),
        ("Permission denied", libc::EACCES),
    ];
    let t = s.trim_start_matches('-');
    if let Ok(n) = t.parse::<i32>() {
        return Some(n);
    }
    names
        .iter()
        .find(|(n, _)| t.starts_with(n) || s.contains(n))
        .map(|(_, e)| *e)
}

/// The text after `marker` on the first line holding it.
fn after<'a>(lines: &'a [String], marker: &str) -> Option<(&'a str, &'a str)> {
    lines.iter().find_map(|l| {
        let i = l.find(marker)?;
        Some((l.as_str(), &l[i + marker.len()..]))
    })
}

/// A quoted name: `map 'c2tcp': ...` -> `c2tcp`.
fn quoted_after<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let i = line.find(prefix)? + prefix.len();
    let rest = &line[i..];
    let rest = rest.strip_prefix('\'')?;
    rest.split('\'').next()
}

/// The verifier's log lines (between libbpf's BEGIN/END markers).
fn verifier_log(lines: &[String]) -> Vec<&str> {
    let mut inside = false;
    let mut out = Vec::new();
    for l in lines {
        if l.contains("-- BEGIN PROG LOAD LOG --") {
            inside = true;
        } else if l.contains("-- END PROG LOAD LOG --") {
            inside = false;
        } else if inside && !l.trim().is_empty() {
            out.push(l.as_str());
        }
    }
    out
}

/// One sentence naming what the kernel refused, from libbpf's log of a
/// failed load (`error` is libbpf's returned error, the fallback).
pub fn explain(lines: &[String], error: &str) -> String {
    // A kernel config libbpf needed and could not find.
    if lines
        .iter()
        .any(|l| l.contains("failed to open system Kconfig"))
    {
        return "libbpf could not find the kernel's config (it looks in /boot/config-$(uname -r) and /proc/config.gz)".into();
    }
    // Missing kfuncs and helpers: libbpf stops before the kernel sees anything.
    if let Some((line, _)) = after(lines, "(func ksym)") {
        let name = quoted_after(line, "(func ksym) ").unwrap_or("?");
        return format!(
            "the kernel has no kfunc `{name}` (libbpf stopped before loading anything)"
        );
    }
    // A struct_ops member the kernel lacks and the object sets (libbpf's
    // warning); one it leaves unset is only skipped (an info line), and
    // says nothing of why a load failed.
    if let Some(line) = lines.iter().find(|l| {
        l.contains("Cannot find member")
            || (l.contains("member ")
                && l.contains("not found in kernel")
                && !l.contains("skipping"))
    }) {
        return format!(
            "the kernel's struct_ops type lacks a member the object sets ({})",
            line.trim_start_matches("libbpf: ").trim()
        );
    }
    // A map the kernel would not create.
    if let Some((line, rest)) = after(lines, "failed to create:") {
        let map = quoted_after(line, "map ").unwrap_or("?");
        let e = parse_errno(rest).unwrap_or(libc::EINVAL);
        let why = if e == libc::EINVAL {
            ": a map type or flag this kernel does not know (struct_ops links, BPF_F_LINK, need 6.4)"
        } else {
            ""
        };
        return format!(
            "the kernel refused to create map `{map}` with {}{why}; the verifier never ran",
            errno_words(e)
        );
    }
    // A program the kernel refused: before the verifier, or by it.
    if let Some((line, rest)) = after(lines, "BPF program load failed:") {
        let prog = quoted_after(line, "prog ").unwrap_or("?");
        let e = parse_errno(rest);
        let log = verifier_log(lines);
        if let Some(arg) = log.iter().find(|l| l.contains("-th argument")) {
            return format!(
                "the kernel's hook has fewer arguments than program `{prog}` reads ({})",
                arg.trim()
            );
        }
        if log
            .iter()
            .any(|l| l.contains(&format!("invalid func unknown#{POISONED_CORE_RELO}")))
            || lines
                .iter()
                .any(|l| l.contains("failed to resolve CO-RE relocation"))
        {
            let field = lines
                .iter()
                .find(|l| l.contains("failed to resolve CO-RE relocation"))
                .map(|l| l.trim_start_matches("libbpf: ").trim().to_string())
                .unwrap_or_default();
            return format!(
                "program `{prog}` reads a kernel field or type this kernel's BTF lacks {field}"
            );
        }
        if log.is_empty() {
            let words = e
                .map(errno_words)
                .unwrap_or_else(|| rest.trim().to_string());
            let hint = match e {
                Some(libc::EPERM) | Some(libc::EACCES) => {
                    ": the host does not allow this program type (a policy, not the program)"
                }
                Some(524) => ": the kernel does not support this program's attach point",
                _ => "",
            };
            return format!(
                "the kernel refused to load program `{prog}` with {words} before its verifier ran{hint}"
            );
        }
        let last = log
            .iter()
            .rev()
            .find(|l| !l.starts_with("processed ") && !l.starts_with("verification time"))
            .copied()
            .unwrap_or("");
        return format!("the verifier rejected program `{prog}`: {}", last.trim());
    }
    format!("libbpf: {error}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    #[test]
    fn a_map_flag_the_kernel_does_not_know_is_not_the_verifier() {
        let e = explain(
            &log("libbpf: map 'c2tcp': failed to create: -EINVAL\nlibbpf: failed to load object 'c2tcp_bpf'"),
            "Invalid argument (os error 22)",
        );
        assert!(e.contains("refused to create map `c2tcp`"), "{e}");
        assert!(e.contains("EINVAL"), "{e}");
        assert!(e.contains("never ran"), "{e}");
        assert!(!e.contains("verifier rejected"), "{e}");
    }

    #[test]
    fn eperm_before_the_verifier_names_the_policy() {
        let e = explain(
            &log("libbpf: prog 'c2tcp_connections': BPF program load failed: -EPERM\nlibbpf: failed to load object 'c2tcp_bpf'"),
            "Operation not permitted (os error 1)",
        );
        assert!(e.contains("`c2tcp_connections`"), "{e}");
        assert!(e.contains("EPERM"), "{e}");
        assert!(e.contains("before its verifier ran"), "{e}");
        let e = explain(
            &log("libbpf: prog 'x': BPF program load failed: Operation not permitted"),
            "",
        );
        assert!(e.contains("EPERM"), "{e}");
    }

    #[test]
    fn a_verifier_log_means_the_verifier_ran() {
        let e = explain(
            &log("libbpf: prog 'natcp_cong_control': BPF program load failed: -EACCES\nlibbpf: prog 'natcp_cong_control': -- BEGIN PROG LOAD LOG --\n0: R1=ctx() R10=fp0\n; x\n1: (79) r6 = *(u64 *)(r1 +24)\nfunc 'cong_control' doesn't have 4-th argument\ninvalid bpf_context access off=24 size=8\nprocessed 2 insns\n-- END PROG LOAD LOG --"),
            "",
        );
        assert!(e.contains("fewer arguments"), "{e}");
        assert!(e.contains("4-th argument"), "{e}");
        let e = explain(
            &log("libbpf: prog 'p': BPF program load failed: -EACCES\nlibbpf: prog 'p': -- BEGIN PROG LOAD LOG --\n0: R1=ctx()\nR2 invalid mem access 'scalar'\nprocessed 9 insns (limit 1000000)\n-- END PROG LOAD LOG --"),
            "",
        );
        assert_eq!(
            e,
            "the verifier rejected program `p`: R2 invalid mem access 'scalar'"
        );
    }

    #[test]
    fn missing_kfuncs_fields_and_config_are_named() {
        let e = explain(
            &log("libbpf: extern (func ksym) 'cubictcp_cwnd_event': not found in kernel or module BTFs"),
            "",
        );
        assert!(e.contains("no kfunc `cubictcp_cwnd_event`"), "{e}");
        let e = explain(&log("libbpf: failed to open system Kconfig"), "");
        assert!(e.contains("kernel's config"), "{e}");
        let e = explain(
            &log("libbpf: prog 'ledbat_pkts_acked': BPF program load failed: -EINVAL\nlibbpf: prog 'ledbat_pkts_acked': -- BEGIN PROG LOAD LOG --\n12: (85) call unknown#195896080\ninvalid func unknown#195896080\n-- END PROG LOAD LOG --\nlibbpf: prog 'ledbat_pkts_acked': relo #3: failed to resolve CO-RE relocation <byte_off> [5] struct tcp_sock.tcp_usec_ts (0:100 @ offset 0)"),
            "",
        );
        assert!(e.contains("field or type"), "{e}");
        assert!(e.contains("tcp_usec_ts"), "{e}");
    }

    /// libbpf skipping an unset member the kernel lacks is not the failure;
    /// a set one is.
    #[test]
    fn a_skipped_member_is_not_the_reason() {
        let e = explain(
            &log("libbpf: struct_ops natcp_pre610: member cwnd_event_tx_start not found in kernel, skipping it as it's set to zero\nlibbpf: prog 'natcp_cong_control_pre610': BPF program load failed: -EACCES\nlibbpf: prog 'natcp_cong_control_pre610': -- BEGIN PROG LOAD LOG --\n0: R1=ctx() R10=fp0\nR2 invalid mem access 'scalar'\nprocessed 9 insns (limit 1000000)\n-- END PROG LOAD LOG --"),
            "",
        );
        assert!(
            e.starts_with("the verifier rejected program `natcp_cong_control_pre610`"),
            "{e}"
        );
        let e = explain(
            &log("libbpf: struct_ops init_kern vegas: Cannot find member cwnd_event_tx_start in kernel BTF\nlibbpf: failed to load object 'vegas_bpf'"),
            "",
        );
        assert!(e.contains("lacks a member the object sets"), "{e}");
        assert!(e.contains("cwnd_event_tx_start"), "{e}");
    }

    #[test]
    fn errnos_in_words() {
        assert_eq!(errno_words(libc::EPERM), "EPERM (operation not permitted)");
        assert!(errno_words(524).starts_with("ENOTSUPP"));
        assert_eq!(parse_errno("-EINVAL"), Some(libc::EINVAL));
        assert_eq!(parse_errno(" -524"), Some(524));
    }
}
