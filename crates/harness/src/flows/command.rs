// SPDX-License-Identifier: GPL-2.0-only
//! `command` schemes (a scheme file's `receiver` and `sender` command lines,
//! Pantheon-style): any userspace transport runs through the emulator and is
//! measured from the emulator's logs like every other scheme.
//!
//! 1. the placeholders are filled for this flow (`scheme::file` lists them;
//!    a knob is the flow's value, else the file's default);
//! 2. the receiver starts at once in the receiver's namespace, the sender at
//!    the flow's start time in the sender's, each in its own process group
//!    with its output in `command-flow<i>/{receiver,sender}.log`; a receiver
//!    that has already failed when the sender is due fails the flow's start;
//! 3. the sender is told `{duration}`; at the flow's end it gets a grace of
//!    [`GRACE`] to exit by itself, then both groups get SIGTERM, then
//!    SIGKILL: nothing a command started outlives the run;
//! 4. the flow's error records a command that failed on its own (a non-zero
//!    exit before it was asked to stop), with its log's last line.
//!
//! The endpoints' byte counts are not known here (0 in flows.json): the
//! metrics come from the emulator's logs.
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use nix::sys::signal::Signal;

use super::{FlowOutcome, FlowPlan, RunCtx, RunningFlow};
use crate::scheme::file::substitute;
use crate::scheme::params::FlowParams;
use crate::scheme::CommandSpec;

/// How long a sender may take to exit by itself after its flow's end.
const GRACE: Duration = Duration::from_secs(2);

struct CommandFlow {
    outcome: FlowOutcome,
    receiver: Endpoint,
    sender: Endpoint,
}

struct Endpoint {
    role: &'static str,
    child: Child,
    log: PathBuf,
    /// Its exit, when it ended before being asked to.
    ended: Option<ExitStatus>,
}

pub fn start(
    ctx: &RunCtx<'_>,
    plan: FlowPlan<'_>,
    spec: &CommandSpec,
) -> Result<Box<dyn RunningFlow>> {
    let out = ctx.out.join(results::command_flow_dir(plan.index));
    let FlowParams::Command(knobs) = plan.params else {
        bail!("flow {}: not a command scheme", plan.index);
    };
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let duration = plan
        .stop_at
        .saturating_duration_since(plan.start_at)
        .as_secs()
        .max(1);
    let value = |name: &str| -> Option<String> {
        Some(match name {
            "addr" => plan.receiver_addr.to_string(),
            "sender_addr" => plan.sender_addr.to_string(),
            "port" => plan.port.to_string(),
            "duration" => duration.to_string(),
            "out" => out.display().to_string(),
            "dir" => spec.dir.display().to_string(),
            knob => knobs.value(knob)?.to_string(),
        })
    };
    let fill = |words: &[String], role: &str| -> Result<Vec<String>> {
        words
            .iter()
            .map(|w| {
                substitute(w, &value)
                    .map_err(|e| anyhow!("{role}: {e} (a knob with no default needs a value)"))
            })
            .collect()
    };
    let receiver_argv = fill(&spec.receiver, "receiver")?;
    let sender_argv = fill(&spec.sender, "sender")?;
    let mut receiver = Endpoint::spawn(
        plan.receiver_ns.command(&receiver_argv[0]),
        &receiver_argv,
        &out,
        "receiver",
    )?;
    // The sender starts at the flow's start time (at least a moment after
    // the receiver, which must be listening by then).
    std::thread::sleep(
        plan.start_at
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(200)),
    );
    if let Some(status) = receiver.child.try_wait()?.filter(|s| !s.success()) {
        let _ = receiver.stop();
        bail!(
            "the receiver `{}` exited ({status}) before the sender started: {}",
            receiver_argv.join(" "),
            last_line(&receiver.log)
        );
    }
    let sender = match Endpoint::spawn(
        plan.sender_ns.command(&sender_argv[0]),
        &sender_argv,
        &out,
        "sender",
    ) {
        Ok(s) => s,
        Err(e) => {
            let _ = receiver.stop();
            return Err(e);
        }
    };
    Ok(Box::new(CommandFlow {
        outcome: plan.outcome,
        receiver,
        sender,
    }))
}

impl Endpoint {
    fn spawn(
        mut cmd: Command,
        argv: &[String],
        out: &Path,
        role: &'static str,
    ) -> Result<Endpoint> {
        let log = out.join(results::command_log(role));
        let file =
            std::fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
        let child = cmd
            .args(&argv[1..])
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(file.try_clone()?)
            .stderr(file)
            .spawn()
            .with_context(|| format!("starting the {role} `{}`", argv.join(" ")))?;
        Ok(Endpoint {
            role,
            child,
            log,
            ended: None,
        })
    }

    /// Waits up to `limit` for it to exit by itself.
    fn wait_until(&mut self, limit: Instant) {
        while Instant::now() < limit {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.ended = Some(status);
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Ends its whole process group: SIGTERM, a moment, SIGKILL; reaps it.
    fn stop(&mut self) -> Result<()> {
        if self.ended.is_none() {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.ended = Some(status);
            }
        }
        let group = -(self.child.id() as i32);
        plumbing::process::signal(group, Signal::SIGTERM);
        let limit = Instant::now() + Duration::from_millis(500);
        while Instant::now() < limit && self.child.try_wait()?.is_none() {
            std::thread::sleep(Duration::from_millis(20));
        }
        // Whatever is left of the group (the leader, or what it started).
        plumbing::process::signal(group, Signal::SIGKILL);
        self.child.wait()?;
        Ok(())
    }

    /// Why it failed on its own, if it did.
    fn failure(&self) -> Option<String> {
        let status = self.ended.filter(|s| !s.success())?;
        Some(format!(
            "{} exited ({status}): {}",
            self.role,
            last_line(&self.log)
        ))
    }
}

/// The last non-empty line of a log, for an error.
fn last_line(log: &Path) -> String {
    std::fs::read_to_string(log)
        .ok()
        .and_then(|t| {
            t.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map(str::to_string)
        })
        .unwrap_or_else(|| format!("(nothing in {})", log.display()))
}

impl RunningFlow for CommandFlow {
    fn finish(self: Box<Self>) -> FlowOutcome {
        let CommandFlow {
            mut outcome,
            mut receiver,
            mut sender,
        } = *self;
        sender.wait_until(Instant::now() + GRACE);
        if let Ok(Some(status)) = receiver.child.try_wait() {
            receiver.ended = Some(status);
        }
        let stopped = [sender.stop(), receiver.stop()];
        let errors: Vec<String> = [sender.failure(), receiver.failure()]
            .into_iter()
            .flatten()
            .chain(
                stopped
                    .into_iter()
                    .filter_map(|r| r.err().map(|e| format!("{e:#}"))),
            )
            .collect();
        if !errors.is_empty() {
            outcome.error = Some(errors.join("; "));
        }
        outcome
    }

    fn abort(&mut self) {
        let _ = self.sender.stop();
        let _ = self.receiver.stop();
    }
}
