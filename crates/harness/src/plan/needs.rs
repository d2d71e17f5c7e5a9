// SPDX-License-Identifier: GPL-2.0-only
//! What a scenario's flows need besides the emulator ([`Needs`]): BPF
//! congestion controls and users' objects, NetAssist, a receiver-side
//! controller, the hosts' ECN, the receivers' CC, sysctls; for the runner
//! and for the bench, which loads the BPF programs once for all its runs.
use anyhow::Result;

use super::lookup::schemes_of;
use crate::scenario::Scenario;
use crate::scheme::Scheme;

/// What a scenario's flows need besides the emulator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needs {
    /// BPF congestion controls, each once, in the flows' order.
    pub bpf: Vec<&'static str>,
    /// Users' own struct_ops objects (`bpf` scheme files), each once.
    pub objects: Vec<bpfload::object::UserObject>,
    /// NATCP/NACubic: NetAssist, its agent and the UE's reporter.
    pub netassist: bool,
    /// A receiver-side rule: the UE's rxctl controller.
    pub rxctl: bool,
    /// net.ipv4.tcp_ecn for both namespaces: the highest any flow's scheme
    /// asks for (1 for Cubic over a marking AQM), None to keep the default
    /// (2: accept ECN when the peer asks).
    pub host_ecn: Option<u8>,
    /// The namespaces' default congestion control, for receivers that must
    /// run one (ABC's echo); one scheme a run.
    pub receiver_cc: Option<&'static str>,
    /// Sysctls for both namespaces (a `kernel` or `bpf` scheme file's
    /// knobs), name and value.
    pub sysctls: Vec<(&'static str, String)>,
}

impl Needs {
    pub(super) fn of_schemes<'a>(schemes: impl IntoIterator<Item = &'a Scheme>) -> Needs {
        let mut n = Needs::default();
        for s in schemes {
            if let Some(cc) = s.needs_bpf() {
                if !n.bpf.contains(&cc) {
                    n.bpf.push(cc);
                }
            }
            if let Some(o) = s.needs_object() {
                if !n.objects.contains(&o) {
                    n.objects.push(o);
                }
            }
            n.netassist |= s.needs_netassist();
            n.host_ecn = n.host_ecn.max(s.host_ecn());
            n.receiver_cc = n.receiver_cc.or(s.receiver_cc());
        }
        n
    }

    /// The BPF congestion controls a set of scenarios needs, each once:
    /// ours and users' objects (from their schemes alone: the bench asks
    /// this of every run it plans).
    pub fn bpf_of<'a>(
        scenarios: impl IntoIterator<Item = &'a Scenario>,
    ) -> Result<(Vec<&'static str>, Vec<bpfload::object::UserObject>)> {
        let (mut ccs, mut objects) = (Vec::new(), Vec::new());
        for sc in scenarios {
            let n = Needs::of_schemes(&schemes_of(sc)?);
            for cc in n.bpf {
                if !ccs.contains(&cc) {
                    ccs.push(cc);
                }
            }
            for o in n.objects {
                if !objects.contains(&o) {
                    objects.push(o);
                }
            }
        }
        Ok((ccs, objects))
    }
}
