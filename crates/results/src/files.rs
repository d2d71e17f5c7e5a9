// SPDX-License-Identifier: GPL-2.0-only
//! The names of a run directory's other files (docs/results-layout.md),
//! named here once for the runner, the flows, the bench and its child: the
//! emulator's logs and captures, the flows' records, the bench's job and the
//! directory's lock. (run.json and the analysis' files are in `layout.rs`.)

/// The emulator's Mahimahi-format logs, one per direction.
pub const DOWNLINK_LOG: &str = "downlink.log";
pub const UPLINK_LOG: &str = "uplink.log";
/// Every packet's headers at the bottleneck (`--pcap`), one per direction.
pub const DOWNLINK_PCAP: &str = "downlink.pcapng";
pub const UPLINK_PCAP: &str = "uplink.pcapng";
/// What the run resolved its scenario to, and what the emulator counted.
pub const SETUP_JSON: &str = "setup.json";
/// What each flow's endpoints saw.
pub const FLOWS_JSON: &str = "flows.json";
/// Each flow's metrics, one row a flow.
pub const FLOWS_CSV: &str = "flows.csv";
/// TCP_INFO / C2TCP_INFO samples of the TCP senders.
pub const TCPINFO_CSV: &str = "tcpinfo.csv";
/// The receiver-side controller's decisions.
pub const RXCTL_CSV: &str = "rxctl.csv";
/// NetAssist's and its agent's counts.
pub const NETASSIST_JSON: &str = "netassist.json";
/// The job a bench handed its `c2tcp run --job` child.
pub const JOB_JSON: &str = "job.json";
/// What that child printed.
pub const STDERR_LOG: &str = "stderr.log";
/// The directory's ownership: its holder's `pid=`, `command=`, `started=`.
pub const LOCK: &str = ".lock";

/// Flow `index`'s NetAssist state over time (`natcp`, `nacubic`, `tg`).
pub fn netassist_flow_csv(index: usize) -> String {
    format!("netassist-flow{index}.csv")
}

/// The folder of a `command` scheme's flow `index`: its `{out}` and logs.
pub fn command_flow_dir(index: usize) -> String {
    format!("command-flow{index}")
}

/// A `command` flow's receiver's or sender's (`role`) output, inside its
/// folder.
pub fn command_log(role: &str) -> String {
    format!("{role}.log")
}

/// A UDP transport's endpoint report (`proto` is `sprout`, `verus`, ...;
/// `role` is `receiver` or `sender`).
pub fn endpoint_json(proto: &str, index: usize, role: &str) -> String {
    format!("{proto}-flow{index}-{role}.json")
}

/// iperf3's JSON record of flow `index`.
pub fn iperf3_json(index: usize) -> String {
    format!("iperf3-flow{index}.json")
}

/// What iperf3's server or client (`role`) printed for flow `index`.
pub fn iperf3_stderr(index: usize, role: &str) -> String {
    format!("iperf3-flow{index}-{role}.stderr")
}
