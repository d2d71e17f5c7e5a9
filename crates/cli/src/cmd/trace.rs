// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp trace`: look at traces and make new ones (synthetic, from a rate
//! schedule, or derived: scaled, windowed, concatenated).
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Subcommand;
use emu::rate_spec::TraceSpec;
use emu::trace::{Summary, Trace, OUTAGE_GAP_MS};
use emu::{synth, transform};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: TraceCommand,
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Duration, mean/peak/min rate and outage time of Mahimahi traces
    Stats(StatsArgs),
    /// Write a synthetic trace: a cellular link (default), a constant rate, or steps
    Synth(SynthArgs),
    /// Turn a rate schedule (`SECONDS MBPS` per line) into a trace
    FromRate(FromRateArgs),
    /// Turn a throughput log (G-NetTrack CSV, or `time,Mbit/s` CSV) into a trace
    Import(ImportArgs),
    /// Convert an emulator log (ours or Mahimahi's mm-link log) into pcapng
    LogToPcap(LogToPcapArgs),
    /// Record a real link as a trace: Saturator's sender and receiver (docs/capture.md)
    Capture(super::capture::Args),
    /// Multiply a trace's rate by a factor, its timing kept (C2TCP Fig. 17: 3x)
    Scale(ScaleArgs),
    /// Cut a time window out of a trace
    Window(WindowArgs),
    /// Join traces one after the other
    Concat(ConcatArgs),
}

#[derive(clap::Args)]
#[command(
    after_help = "Each arrival, departure and drop line becomes one packet record with a comment saying     which (`arrival`, `departure queue_delay=<ms>` with ` ce` if the queue marked it, `drop <reason>`), as `c2tcp emulate --pcap` writes.     A log has no packet bytes: each record holds a made-up IPv4 header (and ports) from the line's flow     (`# flow` lines; 0.0.0.0 when the log has none, as Mahimahi's) and the packet's real length. Times     are the log's base timestamp plus the line's time, µs."
)]
struct LogToPcapArgs {
    /// The log (docs/log-format.md, or a Mahimahi --downlink-log/--uplink-log)
    log: PathBuf,
    /// Where to write the pcapng file
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(clap::Args)]
#[command(
    after_help = "Each millisecond's delivery opportunities are multiplied by FACTOR, the \
fraction carried to the next (so every stretch keeps its shape and the total is FACTOR times the \
input's to within one opportunity); the loop period (the last line) is kept.\n\nExample:\n  \
c2tcp trace scale traces/mahimahi/TMobile-LTE-short.down --factor 3 -o lte-3x.down"
)]
struct ScaleArgs {
    /// The input trace
    input: PathBuf,
    /// Rate factor, in (0, 100]
    #[arg(long)]
    factor: f64,
    /// Where to write the trace
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(clap::Args)]
#[command(
    after_help = "Keeps the opportunities in (START, END], shifted by START, so consecutive \
windows concatenated give back the trace. The result loops at its last opportunity.\n\nExample:\n  \
c2tcp trace window traces/mahimahi/ATT-LTE-driving.down --start 0 --end 60 -o att-60s.down"
)]
struct WindowArgs {
    /// The input trace
    input: PathBuf,
    /// Window start, seconds from the trace's start
    #[arg(long, default_value_t = 0.0)]
    start: f64,
    /// Window end, seconds from the trace's start
    #[arg(long)]
    end: f64,
    /// Where to write the trace
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(clap::Args)]
#[command(
    after_help = "Each trace is shifted by the periods (last timestamps) of those before it.\n\n\
Example:\n  c2tcp trace concat a.down b.down -o ab.down"
)]
struct ConcatArgs {
    /// The traces, in order (two or more)
    #[arg(required = true, num_args = 2..)]
    inputs: Vec<PathBuf>,
    /// Where to write the trace
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(clap::Args)]
struct StatsArgs {
    /// Trace files (one delivery-opportunity timestamp in ms per line; plain
    /// or .gz; a name such as TMobile-LTE-short.down is looked up as `run`
    /// looks it up) or rate specs (constant:MBPS, steps:START_S:MBPS,...@PERIOD_S)
    #[arg(required = true)]
    traces: Vec<String>,
    /// Print JSON instead of a table
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
#[command(
    after_help = "The default model is Sprout's (NSDI 2013, §3): deliveries form a Poisson process whose \
    rate moves in Brownian motion (pulled gently towards --mean) and sticks at 0 in outages that end at \
    --escape-rate per second. Same --seed, same trace.\n\nExamples:\n  \
    c2tcp trace synth -o lte.down --seed 1\n  \
    c2tcp trace synth -o c12 --constant 12 --duration 1\n  \
    c2tcp trace synth -o steps --steps 0:24,10:6,20:0,21:12 --duration 30\n\n\
    Rates above 10000 Mbit/s are refused; above 1000 Mbit/s (what docs/emulator.md shows the emulator \
    delivering on two cores) the trace is written with a warning."
)]
struct SynthArgs {
    /// Where to write the trace
    #[arg(short, long)]
    output: PathBuf,
    /// Length in seconds (the trace loops with this period)
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// A constant rate in Mbit/s instead of the cellular model
    #[arg(long, value_name = "MBPS", conflicts_with = "steps")]
    constant: Option<f64>,
    /// Piecewise-constant rates instead of the cellular model: START_S:MBPS,...
    #[arg(long, value_name = "SCHEDULE")]
    steps: Option<String>,
    /// Seed of the cellular model
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Cellular model: the mean rate, Mbit/s
    #[arg(long, default_value_t = 10.0)]
    mean: f64,
    /// Cellular model: the highest rate, Mbit/s
    #[arg(long, default_value_t = 30.0)]
    max: f64,
    /// Cellular model: Brownian noise power, Mbit/s per √s (Sprout's σ = 200 pkt/s/√s = 2.4)
    #[arg(long, default_value_t = 4.0)]
    sigma: f64,
    /// Cellular model: pull towards the mean per second (0 = pure Brownian motion)
    #[arg(long, default_value_t = 0.2)]
    reversion: f64,
    /// Cellular model: outage escape rate per second (Sprout's λz = 1)
    #[arg(long, default_value_t = 1.0)]
    escape_rate: f64,
}

#[derive(clap::Args)]
struct FromRateArgs {
    /// Schedule file: `SECONDS MBPS` per line (rate from that time on), first at 0; `#` comments
    schedule: PathBuf,
    /// Where to write the trace
    #[arg(short, long)]
    output: PathBuf,
    /// Length in seconds
    #[arg(long)]
    duration: f64,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ImportFormat {
    /// G-NetTrack Pro's CSV (the UCC 5G dataset): Timestamp, DL_bitrate/UL_bitrate in kbit/s
    Gnettrack,
    /// `SECONDS,MBPS` per row (e.g. a per-second iPerf log); a header row and `#` comments allowed
    Plain,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ImportSpacing {
    /// Equally spaced inside each logged interval
    Even,
    /// The same count per interval at uniform random ms (Poisson given the count), seeded
    Poisson,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ImportDirection {
    Down,
    Up,
}

#[derive(clap::Args)]
#[command(
    after_help = "A row's rate holds from its time until the next row's (the last for one second); \
the trace starts at 0 and loops at its end. G-NetTrack's clock is whole seconds: rows sharing a \
timestamp are averaged, a skipped second holds the rate before it, and rows the filters leave out \
(by default those whose State is not D, i.e. the app was not downloading) are cut out of the \
timeline. Inside each interval the opportunities (1500 bytes each) are spaced evenly or, with \
--spacing poisson, at uniform random milliseconds (a Poisson process given the count); either way \
each interval keeps the log's rate to within one opportunity. A once-a-second log says nothing \
of sub-second bursts, short outages or the cell's delay: the trace cannot have them.\n\n\
--bridge-restarts (G-NetTrack download logs, such as the UCC 5G dataset's): the recorder restarts \
its download every 10-15 s, with a ping test between two downloads; each restart is a second or two \
near zero and a ramp, which a trace would replay as outages of the cell. The ping test's row marks \
each one; the restart is that row, the rows just before it below half the level of the download \
that ends (at most 2) and those just after it below half the level of the one that starts (at most \
6), a download's level being the median of its rows 3 or more rows from either marker. Those \
seconds are cut out and the rows around them joined; every other dip is kept as the cell's. The \
window (--start/--end) is taken first, so it is the same stretch of the recording with or without \
the restarts (docs/5g.md, \"The recording's restarts\").\n\n\
Errors name the file and line. Input may be gzip-compressed.\n\n\
Examples:\n  \
c2tcp trace import B_2020.02.14_13.21.26.csv -o static.down\n  \
c2tcp trace import B_2020.02.14_13.21.26.csv --start 30 --end 150 --bridge-restarts -o static-bridged.down\n  \
c2tcp trace import B_2020.02.14_13.21.26.csv --direction up --state all -o static.up\n  \
c2tcp trace import iperf.csv --format plain --spacing poisson --seed 3 -o lumos.down\n  \
c2tcp trace import drive.csv --start 60 --end 660 -o drive-10min.down"
)]
struct ImportArgs {
    /// The throughput log
    input: PathBuf,
    /// Where to write the trace (Mahimahi format)
    #[arg(short, long)]
    output: PathBuf,
    /// The log's format
    #[arg(long, value_enum, default_value = "gnettrack")]
    format: ImportFormat,
    /// How opportunities are placed inside each logged interval
    #[arg(long, value_enum, default_value = "even")]
    spacing: ImportSpacing,
    /// Seed of --spacing poisson (same seed, same trace)
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// G-NetTrack: the rate column, DL_bitrate (down) or UL_bitrate (up)
    #[arg(long, value_enum, default_value = "down")]
    direction: ImportDirection,
    /// G-NetTrack: keep rows in these States (comma-separated; `all` keeps every row)
    #[arg(long, default_value = "D", value_delimiter = ',')]
    state: Vec<String>,
    /// G-NetTrack: keep only rows of these NetworkModes (comma-separated, e.g. 5G), default all
    #[arg(long, value_delimiter = ',')]
    network_mode: Vec<String>,
    /// Start of the part to import, seconds into the (filtered) log
    #[arg(long, default_value_t = 0.0)]
    start: f64,
    /// End of the part to import, seconds into the (filtered) log (default: its end)
    #[arg(long)]
    end: Option<f64>,
    /// G-NetTrack: cut out the recorder's download restarts (each marked by a ping test row)
    #[arg(long)]
    bridge_restarts: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        TraceCommand::Stats(a) => stats(a),
        TraceCommand::Synth(a) => synth_cmd(a),
        TraceCommand::FromRate(a) => from_rate(a),
        TraceCommand::Import(a) => import(a),
        TraceCommand::LogToPcap(a) => log_to_pcap(a),
        TraceCommand::Capture(a) => super::capture::run(a),
        TraceCommand::Scale(a) => {
            let input = Trace::load(&a.input)?;
            let out = transform::scale(&input.opportunities, a.factor)
                .with_context(|| format!("scaling {}", a.input.display()))?;
            write_and_report(&a.output, out)
        }
        TraceCommand::Window(a) => {
            let input = Trace::load(&a.input)?;
            let (start, end) = (seconds_ms("--start", a.start)?, seconds_ms("--end", a.end)?);
            let out = transform::window(&input.opportunities, start, end)
                .with_context(|| format!("windowing {}", a.input.display()))?;
            write_and_report(&a.output, out)
        }
        TraceCommand::Concat(a) => {
            let inputs = a
                .inputs
                .iter()
                .map(|p| Trace::load(p).map(|t| t.opportunities))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&[u64]> = inputs.iter().map(Vec::as_slice).collect();
            write_and_report(&a.output, transform::concat(&refs)?)
        }
    }
}

fn duration_ms(secs: f64) -> Result<u64> {
    if !(secs.is_finite() && secs >= 0.001) {
        bail!("--duration must be at least 0.001 s, got {secs}");
    }
    Ok((secs * 1000.0).round() as u64)
}

fn seconds_ms(flag: &str, secs: f64) -> Result<u64> {
    if !(secs.is_finite() && secs >= 0.0) {
        bail!("{flag} must be a time in seconds, at least 0, got {secs}");
    }
    Ok((secs * 1000.0).round() as u64)
}

fn stats(a: StatsArgs) -> Result<ExitCode> {
    let mut rows = Vec::new();
    for path in &a.traces {
        let summary = match emu::LinkSpec::parse(path)? {
            emu::LinkSpec::Trace(TraceSpec::Rate(rate)) => rate.trace()?.summary(),
            // A trace by path, else by name as `run` finds it (traces/).
            emu::LinkSpec::Trace(TraceSpec::File(_)) if Path::new(path).is_file() => {
                Trace::load(Path::new(path))?.summary()
            }
            emu::LinkSpec::Trace(TraceSpec::File(_)) => {
                Trace::load(&harness::data::resolve_trace(path, None)?)?.summary()
            }
            emu::LinkSpec::CellReplay { .. } => {
                bail!("{path}: trace stats reads one trace, not CellReplay's pair (give its heavy trace)")
            }
        };
        rows.push((path.clone(), summary));
    }
    if a.json {
        let v: Vec<_> = rows
            .iter()
            .map(|(p, s)| serde_json::json!({ "trace": p, "stats": s }))
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    let w = rows.iter().map(|(p, _)| p.len()).max().unwrap_or(5).max(5);
    println!(
        "{:w$}  {:>10}  {:>13}  {:>10}  {:>10}  {:>10}  {:>8}",
        "trace", "duration s", "opportunities", "mean Mb/s", "peak Mb/s", "min Mb/s", "outage s"
    );
    for (p, s) in &rows {
        print_row(p, s, w);
    }
    println!("(peak/min over whole seconds; outage = gaps of at least {OUTAGE_GAP_MS} ms without an opportunity)");
    Ok(ExitCode::SUCCESS)
}

fn print_row(p: &str, s: &Summary, w: usize) {
    println!(
        "{:w$}  {:>10.3}  {:>13}  {:>10.3}  {:>10.3}  {:>10.3}  {:>8.3}",
        p,
        s.duration_ms as f64 / 1000.0,
        s.opportunities,
        s.mean_mbps,
        s.peak_mbps,
        s.min_mbps,
        s.outage_ms as f64 / 1000.0
    );
}

fn write_and_report(path: &Path, opportunities: Vec<u64>) -> Result<ExitCode> {
    synth::write(path, &opportunities)?;
    let trace = Trace {
        path: path.to_path_buf(),
        opportunities,
    };
    if let Some(w) = emu::rate_spec::rate_warning(&trace) {
        eprintln!("c2tcp trace: {w}");
    }
    let s = trace.summary();
    eprintln!(
        "wrote {}: {:.3} s, {} opportunities, mean {:.2} Mbit/s (peak {:.2}, min {:.2}), {:.1} s of outage",
        path.display(),
        s.duration_ms as f64 / 1000.0,
        s.opportunities,
        s.mean_mbps,
        s.peak_mbps,
        s.min_mbps,
        s.outage_ms as f64 / 1000.0
    );
    Ok(ExitCode::SUCCESS)
}

fn synth_cmd(a: SynthArgs) -> Result<ExitCode> {
    let ms = duration_ms(a.duration)?;
    let opportunities = if let Some(mbps) = a.constant {
        emu::rate_spec::check_mbps("--constant", mbps, true)?;
        synth::constant(mbps, ms)?
    } else if let Some(steps) = &a.steps {
        let schedule = synth::parse_schedule("--steps", steps)?;
        for (t, mbps) in &schedule {
            emu::rate_spec::check_mbps(&format!("--steps at {t} s"), *mbps, false)?;
        }
        synth::from_rate(&schedule, ms)?
    } else {
        emu::rate_spec::check_mbps("--max", a.max, true)?;
        synth::Cellular {
            duration_ms: ms,
            seed: a.seed,
            mean_mbps: a.mean,
            max_mbps: a.max,
            sigma_mbps: a.sigma,
            reversion: a.reversion,
            escape_rate: a.escape_rate,
        }
        .generate()?
    };
    write_and_report(&a.output, opportunities)
}

fn from_rate(a: FromRateArgs) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&a.schedule)
        .with_context(|| format!("reading {}", a.schedule.display()))?;
    let schedule = synth::parse_schedule(&a.schedule.display().to_string(), &text)?;
    for (t, mbps) in &schedule {
        let at = format!("{} at {t} s", a.schedule.display());
        emu::rate_spec::check_mbps(&at, *mbps, false)?;
    }
    let opportunities = synth::from_rate(&schedule, duration_ms(a.duration)?)
        .with_context(|| format!("in {}", a.schedule.display()))?;
    write_and_report(&a.output, opportunities)
}

fn import(a: ImportArgs) -> Result<ExitCode> {
    use emu::import::{self, Direction, Format, GNetTrackFilter, Spacing};
    let format = match a.format {
        ImportFormat::Plain => Format::Plain,
        ImportFormat::Gnettrack => Format::GNetTrack(GNetTrackFilter {
            direction: match a.direction {
                ImportDirection::Down => Direction::Down,
                ImportDirection::Up => Direction::Up,
            },
            states: if a.state.iter().any(|s| s == "all") {
                Vec::new()
            } else {
                a.state.clone()
            },
            network_modes: a.network_mode.clone(),
        }),
    };
    let schedule = import::read(&a.input, &format)?;
    eprintln!("{}", import::describe(&a.input, &schedule));
    let end = a.end.map(|e| seconds_ms("--end", e)).transpose()?;
    let mut schedule = schedule
        .window(seconds_ms("--start", a.start)?, end)
        .with_context(|| format!("importing {}", a.input.display()))?;
    if a.bridge_restarts {
        let (bridged, cut) = schedule
            .bridge_restarts()
            .with_context(|| format!("--bridge-restarts: {}", a.input.display()))?;
        let spans: Vec<String> = cut
            .spans
            .iter()
            .map(|(a, b)| format!("{}-{}", *a as f64 / 1000.0, *b as f64 / 1000.0))
            .collect();
        eprintln!(
            "bridged {} restarts: {:.0} s of {:.0} s cut out, mean {:.2} Mbit/s before, {:.2} after \
             (cut, s of the imported part: {})",
            cut.spans.len(),
            cut.cut_ms() as f64 / 1000.0,
            schedule.duration_ms as f64 / 1000.0,
            schedule.mean_mbps(),
            bridged.mean_mbps(),
            spans.join(" ")
        );
        schedule = bridged;
    }
    let spacing = match a.spacing {
        ImportSpacing::Even => Spacing::Even,
        ImportSpacing::Poisson => Spacing::Poisson { seed: a.seed },
    };
    let opportunities = schedule
        .opportunities(spacing)
        .with_context(|| format!("importing {}", a.input.display()))?;
    write_and_report(&a.output, opportunities)
}

/// A stand-in for a logged packet's headers: IPv4 with its real total
/// length and the flow's addresses, then the ports for TCP/UDP.
fn synth_headers(flow: Option<&metrics::FlowInfo>, bytes: u32, out: &mut Vec<u8>) {
    use metrics::Protocol;
    out.clear();
    let endpoint = |e: &str| -> ([u8; 4], u16) {
        let (ip, port) = e.rsplit_once(':').unwrap_or((e, "0"));
        let ip: std::net::Ipv4Addr = ip.parse().unwrap_or(std::net::Ipv4Addr::UNSPECIFIED);
        (ip.octets(), port.parse().unwrap_or(0))
    };
    let (proto, (src, sport), (dst, dport)) = match flow {
        Some(f) => {
            let p = match f.proto {
                Protocol::Tcp => 6,
                Protocol::Udp => 17,
                Protocol::Icmp => 1,
                Protocol::Other => 255,
            };
            (p, endpoint(&f.src), endpoint(&f.dst))
        }
        None => (255, ([0; 4], 0), ([0; 4], 0)),
    };
    out.extend_from_slice(&[0x45, 0]);
    out.extend_from_slice(&(bytes.min(65535) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0x40, 0, 64, proto, 0, 0]);
    out.extend_from_slice(&src);
    out.extend_from_slice(&dst);
    if matches!(proto, 6 | 17) {
        out.extend_from_slice(&sport.to_be_bytes());
        out.extend_from_slice(&dport.to_be_bytes());
    }
}

fn log_to_pcap(a: LogToPcapArgs) -> Result<ExitCode> {
    use emu::pcap::{write_epb, write_headers, Event};
    use metrics::log::{Event as Line, LogReader};
    use std::io::Write;
    let mut reader = LogReader::open(&a.log)?;
    let file = std::fs::File::create(&a.output)
        .with_context(|| format!("creating {}", a.output.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let write_err = |e| anyhow::Error::from(e).context(format!("writing {}", a.output.display()));
    write_headers(&mut out, &format!("converted from {}", a.log.display())).map_err(write_err)?;
    let mut flows = std::collections::HashMap::new();
    let (mut head, mut n) = (Vec::with_capacity(24), 0u64);
    while let Some(line) = reader.next_event()? {
        let (t, bytes, flow, event) = match line {
            Line::Flow(f) => {
                flows.insert(f.id, f);
                continue;
            }
            Line::Opportunity { .. } => continue,
            Line::Arrival { t, bytes, flow } => (t, bytes, flow, Event::Arrival),
            Line::Departure {
                t,
                bytes,
                queue_delay,
                flow,
                ce,
                l4s,
                ..
            } => (t, bytes, flow, Event::Departure(queue_delay, ce, l4s)),
            Line::Drop {
                t,
                bytes,
                reason,
                flow,
            } => (t, bytes, flow, Event::Drop(reason)),
        };
        let base_us = reader.header().base_timestamp_ms.unwrap_or(0) * 1000;
        synth_headers(flows.get(&flow), bytes, &mut head);
        write_epb(&mut out, base_us + t, &head, bytes, event).map_err(write_err)?;
        n += 1;
    }
    out.flush().map_err(write_err)?;
    eprintln!(
        "wrote {}: {n} packet records from {}",
        a.output.display(),
        a.log.display()
    );
    Ok(ExitCode::SUCCESS)
}
