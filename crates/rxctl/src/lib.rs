// SPDX-License-Identifier: GPL-2.0-only
//! Receiver-side control of real Linux TCP receivers: the UE limits each
//! flow's advertised window (TCP_WINDOW_CLAMP) so that few packets queue at
//! the base station, by one of three rules:
//!
//! - **DFCSD** ([`dfcsd`]): Vegas-style backlog `rwnd · (1 − baseRTT/RTT)`
//!   against an allowance γ that falls exponentially with the bytes a flow
//!   has received among the UE's active flows (short flows may queue more),
//!   ±1 MSS per RTT;
//! - **DRWA** ([`drwa`]): `rwnd = λ · RTT_min / RTT_est · cwnd_est` per RTT;
//! - **RTAC** ([`rtac`], assembled from its description): gentle RED on the
//!   same backlog estimate, answered by Reno's AIMD in expectation per RTT.
//!
//! Parameters and their defaults are in [`params`], the RTT measurement in
//! [`echo`] (from TCP timestamps, through the UE's packet [`tap`]) or
//! [`estimator`] (without them), one flow's loop in [`flow`], the sockets in
//! [`controller`], the per-flow time series in [`record`]. The rules bind
//! only when rwnd < the sender's cwnd: the sender's congestion control is
//! untouched, so `dfcsd+bbr` is DFCSD's receiver with a BBR sender.
//!
//! # Use (what the runner does)
//!
//! One controller per run, created in the UE's namespace; each receiving
//! socket is registered when accepted and unregistered when its flow ends;
//! the records go to `rxctl.csv`.
//!
//! ```
//! use std::io::{Read, Write};
//! use std::net::{TcpListener, TcpStream};
//!
//! # fn main() -> anyhow::Result<()> {
//! // The scheme names the runner knows: `dfcsd`, `drwa`, `dfcsd+<cc>`, `drwa+<cc>`.
//! let (rule, sender_cc) = rxctl::scheme("dfcsd+bbr").unwrap();
//! assert_eq!(sender_cc, "bbr");
//! let mut cfg = rxctl::Config::new(rule);
//! cfg.epoch = std::time::Instant::now(); // the run's start
//! let ctl = rxctl::Controller::spawn(cfg)?;
//!
//! // A receiver accepts a flow ...
//! let listener = TcpListener::bind("127.0.0.1:0")?;
//! let mut sender = TcpStream::connect(listener.local_addr()?)?;
//! let (mut conn, _) = listener.accept()?;
//! let flow = ctl.register(&conn, "flow0-dfcsd")?;
//! // ... reads it as usual ...
//! sender.write_all(&[0u8; 100_000])?;
//! drop(sender);
//! let mut got = Vec::new();
//! conn.read_to_end(&mut got)?;
//! // ... and unregisters it when it ends, before or after closing it.
//! ctl.unregister(flow);
//!
//! let records = ctl.stop();
//! assert_eq!(records[0].label, "flow0-dfcsd");
//! rxctl::write_csv(&records, std::io::sink())?; // write_csv_file(&records, &run_dir.join("rxctl.csv"))
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
pub mod controller;
pub mod dfcsd;
pub mod drwa;
pub mod echo;
pub mod estimator;
pub mod flow;
pub mod params;
pub mod record;
pub mod rtac;
pub mod tap;

pub use controller::{Controller, FlowId};
pub use params::{scheme, Config, DfcsdParams, DrwaParams, RtacParams, RttSource, Rule, RULES};
pub use record::{write_csv, write_csv_file, FlowRecord, Row};
