// SPDX-License-Identifier: GPL-2.0-only
//! ECT(1) on the wire for the flows that need it (TCP Prague's): the tc
//! egress program `bpf/ect1.bpf.c` rewrites ECT(0) to ECT(1) on the IPv4 TCP
//! packets whose destination port it is given, on the sender's TUN device
//! of the run (the server's for a downlink flow, the UE's for an uplink
//! one). Every other flow's packets pass untouched.
//!
//! Attached through a clsact qdisc (libbpf's `bpf_tc_hook_create` and
//! `bpf_tc_attach`, netlink, run inside the device's namespace); detached
//! and the qdisc destroyed by [`Ect1Marker::detach`] before the emulator
//! stops. Nothing outlives the run even when it is killed: the qdisc and
//! the filter belong to a TUN device that vanishes with the emulator's
//! process (and with its namespace), and the program and maps are held
//! only by this process's descriptors and that filter (nothing is pinned).
//! `c2tcp cleanup`'s removal of a dead run's devices removes them too.
use std::os::fd::AsFd;

use anyhow::{bail, Context, Result};
use libbpf_rs::{MapCore, MapFlags, ObjectBuilder, TcHook, TcHookBuilder, TC_EGRESS};
use netns::Netns;

/// Where a flow's data leaves: the namespace and device of its sender.
pub struct SenderSide<'a> {
    pub ns: &'a Netns,
    pub ifname: String,
    /// The flows' destination ports on this device.
    pub ports: Vec<u16>,
}

/// The loaded program and where it is attached (namespace, ifindex).
pub struct Ect1Marker<'a> {
    object: libbpf_rs::Object,
    hooks: Vec<(&'a Netns, i32)>,
}

/// The one hook this program uses on a device: egress, handle and priority
/// 1, built afresh where it is used (a TcHook does not cross threads).
fn hook(fd: std::os::fd::BorrowedFd<'_>, ifindex: i32) -> TcHook {
    TcHookBuilder::new(fd)
        .ifindex(ifindex)
        .replace(true)
        .handle(1)
        .priority(1)
        .hook(TC_EGRESS)
}

impl<'a> Ect1Marker<'a> {
    /// Loads the program once and attaches it to each side's device with
    /// that side's ports.
    pub fn attach(sides: Vec<SenderSide<'a>>) -> Result<Ect1Marker<'a>> {
        let object = ObjectBuilder::default()
            .open_memory(bpfload::ECT1_OBJECT)
            .context("opening the ECT(1) tc program")?
            .load()
            .context("the kernel's verifier rejected the ECT(1) tc program")?;
        let mut marker = Ect1Marker {
            object,
            hooks: Vec::new(),
        };
        for side in sides {
            marker.add(side)?;
        }
        Ok(marker)
    }

    fn add(&mut self, side: SenderSide<'a>) -> Result<()> {
        let ports = self
            .object
            .maps()
            .find(|m| m.name() == "ect1_ports")
            .context("the ECT(1) object has no ect1_ports map")?;
        for port in &side.ports {
            ports
                .update(&port.to_be_bytes(), &[1u8], MapFlags::ANY)
                .with_context(|| format!("adding port {port} to the ECT(1) map"))?;
        }
        let prog = self.program()?;
        let fd = prog.as_fd();
        let ifname = side.ifname.clone();
        let ifindex = side
            .ns
            .run(|| -> Result<i32> {
                let ifindex = nix::net::if_::if_nametoindex(ifname.as_str())
                    .with_context(|| format!("no device {ifname}"))?
                    as i32;
                let mut h = hook(fd, ifindex);
                h.create()
                    .with_context(|| format!("creating the clsact qdisc on {ifname}"))?;
                h.attach()
                    .with_context(|| format!("attaching the ECT(1) program to {ifname}"))?;
                Ok(ifindex)
            })?
            .with_context(|| format!("in namespace {}", side.ns.label()))?;
        self.hooks.push((side.ns, ifindex));
        Ok(())
    }

    fn program(&self) -> Result<libbpf_rs::Program<'_>> {
        self.object
            .progs()
            .find(|p| p.name() == "ect1_egress")
            .context("the ECT(1) object has no ect1_egress program")
    }

    /// How many packets the program has rewritten so far.
    pub fn rewritten(&self) -> Result<u64> {
        let map = self
            .object
            .maps()
            .find(|m| m.name() == "ect1_rewritten")
            .context("the ECT(1) object has no ect1_rewritten map")?;
        let Some(v) = map.lookup(&0u32.to_ne_bytes(), MapFlags::ANY)? else {
            bail!("the ECT(1) counter is missing");
        };
        Ok(u64::from_ne_bytes(
            v.as_slice()
                .try_into()
                .context("the ECT(1) counter's size")?,
        ))
    }

    /// Detaches the program and removes the clsact qdiscs; returns the
    /// packets rewritten. The first error is returned after every hook
    /// was tried.
    pub fn detach(self) -> Result<u64> {
        let rewritten = self.rewritten();
        let mut first = None;
        let prog = self.program()?;
        let fd = prog.as_fd();
        for (ns, ifindex) in self.hooks.iter().copied() {
            let r = ns
                .run(move || -> Result<()> {
                    let mut h = hook(fd, ifindex);
                    h.detach().context("detaching the ECT(1) program")?;
                    h.destroy().context("removing the clsact qdisc")?;
                    Ok(())
                })
                .and_then(|r| r);
            if let (Err(e), None) = (r, &first) {
                first = Some(e);
            }
        }
        match first {
            Some(e) => Err(e),
            None => rewritten,
        }
    }
}
