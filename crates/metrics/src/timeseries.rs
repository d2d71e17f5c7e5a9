// SPDX-License-Identifier: GPL-2.0-only
//! Binned time series of a run (C2TCP Fig. 7 style): what the link offered,
//! what arrived, what each flow got, and the queueing delay of the packets
//! that left in each bin. Covers the whole log, warm-up included, so plots
//! show start-up; the metrics' window is in `metrics.json`.
use std::path::Path;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::delay::{new_histogram, quantile_ms};
use crate::log::Micros;
use crate::Error;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeSeries {
    pub bin_s: f64,
    /// Names of the per-flow throughput columns, in `flows[]` order.
    pub flow_names: Vec<String>,
    pub rows: Vec<TimeSeriesRow>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeSeriesRow {
    /// Start of the bin, seconds since the log's base timestamp.
    pub t_s: f64,
    pub capacity_mbps: f64,
    /// Bits arriving at the queue (all flows, selected or not).
    pub ingress_mbps: f64,
    /// Selected flows' departures.
    pub throughput_mbps: f64,
    /// Queueing delay of the selected flows' packets departing in the bin.
    pub queue_delay_mean_ms: Option<f64>,
    pub queue_delay_p95_ms: Option<f64>,
    pub drops: u64,
    pub flow_throughput_mbps: Vec<f64>,
}

/// Accumulates bins while the log streams by.
#[derive(Clone, Debug)]
pub(crate) struct Binner {
    bin: Micros,
    capacity: Vec<u64>,
    ingress: Vec<u64>,
    departed: Vec<u64>,
    drops: Vec<u64>,
    delay_sum: Vec<u64>,
    delay_count: Vec<u64>,
    delay_p95: Vec<Option<f64>>,
    /// [flow][bin] bytes.
    flow_departed: Vec<Vec<u64>>,
    /// Departures come in time order, so one histogram serves the open bin.
    open_bin: usize,
    open_histogram: Histogram<u64>,
}

fn add(series: &mut Vec<u64>, bin: usize, amount: u64) {
    if series.len() <= bin {
        series.resize(bin + 1, 0);
    }
    series[bin] += amount;
}

impl Binner {
    pub fn new(bin: Micros) -> Self {
        Binner {
            bin,
            capacity: Vec::new(),
            ingress: Vec::new(),
            departed: Vec::new(),
            drops: Vec::new(),
            delay_sum: Vec::new(),
            delay_count: Vec::new(),
            delay_p95: Vec::new(),
            flow_departed: Vec::new(),
            open_bin: 0,
            // Plot precision is enough here, and the histogram is reset per bin.
            open_histogram: new_histogram(3),
        }
    }

    fn index(&self, t: Micros) -> usize {
        (t / self.bin) as usize
    }

    pub fn opportunity(&mut self, t: Micros, bytes: u32) {
        let bin = self.index(t);
        add(&mut self.capacity, bin, bytes.into());
    }

    pub fn arrival(&mut self, t: Micros, bytes: u32) {
        let bin = self.index(t);
        add(&mut self.ingress, bin, bytes.into());
    }

    pub fn drop(&mut self, t: Micros) {
        let bin = self.index(t);
        add(&mut self.drops, bin, 1);
    }

    pub fn departure(&mut self, t: Micros, bytes: u32, queue_delay: Micros, flow: usize) {
        let bin = self.index(t);
        add(&mut self.departed, bin, bytes.into());
        if self.flow_departed.len() <= flow {
            self.flow_departed.resize(flow + 1, Vec::new());
        }
        add(&mut self.flow_departed[flow], bin, bytes.into());
        add(&mut self.delay_sum, bin, queue_delay);
        add(&mut self.delay_count, bin, 1);
        if bin > self.open_bin {
            self.close_open_bin();
            self.open_bin = bin;
        }
        // A rare out-of-order line lands in the open bin's percentile.
        self.open_histogram.saturating_record(queue_delay);
    }

    fn close_open_bin(&mut self) {
        if self.delay_p95.len() <= self.open_bin {
            self.delay_p95.resize(self.open_bin + 1, None);
        }
        self.delay_p95[self.open_bin] = quantile_ms(&self.open_histogram, 0.95);
        self.open_histogram.reset();
    }

    pub fn finish(mut self, flow_names: Vec<String>) -> TimeSeries {
        self.close_open_bin();
        let bins = [&self.capacity, &self.ingress, &self.departed, &self.drops]
            .iter()
            .map(|s| s.len())
            .max()
            .unwrap_or(0);
        let at = |series: &Vec<u64>, i: usize| series.get(i).copied().unwrap_or(0);
        let mbps = |bytes: u64| bytes as f64 * 8.0 / self.bin as f64;
        let rows = (0..bins)
            .map(|i| {
                let count = at(&self.delay_count, i);
                TimeSeriesRow {
                    t_s: (i as u64 * self.bin) as f64 / 1e6,
                    capacity_mbps: mbps(at(&self.capacity, i)),
                    ingress_mbps: mbps(at(&self.ingress, i)),
                    throughput_mbps: mbps(at(&self.departed, i)),
                    queue_delay_mean_ms: (count > 0)
                        .then(|| at(&self.delay_sum, i) as f64 / count as f64 / 1000.0),
                    queue_delay_p95_ms: self.delay_p95.get(i).copied().flatten(),
                    drops: at(&self.drops, i),
                    flow_throughput_mbps: (0..flow_names.len())
                        .map(|f| mbps(self.flow_departed.get(f).map_or(0, |s| at(s, i))))
                        .collect(),
                }
            })
            .collect();
        TimeSeries {
            bin_s: self.bin as f64 / 1e6,
            flow_names,
            rows,
        }
    }
}

const FIXED_COLUMNS: [&str; 7] = [
    "t_s",
    "capacity_mbps",
    "ingress_mbps",
    "throughput_mbps",
    "queue_delay_mean_ms",
    "queue_delay_p95_ms",
    "drops",
];
const FLOW_COLUMN_PREFIX: &str = "throughput_mbps:";

impl TimeSeries {
    /// CSV with one row per bin; per-flow columns are `throughput_mbps:<name>`;
    /// an empty cell is a bin with no departures.
    pub fn write_csv(&self, path: &Path) -> Result<(), Error> {
        wholefile::write_with(path, |f| self.write_rows(csv::Writer::from_writer(f)))
            .map_err(|e: csv::Error| Error::io(path, e.into()))
    }

    fn write_rows<W: std::io::Write>(&self, mut w: csv::Writer<W>) -> Result<(), csv::Error> {
        let flow_columns = self
            .flow_names
            .iter()
            .map(|n| format!("{FLOW_COLUMN_PREFIX}{n}"));
        w.write_record(
            FIXED_COLUMNS
                .iter()
                .map(|s| s.to_string())
                .chain(flow_columns),
        )?;
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.3}"));
        for r in &self.rows {
            let fixed = [
                format!("{:.3}", r.t_s),
                format!("{:.4}", r.capacity_mbps),
                format!("{:.4}", r.ingress_mbps),
                format!("{:.4}", r.throughput_mbps),
                opt(r.queue_delay_mean_ms),
                opt(r.queue_delay_p95_ms),
                r.drops.to_string(),
            ];
            let flows = r.flow_throughput_mbps.iter().map(|v| format!("{v:.4}"));
            w.write_record(fixed.into_iter().chain(flows))?;
        }
        Ok(w.flush()?)
    }

    pub fn read_csv(path: &Path) -> Result<TimeSeries, Error> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        TimeSeries::read_csv_from(file, path)
    }

    /// [`TimeSeries::read_csv`] from any reader (`path` names it in errors).
    pub fn read_csv_from(input: impl std::io::Read, path: &Path) -> Result<TimeSeries, Error> {
        let mut r = csv::Reader::from_reader(input);
        let header = r
            .headers()
            .map_err(|e| Error::parse(path, 1, e.to_string()))?
            .clone();
        if header.len() < FIXED_COLUMNS.len()
            || header.iter().zip(FIXED_COLUMNS).any(|(a, b)| a != b)
        {
            return Err(Error::parse(
                path,
                1,
                format!("columns must start with {}", FIXED_COLUMNS.join(",")),
            ));
        }
        let flow_names: Vec<String> = header
            .iter()
            .skip(FIXED_COLUMNS.len())
            .map(|c| c.strip_prefix(FLOW_COLUMN_PREFIX).unwrap_or(c).to_owned())
            .collect();
        let mut rows = Vec::new();
        for (i, record) in r.records().enumerate() {
            let line = i as u64 + 2;
            let record = record.map_err(|e| Error::parse(path, line, e.to_string()))?;
            let num = |j: usize| -> Result<Option<f64>, Error> {
                let cell = record.get(j).unwrap_or("");
                if cell.is_empty() {
                    return Ok(None);
                }
                cell.parse()
                    .map(Some)
                    .map_err(|_| Error::parse(path, line, format!("{cell:?} is not a number")))
            };
            let req = |j: usize| num(j).map(|v| v.unwrap_or(0.0));
            rows.push(TimeSeriesRow {
                t_s: req(0)?,
                capacity_mbps: req(1)?,
                ingress_mbps: req(2)?,
                throughput_mbps: req(3)?,
                queue_delay_mean_ms: num(4)?,
                queue_delay_p95_ms: num(5)?,
                drops: req(6)? as u64,
                flow_throughput_mbps: (FIXED_COLUMNS.len()..header.len())
                    .map(req)
                    .collect::<Result<_, _>>()?,
            });
        }
        let bin_s = match rows.as_slice() {
            [a, b, ..] => b.t_s - a.t_s,
            _ => 0.0,
        };
        Ok(TimeSeries {
            bin_s,
            flow_names,
            rows,
        })
    }
}
