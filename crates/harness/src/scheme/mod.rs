// SPDX-License-Identifier: GPL-2.0-only
//! Every congestion-control scheme the runner knows, behind one registry:
//! a name, how its sender and receiver run, and which knobs it takes.
//! Schemes come from two places: the ones whose logic is Rust are built in
//! (`builtin.rs`, their knobs in `knobs.rs`); every other one is a file
//! (`schemes/*.toml`, `$C2TCP_SCHEMES`, `--scheme-file`; `file.rs`), of kind
//! `kernel`, `bpf` (a user's struct_ops object) or `command`.
//!
//! Kernel schemes (cubic, bbr, reno: files) are the kernel's own; `c2tcp` and
//! the other BPF ones are loaded on demand (`bpfload::usage::BpfUse`); AQM schemes are
//! Cubic over that discipline at the emulated bottleneck; `iperf3:<cc>` runs
//! the real iperf3 for comparison with our own traffic generator; `sprout`
//! and `sprout-ewma` are our UDP transport (`c2tcp sprout-send/-recv`),
//! `verus` another (`c2tcp verus-send/-recv`); `webrtc-gcc` is pion's
//! Google Congestion Control driving a synthetic video source
//! (`tools/webrtc-gcc`, docs/webrtc.md);
//! `dfcsd` / `drwa` / `rtac` (or `<rule>+<cc>`) put the UE's receivers
//! under receiver-side window control (`rxctl`) with any sender.
//!
//! The modules, each importing only those listed before it: `knob.rs` (a
//! knob and its check), `knobs.rs` (the built-in knobs), `queue_knobs.rs`
//! (a queue's arguments as knobs), `kind.rs` (a scheme's kind and what
//! follows from it), `params.rs` (a flow's knobs, typed), `builtin.rs`,
//! `file.rs`, and this registry over both.
use anyhow::{bail, Result};

mod builtin;
pub mod file;
mod kind;
mod knob;
pub(crate) mod knobs;
pub mod params;
mod queue_knobs;

pub(crate) use kind::cc_name_ok;
pub use kind::{CommandSpec, Kind, Scheme};
pub use knob::Knob;
use knobs::{DFCSD_KNOBS, DRWA_KNOBS, RTAC_KNOBS};

/// Every scheme name, for help texts and errors (`iperf3:<cc>` stands for
/// iperf3 with any congestion control, `dfcsd+<cc>` for DFCSD receivers with
/// any sender).
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = file::names().unwrap_or_default();
    v.extend(builtin::registry().into_iter().map(|e| e.name.to_string()));
    v.extend(rxctl::RULES.iter().map(|r| r.to_string()));
    v.extend(rxctl::RULES.iter().map(|r| format!("{r}+<cc>")));
    v.push("iperf3:<cc>".into());
    v
}

/// Every scheme as `--list-schemes` shows it: each name of [`names`], a
/// parametric one (`iperf3:<cc>`, `dfcsd+<cc>`) through one instance.
pub fn listing() -> Vec<(String, Scheme)> {
    names()
        .into_iter()
        .filter_map(|name| {
            let s = lookup(&name.replace("<cc>", "bbr")).ok()?;
            Some((name, s))
        })
        .collect()
}

pub fn lookup(name: &str) -> Result<Scheme> {
    if let Some(cc) = name.strip_prefix("iperf3:") {
        if !cc_name_ok(cc) {
            bail!("`{name}`: iperf3:<cc> needs a congestion-control name, e.g. iperf3:cubic");
        }
        return Ok(Scheme {
            name: name.to_string(),
            summary: "the real iperf3 with this congestion control",
            kind: Kind::Iperf3 { cc: cc.to_string() },
            knobs: vec![],
        });
    }
    if let Some((rule, cc)) = rxctl::scheme(name) {
        return receiver_side(name, rule.name(), cc);
    }
    if rxctl::RULES
        .iter()
        .any(|r| name.strip_prefix(r).is_some_and(|t| t == "+"))
    {
        bail!("`{name}`: give the sender's congestion control after the +, e.g. dfcsd+bbr");
    }
    if let Some(e) = builtin::find(name) {
        return Ok(e);
    }
    match file::find(name)? {
        Some(s) => Ok(s),
        None => bail!(
            "unknown scheme `{name}`; known schemes: {}",
            names().join(", ")
        ),
    }
}

/// `dfcsd`, `drwa`, `<rule>+<cc>`: the rule's knobs and, for a sender of the
/// registry (e.g. `dfcsd+c2tcp`), that sender's knobs too. A sender the
/// registry does not know is passed to the kernel as it is, as iperf3:<cc>.
fn receiver_side(name: &str, rule: &'static str, cc: &str) -> Result<Scheme> {
    let mut knobs = match rule {
        "dfcsd" => DFCSD_KNOBS.to_vec(),
        "rtac" => RTAC_KNOBS.to_vec(),
        _ => DRWA_KNOBS.to_vec(),
    };
    let sender = match builtin::find(cc) {
        Some(s) => Some(s),
        None => file::find(cc)?,
    };
    // The name the kernel knows the sender by: a scheme's `cc`, else `cc`
    // as given (then a `bpf` scheme file registering it is still the one
    // loaded for it).
    let mut kernel_cc = cc;
    let sender_kind = match sender {
        Some(Scheme {
            kind: kind @ (Kind::Kernel { cc: sender_cc } | Kind::Bpf { cc: sender_cc } | Kind::BpfObject { cc: sender_cc, .. }),
            knobs: sender,
            ..
        }) => {
            knobs.extend_from_slice(&sender);
            kernel_cc = sender_cc;
            Some(kind)
        }
        Some(_) => bail!("`{name}`: `{cc}` is not a sender congestion control (an AQM scheme cannot follow the +)"),
        None if cc_name_ok(cc) && rxctl::scheme(cc).is_none() => file::find_by_cc(cc),
        None => bail!("`{name}`: `{cc}` is not a congestion-control name"),
    };
    let summary = match (rule, name.contains('+')) {
        ("dfcsd", false) => {
            "DFCSD receivers (rxctl) with Cubic senders: short flows may queue more than long ones"
        }
        ("dfcsd", true) => "DFCSD receivers (rxctl) with this sender congestion control",
        ("rtac", false) => {
            "RTAC receivers (rxctl) with Cubic senders: RED on the estimated backlog, AIMD on rwnd (assembled from its description)"
        }
        ("rtac", true) => "RTAC receivers (rxctl) with this sender congestion control",
        (_, false) => {
            "DRWA receivers (rxctl) with Cubic senders: rwnd = lambda x RTT_min/RTT x cwnd_est"
        }
        (_, true) => "DRWA receivers (rxctl) with this sender congestion control",
    };
    Ok(Scheme {
        name: name.to_string(),
        summary,
        kind: Kind::ReceiverSide {
            rule,
            cc: kernel_cc.to_string(),
            sender: sender_kind.map(Box::new),
        },
        knobs,
    })
}

#[cfg(test)]
mod tests;
