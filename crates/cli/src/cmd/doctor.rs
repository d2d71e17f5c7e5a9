// SPDX-License-Identifier: GPL-2.0-only
use std::process::ExitCode;

use anyhow::Result;
use bpfload::doctor::Report;

#[derive(clap::Args)]
#[command(
    after_help = "Lines start with PASS, WARN (works, without an optional kernel feature: the line says \
what changes) or FAIL (with the kernel's own error). Each congestion control is loaded into the kernel in the \
form `c2tcp load` would use and released at once; nothing is attached. docs/kernels.md lists every kernel \
feature c2tcp uses, the first kernel that has it and what c2tcp does without it. Exit status 1 when anything \
is FAIL."
)]
pub struct Args {
    /// Print the report as JSON ({kernel, checks, features, ccs, commands})
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let report = bpfload::doctor::report();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&report);
    }
    Ok(if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn line(verdict: &str, width: usize, name: &str, detail: &str) {
    println!("{verdict}  {name:width$}  {detail}");
}

fn print_text(r: &Report) {
    let width = r
        .checks
        .iter()
        .map(|c| c.name.len())
        .chain(r.features.iter().map(|f| f.name.len()))
        .chain(r.ccs.iter().map(|c| c.name.len()))
        .chain(r.commands.iter().map(|c| c.command.len()))
        .max()
        .unwrap_or(0);
    for c in &r.checks {
        line(if c.ok { "PASS" } else { "FAIL" }, width, c.name, &c.detail);
    }
    println!("\nkernel {}: features (docs/kernels.md)", r.kernel);
    for f in &r.features {
        let (verdict, detail) = if f.present {
            ("PASS", format!("{} (Linux {}+)", f.what, f.first_kernel))
        } else if !f.degrades {
            (
                "PASS",
                format!(
                    "{} (Linux {}+): {}; older form used: {}",
                    f.state, f.first_kernel, f.detail, f.without
                ),
            )
        } else {
            (
                "WARN",
                format!(
                    "{} (Linux {}+): {}; {}",
                    f.state, f.first_kernel, f.detail, f.without
                ),
            )
        };
        line(verdict, width, f.name, &detail);
    }
    println!("\ncongestion controls");
    for c in &r.ccs {
        let verdict = match (c.loadable, c.degraded.is_empty()) {
            (false, _) => "FAIL",
            (true, true) => "PASS",
            (true, false) => "WARN",
        };
        let mut detail = c.detail.clone();
        if c.loadable && !c.degraded.is_empty() {
            detail.push_str(&format!("; without {}", c.degraded.join("; without ")));
        }
        if c.loadable && !c.older_forms.is_empty() {
            detail.push_str(&format!("; older forms for {}", c.older_forms.join(", ")));
        }
        if let Some(f) = &c.ecn_feedback {
            detail.push_str(&format!("; CE feedback: {f}"));
        }
        line(verdict, width, c.name, &detail);
    }
    println!("\ncommands");
    for c in &r.commands {
        line(
            if c.ok { "PASS" } else { "WARN" },
            width,
            c.command,
            &c.detail,
        );
    }
}
