// SPDX-License-Identifier: GPL-2.0-only
//! The controller: the UE's live receiving sockets, each driven by its
//! [`FlowLogic`], read and written through TCP_INFO and TCP_WINDOW_CLAMP.
//!
//! One controller per UE (per run): DFCSD's allowances compare the flows it
//! holds. It runs on its own thread ([`Controller::spawn`]) or is ticked by
//! its owner ([`Controller::new`] + [`Controller::tick`]). A tick reads every
//! socket once, retires flows whose peer has closed, computes each flow's γ
//! from the bytes all of them have received, and writes the clamps that
//! changed; it allocates nothing (the flow table and each flow's history
//! are allocated at registration, record rows in amortised chunks).
//!
//! How TCP_WINDOW_CLAMP behaves on Linux 6.x, and what follows here:
//! - Lowering the clamp lowers `rcv_ssthresh` at once, but the window edge
//!   already advertised is never pulled back (`tcp_select_window` keeps it
//!   unless `net.ipv4.tcp_shrink_window=1`): the advertised window shrinks
//!   only as the data in flight arrives, so the clamp takes hold within one
//!   RTT and no in-flight data is ever refused. Any decrease is therefore
//!   safe; the controller refuses to run where the sysctl allows shrinking.
//! - Raising the clamp lets `rcv_ssthresh` grow again by at least two
//!   segments per segment received: growth takes effect at once.
//! - Linux overwrites the clamp by itself: receive-buffer autotuning
//!   (`tcp_rcv_space_adjust`, "make the window clamp follow along") and a
//!   change of the len/truesize ratio (`tcp_measure_rcv_mss`). The
//!   controller reads the clamp back every tick and re-asserts its own, so
//!   an override lasts at most one tick; the kernel's value becomes the
//!   flow's ceiling (the socket's normal maximum).
//! - Values below SOCK_MIN_RCVBUF/2 (about 1 KB) are raised by the kernel;
//!   our floor, 2 MSS, is above that.
use std::net::SocketAddr;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::dfcsd;
use crate::echo::EchoClock;
use crate::flow::{FlowLogic, Obs};
use crate::params::{Config, RttSource, Rule};
use crate::record::{FlowRecord, Row};
use crate::tap::{Segment, Tap};

/// TCP_ESTABLISHED in `tcpi_state`.
const TCP_ESTABLISHED: u8 = 1;
/// TCPI_OPT_TIMESTAMPS in `tcpi_options`: the connection carries timestamps.
const TCPI_OPT_TIMESTAMPS: u8 = 1;

/// A registered flow, as [`Controller::register`] returned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowId(pub u64);

struct Flow {
    id: u64,
    /// Our own duplicate of the receiver's descriptor (see `register`).
    fd: OwnedFd,
    logic: FlowLogic,
    record: FlowRecord,
    obs: Obs,
    open: bool,
    /// (ours, the peer's): to find the flow's segments in the tap.
    addrs: (SocketAddr, SocketAddr),
    /// With the timestamp-echo RTT: when our TSvals left, and this tick's
    /// samples (sum, count).
    echo: Option<EchoClock>,
    echo_sum: u64,
    echo_n: u64,
}

impl Flow {
    /// A segment the tap saw: our ACK's TSval leaving, or an echo arriving.
    fn saw(&mut self, t_us: u64, seg: &Segment) {
        let (Some(echo), Some((tsval, tsecr))) = (self.echo.as_mut(), seg.ts) else {
            return;
        };
        let (ours, peer) = self.addrs;
        if seg.outgoing && seg.src == ours && seg.dst == peer {
            echo.sent(tsval, t_us);
        } else if !seg.outgoing && seg.src == peer && seg.dst == ours && seg.payload > 0 {
            if let Some(rtt) = echo.echoed(tsecr, t_us) {
                self.echo_sum += rtt;
                self.echo_n += 1;
            }
        }
    }

    /// The mean echo RTT since the last call (µs, 0 = none).
    fn take_echo_rtt(&mut self) -> u32 {
        let mean = self.echo_sum.checked_div(self.echo_n).unwrap_or(0);
        (self.echo_sum, self.echo_n) = (0, 0);
        mean.min(u32::MAX as u64) as u32
    }
}

struct Inner {
    cfg: Config,
    /// The UE's packet tap, when the timestamp-echo RTT is asked for and the
    /// tap could be opened; else why not.
    tap: Result<Tap, String>,
    flows: Vec<Flow>,
    done: Vec<FlowRecord>,
    next_id: u64,
}

struct Shared {
    inner: Mutex<Inner>,
    stop: AtomicBool,
}

/// Receiver-side window control for one UE. See the crate docs for use.
/// `Send + Sync`: share it (e.g. in an `Arc`) with the receiver threads.
pub struct Controller {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

fn secs_since(epoch: Instant, t: Instant) -> f64 {
    t.saturating_duration_since(epoch).as_secs_f64()
}

impl Controller {
    /// A controller its owner drives with [`Controller::tick`] (every
    /// `cfg.tick`). Fails where Linux is set to retract advertised windows
    /// (`net.ipv4.tcp_shrink_window=1` in the caller's namespace).
    pub fn new(cfg: Config) -> Result<Controller> {
        if cfg.tick.is_zero() {
            bail!("rxctl: the tick must be longer than zero");
        }
        let path = "/proc/sys/net/ipv4/tcp_shrink_window";
        // Absent before Linux 6.5, where windows are never retracted.
        if let Ok(v) = std::fs::read_to_string(path) {
            if v.trim() != "0" {
                bail!(
                    "rxctl: {path} is {}: Linux would retract advertised windows when the clamp falls and \
                     drop data already in flight; set it to 0 (the default) in the receiver's namespace",
                    v.trim()
                );
            }
        }
        let tap = match cfg.rtt_source {
            RttSource::TimestampEcho => Tap::open().map_err(|e| {
                let why = format!("no packet tap ({e})");
                eprintln!(
                    "rxctl: {why}: each flow's RTT is the time its advertised window takes to arrive \
                     (window_span), not the timestamp echo"
                );
                why
            }),
            _ => Err("the timestamp-echo RTT was not asked for".into()),
        };
        let inner = Inner {
            cfg,
            tap,
            flows: Vec::new(),
            done: Vec::new(),
            next_id: 0,
        };
        Ok(Controller {
            shared: Arc::new(Shared {
                inner: Mutex::new(inner),
                stop: AtomicBool::new(false),
            }),
            thread: Mutex::new(None),
        })
    }

    /// A controller on its own thread (named `rxctl`), ticking every
    /// `cfg.tick` until [`Controller::stop`] or drop.
    pub fn spawn(cfg: Config) -> Result<Controller> {
        let c = Controller::new(cfg)?;
        let shared = c.shared.clone();
        let tick = c.lock().cfg.tick;
        let t = std::thread::Builder::new()
            .name("rxctl".into())
            .spawn(move || run(&shared, tick))
            .context("spawning the rxctl thread")?;
        *c.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(t);
        Ok(c)
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic elsewhere must not stop the control of the other flows.
        self.shared.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts controlling a connected TCP socket (an accepted receiver).
    ///
    /// The controller keeps its own duplicate of the descriptor, so a closed
    /// or reused descriptor number can never be written to by mistake. The
    /// connection is therefore fully closed only once both sides let go:
    /// [`Controller::unregister`] when the flow ends; a flow whose peer has
    /// closed (EOF seen) is let go at the next tick by itself.
    pub fn register(&self, sock: &impl AsFd, label: &str) -> Result<FlowId> {
        if self.shared.stop.load(Ordering::Relaxed) {
            bail!("rxctl: the controller is stopped; `{label}` was not registered");
        }
        let fd = sock
            .as_fd()
            .try_clone_to_owned()
            .context("duplicating the socket descriptor")?;
        let ti = sockopt::tcp_info(&fd).context("reading TCP_INFO (is it a TCP socket?)")?;
        if ti.state != TCP_ESTABLISHED {
            bail!(
                "rxctl: socket for `{label}` is not an established connection (state {})",
                ti.state
            );
        }
        let addrs = {
            // A second duplicate, closed at the end of this block.
            let s = std::net::TcpStream::from(fd.try_clone().context("duplicating the socket")?);
            (s.local_addr()?, s.peer_addr()?)
        };
        let mut inner = self.lock();
        let now = Instant::now();
        let id = inner.next_id;
        inner.next_id += 1;
        // The echo needs the tap and a connection that carries timestamps.
        let mut cfg = inner.cfg.clone();
        if cfg.rtt_source == RttSource::TimestampEcho
            && (inner.tap.is_err() || ti.options & TCPI_OPT_TIMESTAMPS == 0)
        {
            cfg.rtt_source = RttSource::WindowSpan;
        }
        let cfg = &cfg;
        let record = FlowRecord {
            id,
            label: label.to_string(),
            rule: cfg.rule.name(),
            registered_at_s: secs_since(cfg.epoch, now),
            retired_at_s: None,
            bytes_received: ti.bytes_received,
            kernel_overrides: 0,
            rtt_source: cfg.rtt_source.name(),
            rows: Vec::with_capacity(1024),
        };
        let flow = Flow {
            id,
            fd,
            logic: FlowLogic::new(cfg),
            record,
            obs: Obs::default(),
            open: true,
            addrs,
            echo: (cfg.rtt_source == RttSource::TimestampEcho).then(EchoClock::default),
            echo_sum: 0,
            echo_n: 0,
        };
        inner.flows.push(flow);
        Ok(FlowId(id))
    }

    /// Stops controlling a flow and closes the controller's duplicate of its
    /// descriptor; its record is kept. False if it was already gone.
    pub fn unregister(&self, id: FlowId) -> bool {
        let mut inner = self.lock();
        let now = Instant::now();
        match inner.flows.iter().position(|f| f.id == id.0) {
            Some(i) => {
                inner.retire(i, now);
                true
            }
            None => false,
        }
    }

    /// One control step at the current time (for owners that drive the
    /// controller themselves; the spawned thread calls it every tick).
    pub fn tick(&self) {
        self.lock().tick(Instant::now());
    }

    /// Flows under control now.
    pub fn active(&self) -> usize {
        self.lock().flows.len()
    }

    /// A copy of every record so far (live flows included).
    pub fn records(&self) -> Vec<FlowRecord> {
        let inner = self.lock();
        let mut v: Vec<FlowRecord> = inner.done.clone();
        v.extend(inner.flows.iter().map(|f| f.record.clone()));
        v.sort_by_key(|r| r.id);
        v
    }

    /// Stops the thread, lets go of every flow and returns all records,
    /// ordered by flow id (registration order). Later calls return the same
    /// records; registering after it fails.
    pub fn stop(&self) -> Vec<FlowRecord> {
        self.halt();
        let mut inner = self.lock();
        let now = Instant::now();
        while !inner.flows.is_empty() {
            let last = inner.flows.len() - 1;
            inner.retire(last, now);
        }
        inner.done.sort_by_key(|r| r.id);
        inner.done.clone()
    }

    fn halt(&self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = t.join();
        }
    }
}

impl Drop for Controller {
    fn drop(&mut self) {
        self.halt();
    }
}

fn run(shared: &Shared, tick: Duration) {
    let mut next = Instant::now();
    while !shared.stop.load(Ordering::Relaxed) {
        shared
            .inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .tick(Instant::now());
        next += tick;
        let now = Instant::now();
        if next < now {
            // Fell behind (a loaded machine): skip, do not burst.
            next = now;
        } else {
            std::thread::sleep(next - now);
        }
    }
}

impl Inner {
    fn retire(&mut self, i: usize, now: Instant) {
        let mut f = self.flows.swap_remove(i);
        f.record.retired_at_s = Some(secs_since(self.cfg.epoch, now));
        f.record.bytes_received = f.record.bytes_received.max(f.obs.bytes_received);
        f.record.kernel_overrides = f.logic.kernel_overrides();
        self.done.push(f.record);
        // Dropping `f.fd` closes our duplicate.
    }

    fn tick(&mut self, now: Instant) {
        let t_us = now.saturating_duration_since(self.cfg.epoch).as_micros() as u64;
        // 0. The segments since the last tick: echo RTT samples.
        if let Ok(tap) = &mut self.tap {
            let flows = &mut self.flows;
            tap.drain(self.cfg.epoch, |t, seg| {
                for f in flows.iter_mut() {
                    f.saw(t, seg);
                }
            });
        }
        // 1. Read every socket.
        for f in &mut self.flows {
            let echo_rtt_us = f.take_echo_rtt();
            match (sockopt::tcp_info(&f.fd), sockopt::window_clamp(&f.fd)) {
                (Ok(ti), Ok(clamp)) if ti.state == TCP_ESTABLISHED => {
                    f.obs = Obs {
                        t_us,
                        bytes_received: ti.bytes_received,
                        rcv_wnd: ti.rcv_wnd,
                        mss: ti.rcv_mss,
                        kernel_rcv_rtt_us: ti.rcv_rtt,
                        kernel_min_rtt_us: ti.min_rtt,
                        clamp,
                        echo_rtt_us,
                    };
                }
                (Ok(ti), _) => {
                    f.obs.bytes_received = ti.bytes_received;
                    f.open = false;
                }
                _ => f.open = false,
            }
        }
        // 2. Let go of flows whose peer has closed: they no longer compete.
        let mut i = 0;
        while i < self.flows.len() {
            if self.flows[i].open {
                i += 1;
            } else {
                self.retire(i, now);
            }
        }
        // 3. Decide. DFCSD's γ compares the bytes of the UE's active flows.
        let d_min = self
            .flows
            .iter()
            .map(|f| f.obs.bytes_received)
            .min()
            .unwrap_or(0);
        let d_max = self
            .flows
            .iter()
            .map(|f| f.obs.bytes_received)
            .max()
            .unwrap_or(0);
        let epoch = self.cfg.epoch;
        for f in &mut self.flows {
            let gamma = match &self.cfg.rule {
                Rule::Dfcsd(p) => dfcsd::gamma(p, f.obs.bytes_received, d_min, d_max),
                Rule::Drwa(_) | Rule::Rtac(_) => 0.0,
            };
            let out = f.logic.tick(&f.obs, gamma);
            if let Some(c) = out.set_clamp {
                // A failure means the socket is closing; the next read retires it.
                let _ = sockopt::set_window_clamp(&f.fd, c);
            }
            if let Some(d) = out.decision {
                let t_s = secs_since(epoch, now);
                let o = &f.obs;
                let row = Row::new(
                    &d,
                    t_s,
                    o.rcv_wnd,
                    o.kernel_rcv_rtt_us,
                    o.bytes_received,
                    f.logic.kernel_overrides(),
                );
                f.record.rows.push(row);
            }
        }
    }
}
