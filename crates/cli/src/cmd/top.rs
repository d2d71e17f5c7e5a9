// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp top`: every open c2tcp connection on the machine, refreshed each
//! second. The rows come straight from the kernel (bpfload::connections, a
//! BPF iterator over c2tcp's socket storage), in every network namespace;
//! no application is involved.
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::Result;
use bpfload::connections::{self, Connection};

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SortKey {
    /// Local address and port
    Local,
    /// Remote address and port
    Remote,
    Target,
    Alpha,
    MinRtt,
    /// Last tuning cycle's average RTT
    AvgRtt,
    Bad,
    Cwnd,
    Pacing,
    Delivery,
}

#[derive(clap::Args)]
#[command(
    after_help = "The rows come from a BPF iterator that `c2tcp load` pins. A kernel that refuses tracing \
programs (some hardened or virtualised hosts do, with EPERM) or lacks the iterator (before 5.9) gets c2tcp \
without it: `top` then says why and exits with status 69; everything else works."
)]
pub struct Args {
    /// Print one table (or JSON list) and exit
    #[arg(long)]
    once: bool,
    /// JSON: one list of connections per refresh, one per line (just one with --once)
    #[arg(long)]
    json: bool,
    /// Sort by this column; addresses ascending, numbers largest first
    #[arg(long, value_enum, default_value = "local")]
    sort: SortKey,
    /// Seconds between refreshes
    #[arg(long, default_value_t = 1.0, value_name = "SECONDS")]
    interval: f64,
}

fn sort(rows: &mut [Connection], key: SortKey) {
    let num = |c: &Connection| -> u64 {
        match key {
            SortKey::Target => c.target_us as u64,
            SortKey::Alpha => c.alpha_pct as u64,
            SortKey::MinRtt => c.min_rtt_us as u64,
            SortKey::AvgRtt => c.last_avg_rtt_us as u64,
            SortKey::Bad => c.bad_events as u64,
            SortKey::Cwnd => c.cwnd as u64,
            SortKey::Pacing => c.pacing_rate_bps.unwrap_or(u64::MAX),
            SortKey::Delivery => c.delivery_rate_bps,
            SortKey::Local | SortKey::Remote => 0,
        }
    };
    match key {
        SortKey::Local => rows.sort_by_key(|c| (c.local, c.remote, c.netns)),
        SortKey::Remote => rows.sort_by_key(|c| (c.remote, c.local, c.netns)),
        _ => rows.sort_by(|a, b| {
            num(b)
                .cmp(&num(a))
                .then((a.local, a.remote).cmp(&(b.local, b.remote)))
        }),
    }
}

/// Milliseconds, two decimals below 10 ms (loopback and LAN RTTs are µs).
fn ms(us: u32) -> String {
    let ms = us as f64 / 1000.0;
    if ms < 10.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.1}")
    }
}

/// The Target column: `auto` while the default (2 x min RTT) has no RTT yet.
fn target(c: &Connection) -> String {
    if c.target_us == 0 {
        "auto".into()
    } else {
        ms(c.target_us)
    }
}

fn mbit(bps: u64) -> String {
    format!("{:.1}", bps as f64 / 1e6)
}

/// The table, header first.
fn table(rows: &[Connection]) -> String {
    let mut out = format!(
        "{:<22} {:<22} {:<6} {:>8} {:<7} {:>5} {:>7} {:>7} {:<6} {:>5} {:>6} {:>8} {:>8}\n",
        "LOCAL",
        "REMOTE",
        "CC",
        "TARGET",
        "SOURCE",
        "ALPHA",
        "MINRTT",
        "AVGRTT",
        "COND",
        "BAD",
        "CWND",
        "PACING",
        "DELIVERY"
    );
    for c in rows {
        out += &format!(
            "{:<22} {:<22} {:<6} {:>8} {:<7} {:>5.2} {:>7} {:>7} {:<6} {:>5} {:>6} {:>8} {:>8}\n",
            c.local.to_string(),
            c.remote.to_string(),
            c.cc,
            target(c),
            c.target_source,
            c.alpha_pct as f64 / 100.0,
            ms(c.min_rtt_us),
            ms(c.last_avg_rtt_us),
            c.condition,
            c.bad_events,
            c.cwnd,
            c.pacing_rate_bps.map(mbit).unwrap_or_else(|| "-".into()),
            mbit(c.delivery_rate_bps),
        );
    }
    out
}

/// Exit status when this host's kernel gives `top` nothing to read
/// (sysexits' EX_UNAVAILABLE).
pub const EXIT_UNAVAILABLE: u8 = 69;

pub fn run(args: Args) -> Result<ExitCode> {
    bpfload::sys::require_root("c2tcp top")?;
    let stop = super::interrupt::install();
    let interval = Duration::from_secs_f64(args.interval.max(0.1));
    let mut stdout = std::io::stdout().lock();
    loop {
        let mut rows = match connections::connections() {
            Ok(rows) => rows,
            Err(e) => match e.downcast_ref::<connections::Unavailable>() {
                Some(why) => {
                    eprintln!("c2tcp: {why}");
                    return Ok(ExitCode::from(EXIT_UNAVAILABLE));
                }
                None => return Err(e),
            },
        };
        sort(&mut rows, args.sort);
        if args.json {
            writeln!(stdout, "{}", serde_json::to_string(&rows)?)?;
        } else {
            if !args.once {
                // Home and clear, as top(1) does.
                write!(stdout, "\x1b[H\x1b[2J")?;
                writeln!(
                    stdout,
                    "c2tcp top: {} connection(s); Target/RTT in ms, rates in Mbit/s; Ctrl-C quits",
                    rows.len()
                )?;
            }
            write!(stdout, "{}", table(&rows))?;
        }
        stdout.flush()?;
        if args.once {
            return Ok(ExitCode::SUCCESS);
        }
        let until = std::time::Instant::now() + interval;
        while std::time::Instant::now() < until {
            if stop.load(Ordering::Relaxed) {
                return Ok(ExitCode::SUCCESS);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
