// SPDX-License-Identifier: GPL-2.0-only
//! `natcp` / `nacubic` flows: our own traffic generator (the `own` driver),
//! plus a sampler of the connection's NetAssist state as the BPF program
//! exports it (mode, eq. 1's window, pacing, the feedback applied) each
//! time it changes, written to `netassist-flow<N>.csv`. NetAssist itself is run-level: the runner
//! starts it (runner.rs).
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Result;
use bpfload::netassist::{flow_state_in, flows_map, FlowState};

use super::{own, FlowOutcome, FlowPlan, RunCtx, RunningFlow};

struct NetAssisted {
    inner: Box<dyn RunningFlow>,
    sampler: Option<JoinHandle<Vec<(f64, FlowState)>>>,
    csv: PathBuf,
}

pub fn start(
    ctx: &RunCtx<'_>,
    plan: FlowPlan<'_>,
    cc: &'static str,
) -> Result<Box<dyn RunningFlow>> {
    let (ue, port, index, stop_at) = (plan.receiver_addr, plan.port, plan.index, plan.stop_at);
    let map = flows_map(cc)?;
    let inner = own::start(ctx, plan)?;
    let (stop, run_start, every) = (ctx.stop.clone(), ctx.run_start, ctx.sample_every);
    let sampler = std::thread::Builder::new()
        .name(format!("na-state{index}"))
        .spawn(move || {
            let mut rows: Vec<(f64, FlowState)> = Vec::new();
            // The programs stamp records with CLOCK_MONOTONIC µs; the run counts
            // seconds from an Instant (the same clock): map one onto the other.
            let (mono0, since_start) = (
                emu::clock::now_us() as f64,
                run_start.elapsed().as_secs_f64(),
            );
            while !stop.load(Ordering::Relaxed) && Instant::now() < stop_at {
                // Records older than this sampler are a previous run's (same address and port).
                if let Some(st) =
                    flow_state_in(&map, ue, port).filter(|s| s.changed_us as f64 >= mono0)
                {
                    if rows
                        .last()
                        .is_none_or(|(_, last)| last.changed_us != st.changed_us)
                    {
                        rows.push(((st.changed_us as f64 - mono0) / 1e6 + since_start, st));
                    }
                }
                std::thread::sleep(every.min(Duration::from_millis(100)));
            }
            rows
        })?;
    Ok(Box::new(NetAssisted {
        inner,
        sampler: Some(sampler),
        csv: ctx.out.join(results::netassist_flow_csv(index)),
    }))
}

fn write_csv(path: &PathBuf, rows: &[(f64, FlowState)]) -> std::io::Result<()> {
    wholefile::write_with(path, |f| write_rows(f, rows))
}

fn write_rows(mut f: impl Write, rows: &[(f64, FlowState)]) -> std::io::Result<()> {
    writeln!(
        f,
        "t_s,mode,cwnd,target_cwnd,pacing_mbps,bw_mbps,min_rtt_ms,beta,seq,fallbacks,resumes"
    )?;
    for (t, s) in rows {
        let mode = match s.mode {
            bpfload::netassist::MODE_ASSISTED => "assisted",
            bpfload::netassist::MODE_FALLBACK => "fallback",
            _ => "waiting",
        };
        writeln!(
            f,
            "{t:.3},{mode},{},{},{:.3},{:.3},{:.3},{},{},{},{}",
            s.cwnd,
            s.target_cwnd,
            s.pacing_rate as f64 * 8.0 / 1e6,
            s.bw_Bps as f64 * 8.0 / 1e6,
            s.min_rtt_us as f64 / 1000.0,
            s.beta,
            s.seq,
            s.fallbacks,
            s.resumes
        )?;
    }
    f.flush()
}

impl RunningFlow for NetAssisted {
    fn finish(mut self: Box<Self>) -> FlowOutcome {
        let mut outcome = self.inner.finish();
        if let Some(t) = self.sampler.take() {
            let rows = t.join().unwrap_or_default();
            if let Err(e) = write_csv(&self.csv, &rows) {
                outcome
                    .error
                    .get_or_insert(format!("writing {}: {e}", self.csv.display()));
            }
        }
        outcome
    }

    fn abort(&mut self) {
        self.inner.abort();
    }
}
