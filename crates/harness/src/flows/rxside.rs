// SPDX-License-Identifier: GPL-2.0-only
//! Receiver-side control flows (`dfcsd`, `drwa`, `<rule>+<cc>`): our own
//! traffic generator with the scheme's sender congestion control, the
//! receiving socket registered with the run's controller (`rxctl`, in the UE)
//! as soon as it is accepted and unregistered when the flow ends.
use std::net::TcpStream;
use std::sync::Arc;

use anyhow::{Context, Result};
use rxctl::{Controller, FlowId};

use super::{own, FlowPlan, RunCtx, RunningFlow};

/// One flow's registration; dropping it (the receiver thread ends) lets go.
struct Registration {
    ctl: Arc<Controller>,
    label: String,
    id: Option<FlowId>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            self.ctl.unregister(id);
        }
    }
}

pub fn start(ctx: &RunCtx<'_>, plan: FlowPlan<'_>) -> Result<Box<dyn RunningFlow>> {
    let ctl = ctx
        .rxctl
        .clone()
        .context("this run has no receiver-side controller")?;
    let mut reg = Registration {
        ctl,
        label: plan.outcome.label.clone(),
        id: None,
    };
    let hook = move |conn: &TcpStream| -> Result<()> {
        let id = reg
            .ctl
            .register(conn, &reg.label)
            .context("registering with the receiver-side controller")?;
        reg.id = Some(id);
        Ok(())
    };
    own::start_with(ctx, plan, Some(Box::new(hook)))
}
