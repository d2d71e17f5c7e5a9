/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LEDBAT (RFC 6817, "Low Extra Delay Background Transport"), the decision
 * part, as µTP runs it: a scavenger that keeps the queueing delay it adds
 * near TARGET and gets out of the way of anything that pushes it higher.
 *
 * Delay. Every ACK gives a one-way delay sample d, measured against a clock
 * offset nobody knows (the two ends' clocks are unsynchronised). The offset
 * cancels in queuing_delay = FILTER(current delays) - MIN(base delays):
 *   - base delays: the minimum of each of the last BASE_HISTORY (10) minutes,
 *     so a route change or clock drift ages out within ten minutes;
 *   - current delays: the last CURRENT_FILTER (4) samples, of which the
 *     minimum is taken (the RFC's recommended filter, against noise).
 * Raw samples are u32 with an arbitrary offset; they are compared modulo 2^32
 * ((s32)(a - b) < 0), so an offset near the wrap does not matter.
 *
 * Window (RFC 6817 §2.4.2, GAIN = 1), per ACK of `acked` packets:
 *
 *     off_target = (TARGET - queuing_delay) / TARGET
 *     cwnd      += GAIN * off_target * acked / cwnd
 *
 * so an empty queue grows cwnd by one packet per RTT (as Reno), a queue at
 * TARGET holds it, and a queue above TARGET shrinks it in proportion. The
 * fraction is kept exactly in an accumulator (units: µs x packets), no
 * floating point. cwnd grows only while the flight fills it (RFC:
 * cwnd <= flightsize + ALLOWED_INCREASE) and never falls below MIN_CWND (2).
 * A loss halves it (the kernel's recovery, ssthresh = max(cwnd / 2, 2)).
 *
 * Slow start is left open by the RFC; like the LEDBAT implementations that
 * use it we leave it as soon as the queueing delay exceeds TARGET / 2, so a
 * new flow does not overshoot the target by a whole window.
 */
#ifndef LEDBAT_LOGIC_H
#define LEDBAT_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#define LEDBAT_TARGET_US 100000u	/* RFC 6817: TARGET <= 100 ms; µTP uses 100 */
#define LEDBAT_BASE_HISTORY 10u		/* minutes of base-delay minima kept */
#define LEDBAT_CURRENT_FILTER 4u	/* samples the current delay is the min of */
#define LEDBAT_MIN_CWND 2u
#define LEDBAT_ROLLOVER_US 60000000ull	/* one base-delay slot per minute */

/*
 * The delay history: 10 + 4 raw samples, newest first. Arrays are shifted
 * rather than indexed as rings: a BPF program may touch icsk_ca_priv only at
 * constant offsets, so every loop here is fully unrolled.
 */
struct ledbat_delays {
	__u32 base[LEDBAT_BASE_HISTORY]; /* [0] is this minute's minimum */
	__u32 cur[LEDBAT_CURRENT_FILTER]; /* [0] is the newest sample */
	__u64 slot_start_us; /* when base[0]'s minute began */
	__u32 base_n;	     /* base slots in use */
	__u32 cur_n;	     /* current slots in use */
};

#if defined(__clang__)
#define LEDBAT_UNROLL _Pragma("clang loop unroll(full)")
#else
#define LEDBAT_UNROLL _Pragma("GCC unroll 16")
#endif

/* a earlier-than b, modulo 2^32. */
static __always_inline int ledbat_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

static __always_inline void ledbat_delays_init(struct ledbat_delays *d)
{
	int i;

	LEDBAT_UNROLL
	for (i = 0; i < (int)LEDBAT_BASE_HISTORY; i++)
		d->base[i] = 0;
	LEDBAT_UNROLL
	for (i = 0; i < (int)LEDBAT_CURRENT_FILTER; i++)
		d->cur[i] = 0;
	d->base_n = 0;
	d->cur_n = 0;
	d->slot_start_us = 0;
}

/* One one-way delay sample (any unit, any offset) at local time now_us. */
static __always_inline void ledbat_delays_add(struct ledbat_delays *d, __u32 owd, __u64 now_us)
{
	int i;

	LEDBAT_UNROLL
	for (i = LEDBAT_CURRENT_FILTER - 1; i > 0; i--)
		d->cur[i] = d->cur[i - 1];
	d->cur[0] = owd;
	if (d->cur_n < LEDBAT_CURRENT_FILTER)
		d->cur_n++;

	if (d->base_n == 0) {
		d->base[0] = owd;
		d->base_n = 1;
		d->slot_start_us = now_us;
	} else if (now_us - d->slot_start_us >= LEDBAT_ROLLOVER_US) {
		/* A new minute: the oldest minimum falls off the end. */
		LEDBAT_UNROLL
		for (i = LEDBAT_BASE_HISTORY - 1; i > 0; i--)
			d->base[i] = d->base[i - 1];
		d->base[0] = owd;
		if (d->base_n < LEDBAT_BASE_HISTORY)
			d->base_n++;
		d->slot_start_us = now_us;
	} else if (ledbat_before(owd, d->base[0])) {
		d->base[0] = owd;
	}
}

/* FILTER(current) - MIN(base), in the samples' unit; 0 with no samples. */
static __always_inline __u32 ledbat_queuing_delay(const struct ledbat_delays *d)
{
	__u32 cur, base;
	int i;

	if (d->cur_n == 0 || d->base_n == 0)
		return 0;
	cur = d->cur[0];
	LEDBAT_UNROLL
	for (i = 1; i < (int)LEDBAT_CURRENT_FILTER; i++)
		if ((__u32)i < d->cur_n && ledbat_before(d->cur[i], cur))
			cur = d->cur[i];
	base = d->base[0];
	LEDBAT_UNROLL
	for (i = 1; i < (int)LEDBAT_BASE_HISTORY; i++)
		if ((__u32)i < d->base_n && ledbat_before(d->base[i], base))
			base = d->base[i];
	return ledbat_before(cur, base) ? 0 : cur - base;
}

/*
 * The window after an ACK of `acked` packets in congestion avoidance.
 * *acc carries the fraction: a whole packet is TARGET x cwnd of it.
 * `may_grow` is false when the flight does not fill cwnd (the RFC's
 * flightsize + ALLOWED_INCREASE cap): then cwnd only shrinks.
 */
static __always_inline __u32 ledbat_cwnd_after_ack(__u32 cwnd, __s64 *acc, __u32 qdelay_us,
						    __u32 target_us, __u32 acked, int may_grow)
{
	__s64 off = (__s64)target_us - (__s64)qdelay_us;
	__u64 whole, mag;

	if (cwnd < LEDBAT_MIN_CWND)
		cwnd = LEDBAT_MIN_CWND;
	if (off > 0 && !may_grow) {
		*acc = 0;
		return cwnd;
	}
	*acc += off * (__s64)acked;
	whole = (__u64)target_us * cwnd;
	/* Unsigned division only: BPF before cpu v4 has no signed one. */
	if (*acc >= 0) {
		mag = (__u64)*acc / whole;
		*acc -= (__s64)(mag * whole);
		return cwnd + (__u32)mag;
	}
	mag = (__u64)(-*acc) / whole;
	*acc += (__s64)(mag * whole);
	if (mag >= cwnd - LEDBAT_MIN_CWND) {
		*acc = 0;
		return LEDBAT_MIN_CWND;
	}
	return cwnd - (__u32)mag;
}

/* Slow start goes on while the queue is under half the target. */
static __always_inline int ledbat_keep_slow_start(__u32 qdelay_us, __u32 target_us)
{
	return qdelay_us < target_us / 2;
}

/* RFC 6817: on loss, cwnd = max(cwnd / 2, MIN_CWND). */
static __always_inline __u32 ledbat_loss_cwnd(__u32 cwnd)
{
	return cwnd / 2 > LEDBAT_MIN_CWND ? cwnd / 2 : LEDBAT_MIN_CWND;
}

#endif /* LEDBAT_LOGIC_H */
