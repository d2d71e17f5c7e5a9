// SPDX-License-Identifier: GPL-2.0-only
//! Flows of our own traffic generator (`traffic`): a receiver thread in the
//! receiver's namespace, a sender thread in the sender's, the congestion
//! control and SOL_C2TCP options chosen on the sender's socket.
use std::net::{SocketAddrV4, TcpListener, TcpStream};
use std::thread::JoinHandle;

use anyhow::{bail, Context, Result};

use super::{FlowOutcome, FlowPlan, RunCtx, RunningFlow};
use crate::scheme::params::FlowParams;
use crate::traffic::{self, RecvReport, SendReport, SendSpec};

struct Own {
    outcome: FlowOutcome,
    sender: JoinHandle<Result<SendReport>>,
    receiver: JoinHandle<Result<RecvReport>>,
}

/// Runs in the receiver thread: told of the accepted connection, dropped
/// when the flow ends (see `rxside`).
pub type AcceptHook = Box<dyn FnMut(&TcpStream) -> Result<()> + Send>;

pub fn start(ctx: &RunCtx<'_>, plan: FlowPlan<'_>) -> Result<Box<dyn RunningFlow>> {
    start_with(ctx, plan, None)
}

/// As [`start`], with a hook around the receiving connection.
pub fn start_with(
    ctx: &RunCtx<'_>,
    plan: FlowPlan<'_>,
    hook: Option<AcceptHook>,
) -> Result<Box<dyn RunningFlow>> {
    let (rx_addr, port, index) = (plan.receiver_addr, plan.port, plan.index);
    let listener = plan
        .receiver_ns
        .run(move || TcpListener::bind(SocketAddrV4::new(rx_addr, port)))?
        .with_context(|| format!("flow {index}: listening on {rx_addr}:{port}"))?;
    let flow = plan.flow;
    let FlowParams::Tcp(tcp) = plan.params else {
        bail!("flow {index}: `{}` is not a TCP scheme", flow.scheme);
    };
    let spec = SendSpec {
        cc: plan
            .scheme
            .sender_cc()
            .context("not a TCP scheme")?
            .to_string(),
        c2tcp: tcp.c2tcp,
        dst: SocketAddrV4::new(rx_addr, port),
        start_at: plan.start_at,
        stop_at: plan.stop_at,
        size_bytes: flow.size_bytes,
        sample_every: ctx.sample_every,
    };
    let (run_start, stop_r, stop_s, stop_at) = (
        ctx.run_start,
        ctx.stop.clone(),
        ctx.stop.clone(),
        plan.stop_at,
    );
    let expect = flow.size_bytes;
    let receiver = plan.receiver_ns.spawn(&format!("rx{index}"), move || {
        let mut hook = hook;
        let r = traffic::receive(
            listener,
            expect,
            stop_at,
            run_start,
            &stop_r,
            hook.as_deref_mut().map(|h| h as _),
        );
        drop(hook); // after the connection is closed
        r
    })?;
    let sender = plan.sender_ns.spawn(&format!("tx{index}"), move || {
        traffic::send(&spec, run_start, &stop_s)
    })?;
    Ok(Box::new(Own {
        outcome: plan.outcome,
        sender,
        receiver,
    }))
}

impl RunningFlow for Own {
    fn finish(self: Box<Self>) -> FlowOutcome {
        let Own {
            mut outcome,
            sender,
            receiver,
        } = *self;
        let tx = sender
            .join()
            .map_err(|_| anyhow::anyhow!("sender thread panicked"))
            .and_then(|r| r);
        let rx = receiver
            .join()
            .map_err(|_| anyhow::anyhow!("receiver thread panicked"))
            .and_then(|r| r);
        match tx {
            Ok(tx) => {
                outcome.bytes_sent = tx.bytes_written;
                outcome.retransmits = tx.total_retrans;
                outcome.bytes_retrans = tx.bytes_retrans;
                outcome.samples = tx.samples;
                if let Some(e) = tx.error {
                    outcome.error = Some(format!("sender: {e}"));
                }
            }
            Err(e) => outcome.error = Some(format!("sender: {e:#}")),
        }
        match rx {
            Ok(rx) => {
                outcome.bytes_received = rx.bytes;
                outcome.fct_s = rx.completed_at_s.map(|t| t - outcome.start_s);
                if let (Some(e), None) = (rx.error, &outcome.error) {
                    outcome.error = Some(format!("receiver: {e}"));
                }
            }
            Err(e) => outcome.error = Some(format!("receiver: {e:#}")),
        }
        outcome
    }
}
