// SPDX-License-Identifier: GPL-2.0-only
//! Trace transforms users need to derive one trace from others:
//!
//! - `scale`: the rate times a factor, timing preserved. Each millisecond's
//!   opportunities are multiplied by the factor, the fractional part carried
//!   to the next millisecond that has opportunities (error diffusion), so
//!   every stretch of the trace keeps its shape and the total is the factor
//!   times the input's to within one opportunity. This is "increased the link
//!   capacity 3× at each arbitrary time" of C2TCP's §VII-E (Fig. 17). The
//!   last millisecond always keeps at least one opportunity: a Mahimahi
//!   trace's last line is its loop period, which must not change.
//! - `window`: the opportunities in (start, end], shifted by start (from 0,
//!   [0, end], keeping a trace's opportunities at 0 ms), so that consecutive
//!   windows concatenated give back the trace; the result loops at its last
//!   opportunity (a trace cannot end in silence).
//! - `concat`: traces one after the other, each shifted by the periods of
//!   those before it, so each keeps its own timing and the result's period is
//!   the sum of theirs.
use anyhow::{bail, Result};

/// The largest factor `scale` accepts: beyond it a trace is no longer a
/// cellular link the emulator can serve (one opportunity is 1504 bytes, so
/// a 50 Mbit/s trace scaled 100× is 5 Gbit/s).
pub const MAX_FACTOR: f64 = 100.0;

/// `opportunities` (sorted ms timestamps) with the rate times `factor`.
pub fn scale(opportunities: &[u64], factor: f64) -> Result<Vec<u64>> {
    if !(factor.is_finite() && factor > 0.0 && factor <= MAX_FACTOR) {
        bail!("scale factor must be a number in (0, {MAX_FACTOR}], got {factor}");
    }
    let mut out = Vec::with_capacity((opportunities.len() as f64 * factor) as usize + 1);
    let mut carry = 0.0;
    let mut i = 0;
    while i < opportunities.len() {
        let ms = opportunities[i];
        let n = opportunities[i..].iter().take_while(|&&t| t == ms).count();
        i += n;
        let want = n as f64 * factor + carry;
        let mut k = want.floor() as usize;
        carry = want - k as f64;
        if i == opportunities.len() && k == 0 {
            k = 1; // keep the loop period
        }
        out.extend(std::iter::repeat_n(ms, k));
    }
    if out.is_empty() {
        bail!("scaling by {factor} leaves no opportunity");
    }
    Ok(out)
}

/// The opportunities in (start_ms, end_ms] ([0, end_ms] from 0), shifted by start_ms.
pub fn window(opportunities: &[u64], start_ms: u64, end_ms: u64) -> Result<Vec<u64>> {
    if end_ms <= start_ms {
        bail!("window end {end_ms} ms must be after its start {start_ms} ms");
    }
    let out: Vec<u64> = opportunities
        .iter()
        .filter(|&&t| (t > start_ms || start_ms == 0) && t <= end_ms)
        .map(|&t| t - start_ms)
        .collect();
    match out.last() {
        None => {
            bail!("no delivery opportunity in ({start_ms}, {end_ms}] ms: the window holds no link")
        }
        Some(_) => Ok(out),
    }
}

/// The traces one after the other.
pub fn concat(traces: &[&[u64]]) -> Result<Vec<u64>> {
    if traces.len() < 2 {
        bail!("concatenation needs two traces or more");
    }
    let mut out = Vec::with_capacity(traces.iter().map(|t| t.len()).sum());
    let mut offset = 0;
    for t in traces {
        let Some(&period) = t.last() else {
            bail!("an empty trace cannot be concatenated");
        };
        out.extend(t.iter().map(|&ms| ms + offset));
        offset += period;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opportunities per 100 ms bin.
    fn bins(opps: &[u64], n: usize) -> Vec<usize> {
        let mut b = vec![0; n];
        for &t in opps {
            b[((t.saturating_sub(1)) / 100) as usize] += 1;
        }
        b
    }

    /// A varying trace: 1, 3, 0, 7 opportunities a ms in turn over 1 s,
    /// from 0 ms (real traces start with opportunities at 0).
    fn varying() -> Vec<u64> {
        (0..=1000u64)
            .flat_map(|ms| std::iter::repeat_n(ms, [1, 3, 0, 7][(ms % 4) as usize]))
            .collect()
    }

    #[test]
    fn scale_multiplies_the_rate_and_keeps_the_timing() {
        let input = varying();
        for factor in [3.0, 0.5, 1.7, 1.0] {
            let out = scale(&input, factor).unwrap();
            let want = input.len() as f64 * factor;
            assert!(
                (out.len() as f64 - want).abs() <= 1.0,
                "{factor}: {} vs {want}",
                out.len()
            );
            assert_eq!(out.last(), input.last(), "{factor}: the period is kept");
            assert!(out.windows(2).all(|w| w[0] <= w[1]));
            // Every 100 ms bin is scaled, not only the total.
            for (a, b) in bins(&input, 10).iter().zip(bins(&out, 10)) {
                assert!(
                    (b as f64 - *a as f64 * factor).abs() <= 1.0,
                    "{factor}: {a} → {b}"
                );
            }
        }
        assert_eq!(scale(&input, 1.0).unwrap(), input);
    }

    #[test]
    fn scale_refuses_bad_factors() {
        for f in [0.0, -1.0, f64::NAN, f64::INFINITY, MAX_FACTOR * 2.0] {
            let e = scale(&[1, 2, 3], f).unwrap_err().to_string();
            assert!(e.contains("scale factor"), "{f}: {e}");
        }
        // Thinning to nothing still keeps the period's opportunity.
        assert_eq!(scale(&[5, 10], 0.01).unwrap(), vec![10]);
    }

    #[test]
    fn window_and_concat_keep_timing() {
        let input = varying();
        let w = window(&input, 200, 600).unwrap();
        assert_eq!(
            w.first(),
            Some(&1),
            "the opportunity at 201 ms is now at 1 ms"
        );
        assert_eq!(
            w.len(),
            input.iter().filter(|&&t| t > 200 && t <= 600).count()
        );
        // Consecutive windows concatenated give back the trace.
        let parts = [
            window(&input, 0, 300).unwrap(),
            window(&input, 300, 1000).unwrap(),
        ];
        assert_eq!(concat(&[&parts[0], &parts[1]]).unwrap(), input);
        assert!(window(&input, 600, 200).is_err());
        assert!(window(&input, 5000, 6000).is_err());
        let c = concat(&[&[2, 5], &[1, 1, 4]]).unwrap();
        assert_eq!(c, vec![2, 5, 6, 6, 9]);
        assert!(concat(&[&[1]]).is_err());
    }
}
