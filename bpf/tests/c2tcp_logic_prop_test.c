// SPDX-License-Identifier: GPL-2.0
/*
 * Property tests of bpf/c2tcp_logic.h: the exact code the BPF program runs,
 * driven by a seeded PRNG over many random ACK/RTT sequences, with the
 * Action Enforcer applied to a cwnd as bpf/c2tcp.bpf.c's c2tcp_pkts_acked
 * applies it. Inputs cover the extremes: RTTs of 0 (ignored), 1 us and
 * 60 s, Targets of 1 ms and 10 000 ms (include/c2tcp.h's range) and the
 * "no Target" default of 2 x min RTT, pinned alpha at both ends of its
 * range, every one of the 256 behaviour sets (jsac = the authors' five,
 * paper = none, drain = jsac and three more) and variant changes
 * mid-connection, clock steps from 0 to a minute, windows from 1 segment
 * to 2^32 - 1, and delivered counts that wrap.
 *
 * After every ACK: cwnd is never 0 and Good growth never shrinks it; alpha
 * stays in its documented range ([1, 10] for the printed Tuner and a pinned
 * alpha, [0.01, 100] once the anchored Tuner has run); the Setpoint is
 * alpha x minRTT exactly (nothing truncated to 32 bits); the Interval is
 * within the Setpoints it came from and no shorter than Interval/256
 * (N_MAX) at a Bad; N stays in [1, N_MAX]; no counter wraps. A Bad never
 * raises cwnd and cuts it to 1 or, with BDP_FLOOR, to the last window's
 * delivered packets per min RTT, which never exceed what that window
 * delivered; with HOLD_SSTHRESH a Bad recomputes ssthresh only with cwnd at
 * or above it (or none set). Built with
 * -fsanitize=undefined -fno-sanitize-recover (Makefile), so any signed
 * overflow, bad shift or division by zero in the header aborts the test.
 *
 * C2TCP_PROP_SEED=<n> reruns another seed; C2TCP_PROP_SEQS the sequence
 * count. A failure prints the seed, sequence and ACK to replay it.
 * Build and run: make test-logic
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c2tcp_logic.h"
#include "check.h"

static uint64_t rng_state;

/* splitmix64: small, fast, and every seed is a good one. */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* Log-uniform in [lo, hi]: as many small values as large ones. */
static uint32_t log_uniform(uint32_t lo, uint32_t hi)
{
	double l = log((double)lo), h = log((double)hi);
	double v = exp(l + (h - l) * ((double)(rnd() >> 11) / 9007199254740992.0));
	uint32_t x = (uint32_t)v;

	return x < lo ? lo : x > hi ? hi : x;
}

#define RTT_MAX_US 60000000u /* the longest RTT the properties cover: 60 s */

static uint32_t pick_rtt(int mode, uint32_t base)
{
	static const uint32_t extremes[] = { 0, 1, 2, 999, 1000, 1001, 20000,
					     RTT_MAX_US - 1, RTT_MAX_US };

	switch (mode) {
	case 0:
		return extremes[below(sizeof(extremes) / sizeof(extremes[0]))];
	case 1:
		return log_uniform(1, RTT_MAX_US);
	case 2: { /* a path: base plus queueing up to 20x, now and then an extreme */
		uint64_t r = base + below((uint64_t)base * 20 + 1);

		if (below(50) == 0)
			return extremes[below(sizeof(extremes) / sizeof(extremes[0]))];
		return r > RTT_MAX_US ? RTT_MAX_US : (uint32_t)r;
	}
	default: /* the two ends only */
		return below(2) ? 1 : RTT_MAX_US;
	}
}

static uint64_t pick_dt(void)
{
	switch (below(8)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return below(1000);
	case 3:
	case 4:
		return below(100000);
	case 5:
		return below(2000000);
	case 6:
		return 60000000; /* a minute without ACKs */
	default:
		return below(20000);
	}
}

/* bpf/tcp_ca_common.h's tcp_set_cwnd, which needs a tcp_sock: the same
 * two guards on a plain value. */
static uint32_t set_cwnd(uint32_t cwnd, uint32_t clamp)
{
	if (cwnd < 1)
		cwnd = 1;
	if (cwnd > clamp)
		cwnd = clamp;
	return cwnd;
}

static unsigned long long seed, seq_no, ack_no;

#define PROP(cond, ...)                                                                  \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: %s failed (seed %llu, sequence %llu, ack %llu): ", \
				__FILE__, __LINE__, #cond, seed, seq_no, ack_no);        \
			fprintf(stderr, __VA_ARGS__);                                    \
			fputc('\n', stderr);                                             \
			failures++;                                                      \
			return;                                                          \
		}                                                                        \
	} while (0)

static unsigned long long acks_total, bads_total, goods_total, cycles_total;

/* One connection: a random configuration and a random ACK sequence. */
static void one_sequence(__u32 behaviours)
{
	static const __u32 targets[] = { C2TCP_TARGET_MIN_US, C2TCP_TARGET_MAX_US,
					 C2TCP_TARGET_MIN_US + 1, C2TCP_TARGET_MAX_US - 1,
					 50000, 0 /* none: 2 x min RTT, as resolve_target_us */ };
	struct c2tcp_state st;
	__u32 target_choice = targets[below(sizeof(targets) / sizeof(targets[0]))];
	__u32 pin = 0, cwnd, cnt, clamp, base_rtt, delivered = (__u32)rnd();
	__u32 win_delivered_before, ssthresh;
	__u64 win_start_before;
	__u64 now, max_setpoint = 0;
	__u32 min_seen = 0, max_seen = 0;
	int anchored_ever = !!(behaviours & C2TCP_B_ANCHORED_TUNER), mode = (int)below(4);
	int n_acks = 1 + (int)below(400), i;

	if (target_choice != 0 && below(3) == 0)
		target_choice = C2TCP_TARGET_MIN_US +
				(__u32)below(C2TCP_TARGET_MAX_US - C2TCP_TARGET_MIN_US + 1);
	switch (below(6)) {
	case 0:
		pin = C2TCP_ALPHA_MIN_PCT * 10;
		break;
	case 1:
		pin = C2TCP_ALPHA_MAX_PCT * 10;
		break;
	case 2:
		pin = 10 * (C2TCP_ALPHA_MIN_PCT +
			    (__u32)below(C2TCP_ALPHA_MAX_PCT - C2TCP_ALPHA_MIN_PCT + 1));
		break;
	default:
		pin = 0; /* the Tuner runs */
	}
	switch (below(5)) {
	case 0:
		cwnd = 1;
		break;
	case 1:
		cwnd = UINT32_MAX - (__u32)below(4);
		break;
	default:
		cwnd = log_uniform(1, 1u << 20);
	}
	cnt = below(2) ? 0 : (__u32)below(cwnd); /* Cubic's snd_cwnd_cnt, < cwnd */
	clamp = below(2) ? UINT32_MAX : cwnd + (__u32)below(1u << 16);
	if (clamp < cwnd)
		clamp = UINT32_MAX;
	ssthresh = below(2) ? C2TCP_INFINITE_SSTHRESH : log_uniform(2, 1u << 20);
	base_rtt = log_uniform(1, RTT_MAX_US);
	now = below(1ULL << 40); /* tcp_mstamp: us since boot */

	c2tcp_state_init(&st, behaviours);
	for (i = 0; i < n_acks; i++) {
		__u32 rtt = pick_rtt(mode, base_rtt), acked = (__u32)below(64);
		__u32 target = target_choice ? target_choice : 2 * st.min_rtt_us;
		__u32 prev_cycles = st.tune_cycles, prev_n = st.n_bad, cwnd_before;
		int blind = below(8) == 0, used;
		enum c2tcp_action act;

		ack_no = (unsigned long long)i;
		now += pick_dt();
		/* A C2TCP_VARIANT set mid-connection changes the behaviours
		 * from the next ACK (c2tcp_setsockopt). */
		if (below(300) == 0) {
			st.behaviours = (__u32)below(C2TCP_B_ALL + 1);
			anchored_ever |= !!(st.behaviours & C2TCP_B_ANCHORED_TUNER);
		}
		used = rtt != 0 && !(blind && (st.behaviours & C2TCP_B_BLIND_WINDOW));
		/* tcp_sock.delivered: up to a few thousand per ACK, wrapping */
		delivered += below(4) ? (__u32)below(64) : (__u32)below(1u << 16);
		win_delivered_before = st.win_delivered;
		win_start_before = st.win_start_us;
		if (rtt && (st.behaviours & C2TCP_B_BDP_FLOOR)) {
			__u32 bdp_before = st.bdp_pkts;

			c2tcp_track_delivered(&st, now, delivered);
			if (st.win_start_us != win_start_before && win_start_before &&
			    now >= win_start_before)
				/* a window closed: per min RTT, at most what it delivered */
				PROP(st.bdp_pkts <= (__u32)(delivered - win_delivered_before),
				     "%u per min RTT from a window that delivered %u", st.bdp_pkts,
				     (__u32)(delivered - win_delivered_before));
			else
				PROP(st.bdp_pkts == bdp_before, "BDP moved without a window's end");
			PROP(st.win_start_us != 0, "no window open after an ACK");
		}
		act = c2tcp_on_rtt(&st, now, rtt, target, pin, blind);
		acks_total++;

		if (used) {
			if (!min_seen || rtt < min_seen)
				min_seen = rtt;
			if (rtt > max_seen)
				max_seen = rtt;
		}
		/* The Action Enforcer, as c2tcp_pkts_acked does it. */
		cwnd_before = cwnd;
		if (act == C2TCP_ACT_BACKOFF) {
			__u32 w = c2tcp_backoff_cwnd(&st, cwnd);
			int sets = c2tcp_backoff_sets_ssthresh(&st, cwnd, ssthresh);

			if (st.behaviours & C2TCP_B_HOLD_SSTHRESH)
				PROP(sets == (cwnd >= ssthresh || ssthresh >= C2TCP_INFINITE_SSTHRESH),
				     "%s (cwnd %u, ssthresh %u)",
				     sets ? "a Bad below ssthresh recomputed it"
					  : "a Bad at or above ssthresh kept it",
				     cwnd, ssthresh);
			else
				PROP(sets, "a Bad kept ssthresh without HOLD_SSTHRESH");
			if (sets) {
				/* Cubic's recalc: max(cwnd x 717/1024, 2) */
				ssthresh = (__u32)((__u64)cwnd * 717 / 1024);
				if (ssthresh < 2)
					ssthresh = 2;
			}
			PROP(w >= 1 && w <= cwnd, "a Bad took cwnd %u to %u", cwnd, w);
			if (st.behaviours & C2TCP_B_BDP_FLOOR)
				PROP(w == (st.bdp_pkts > 1 ? (st.bdp_pkts < cwnd ? st.bdp_pkts : cwnd) : 1),
				     "a Bad took cwnd %u to %u, floor %u", cwnd, w, st.bdp_pkts);
			else
				PROP(w == 1, "a Bad without the floor took cwnd %u to %u", cwnd, w);
			cwnd = w;
			cnt = 0;
			bads_total++;
		} else if (act == C2TCP_ACT_GROW && (st.behaviours & C2TCP_B_SHARED_GROWTH)) {
			__u32 c = cwnd, n = cnt, rtt_ms = rtt / 1000 ? rtt / 1000 : 1;

			PROP((__u64)cnt + (st.setpoint_us / 1000) / rtt_ms <= UINT32_MAX,
			     "snd_cwnd_cnt %u + %u wraps", cnt, (st.setpoint_us / 1000) / rtt_ms);
			c2tcp_shared_growth(&st, rtt, &c, &n, clamp);
			PROP(c >= cwnd_before || c == clamp, "shared growth shrank cwnd %u -> %u",
			     cwnd_before, c);
			cnt = n;
			cwnd = set_cwnd(c, clamp);
			goods_total++;
		} else if (act == C2TCP_ACT_GROW && below(4) != 0 /* CA_Open, cwnd-limited */) {
			/* eq. 1 in 64 bits, to compare; nothing acked, nothing owed */
			__u64 per_ack = ((__u64)st.setpoint_us * C2TCP_GROWTH_SCALE) / rtt;
			__u64 credit = (__u64)st.growth_credit + per_ack * acked;
			__u64 unit = (__u64)cwnd * C2TCP_GROWTH_SCALE;
			__u32 credit_before = st.growth_credit;
			__u32 extra = c2tcp_good_growth(&st, cwnd, acked, rtt);

			if (acked == 0) {
				PROP(extra == 0 && st.growth_credit == credit_before,
				     "growth %u on an ACK of nothing", extra);
			} else {
				PROP(extra == credit / unit && credit / unit <= UINT32_MAX,
				     "Good growth %u segments, want %llu", extra,
				     (unsigned long long)(credit / unit));
				PROP(st.growth_credit == credit % unit,
				     "growth credit %u, want %llu (truncated to 32 bits)",
				     st.growth_credit, (unsigned long long)(credit % unit));
			}
			PROP((__u64)cwnd + extra <= UINT32_MAX, "cwnd %u + %u segments wraps", cwnd,
			     extra);
			if (extra)
				cwnd = set_cwnd(cwnd + extra, clamp);
			PROP(cwnd >= cwnd_before, "Good growth shrank cwnd %u -> %u", cwnd_before,
			     cwnd);
			goods_total++;
		}
		/* Cubic's own moves in between: a loss now and then, growth. */
		if (below(64) == 0) {
			cwnd = set_cwnd(cwnd - cwnd / 3, clamp);
			ssthresh = cwnd > 2 ? cwnd : 2;
		}
		else if (below(4) == 0 && cwnd < clamp)
			cwnd = set_cwnd(cwnd + 1, clamp);

		PROP(cwnd != 0, "cwnd is 0 after action %d", act);
		PROP(st.condition <= C2TCP_BAD, "condition %u", st.condition);
		PROP(st.n_bad >= 1 && st.n_bad <= C2TCP_N_MAX, "N %u", st.n_bad);
		PROP(st.n_bad >= prev_n || st.n_bad == 1, "N went from %u to %u", prev_n, st.n_bad);
		PROP(st.tune_cycles >= prev_cycles, "tune_cycles wrapped");
		if (pin && used)
			PROP(st.alpha_milli == pin, "alpha %u with alpha pinned at %u", st.alpha_milli,
			     pin);
		else if (anchored_ever)
			PROP(st.alpha_milli >= C2TCP_ALPHA_SAFE_MIN &&
				     st.alpha_milli <= C2TCP_ALPHA_SAFE_MAX,
			     "alpha %u outside the anchored Tuner's [%u, %u]", st.alpha_milli,
			     C2TCP_ALPHA_SAFE_MIN, C2TCP_ALPHA_SAFE_MAX);
		else
			PROP(st.alpha_milli >= C2TCP_ALPHA_MIN && st.alpha_milli <= C2TCP_ALPHA_MAX,
			     "alpha %u outside [%u, %u]", st.alpha_milli, C2TCP_ALPHA_MIN,
			     C2TCP_ALPHA_MAX);
		PROP(st.min_rtt_us == min_seen, "min RTT %u, want %u", st.min_rtt_us, min_seen);
		if (used) {
			__u64 want;

			if (st.behaviours & C2TCP_B_MS_GOOD_TEST)
				want = ((__u64)(st.min_rtt_us / 1000) * st.alpha_milli / C2TCP_ALPHA_ONE) *
				       1000;
			else
				want = (__u64)st.alpha_milli * st.min_rtt_us / C2TCP_ALPHA_ONE;
			if (want > UINT32_MAX)
				want = UINT32_MAX; /* saturated, never wrapped */
			PROP(st.setpoint_us == want,
			     "Setpoint %u, want %llu (alpha %u, min RTT %u)", st.setpoint_us,
			     (unsigned long long)want, st.alpha_milli, st.min_rtt_us);
			if (st.setpoint_us > max_setpoint)
				max_setpoint = st.setpoint_us;
		}
		PROP(st.base_interval_us <= max_setpoint, "Interval %u above every Setpoint (%llu)",
		     st.base_interval_us, (unsigned long long)max_setpoint);
		PROP(st.interval_us <= max_setpoint, "watch %u above every Setpoint (%llu)",
		     st.interval_us, (unsigned long long)max_setpoint);
		if (act == C2TCP_ACT_BACKOFF) {
			PROP((__u64)st.interval_us * 256 + 256 >= st.base_interval_us,
			     "watch %u shorter than Interval/256 (Interval %u, N %u)", st.interval_us,
			     st.base_interval_us, st.n_bad);
			PROP(st.next_check_us == now + st.interval_us, "next check %llu",
			     (unsigned long long)st.next_check_us);
		}
		if (st.last_avg_rtt_us)
			PROP(st.last_avg_rtt_us <= max_seen, "cycle average %u above every RTT (%u)",
			     st.last_avg_rtt_us, max_seen);
		PROP(st.cycle_rtt_sum_us <= (__u64)st.cycle_rtt_cnt * RTT_MAX_US, "cycle sum");
	}
	cycles_total += st.tune_cycles;
}

/* The Tuner's step alone, over its whole input range. */
static void tune_alpha_property(void)
{
	int i;

	for (i = 0; i < 200000; i++) {
		__u32 alpha = C2TCP_ALPHA_SAFE_MIN +
			      (__u32)below(C2TCP_ALPHA_SAFE_MAX - C2TCP_ALPHA_SAFE_MIN + 1);
		__u32 avg = below(4) ? log_uniform(1, RTT_MAX_US) : (__u32)below(3) * RTT_MAX_US / 2;
		__u32 target = below(3) ? (below(2) ? C2TCP_TARGET_MIN_US : C2TCP_TARGET_MAX_US)
					: log_uniform(C2TCP_TARGET_MIN_US, C2TCP_TARGET_MAX_US);
		__u32 a = c2tcp_tune_alpha(alpha, avg, target);
		long double want;

		seq_no = (unsigned long long)i;
		if (avg == 0) {
			CHECK_EQ(a, alpha);
			continue;
		}
		if (a < C2TCP_ALPHA_MIN || a > C2TCP_ALPHA_MAX) {
			fprintf(stderr, "tune_alpha(%u, %u, %u) = %u outside [1, 10]\n", alpha, avg,
				target, a);
			failures++;
			return;
		}
		/* eq. 16 in exact arithmetic, floored and clamped */
		if (avg > target)
			want = (long double)alpha * (1.0L - 2.0L * (avg - target) / avg);
		else
			want = (long double)alpha * (1.0L + (long double)(target - avg) / (2.0L * avg));
		if (want < 0)
			want = 0;
		want = floorl(want);
		if (want < C2TCP_ALPHA_MIN)
			want = C2TCP_ALPHA_MIN;
		if (want > C2TCP_ALPHA_MAX)
			want = C2TCP_ALPHA_MAX;
		if (fabsl(want - a) > 1) {
			fprintf(stderr, "tune_alpha(%u, %u, %u) = %u, eq. 16 says %.0Lf\n", alpha, avg,
				target, a, want);
			failures++;
			return;
		}
	}
}

/* The anchored Tuner's step: the authors' integer expressions never
 * overflow 64 bits for RTTs up to 60 s and Targets in range. */
static void anchored_property(void)
{
	int i;

	for (i = 0; i < 200000; i++) {
		__u32 avg_ms = (__u32)below(RTT_MAX_US / 1000 + 1);
		__u32 min_ms = below(4) ? (__u32)below(avg_ms + 1) : (__u32)below(3);
		__u32 target_ms = below(2) ? (below(2) ? C2TCP_TARGET_MIN_US / 1000
						      : C2TCP_TARGET_MAX_US / 1000)
					   : 1 + (__u32)below(C2TCP_TARGET_MAX_US / 1000);
		__u32 pct = c2tcp_tune_anchored_pct(avg_ms, min_ms, target_ms);
		unsigned __int128 a = (unsigned __int128)target_ms * 100 / (min_ms ? min_ms : 1);

		if (avg_ms > target_ms) {
			unsigned __int128 step = (unsigned __int128)2 * (avg_ms - target_ms) * a / avg_ms;

			if (step >> 64) {
				fprintf(stderr, "anchored step overflows 64 bits\n");
				failures++;
				return;
			}
			a = step >= a ? 0 : a - step;
			if (a < C2TCP_ALPHA_MIN / 10)
				a = C2TCP_ALPHA_MIN / 10;
		} else if (avg_ms && avg_ms < target_ms) {
			a += ((unsigned __int128)(target_ms - avg_ms) * a / 2) / avg_ms;
			if (a > C2TCP_ALPHA_MAX / 10)
				a = C2TCP_ALPHA_MAX / 10;
		}
		if (a > UINT32_MAX || pct != (__u32)a) {
			fprintf(stderr, "anchored(%u, %u, %u) = %u, want %llu\n", avg_ms, min_ms,
				target_ms, pct, (unsigned long long)a);
			failures++;
			return;
		}
	}
}

/* Interval / sqrt(N) against floating point, over every N and Interval. */
static void interval_property(void)
{
	int i;

	for (i = 0; i < 200000; i++) {
		__u32 interval = below(8) ? log_uniform(1, UINT32_MAX) : (__u32)below(3);
		__u32 n = below(4) ? 1 + (__u32)below(100) : (__u32)rnd();
		__u32 got = c2tcp_interval_div_sqrt(interval, n);
		double nn = n == 0 ? 1 : n > C2TCP_N_MAX ? C2TCP_N_MAX : n;
		double want = interval / sqrt(nn);

		if (fabs(got - want) > 1.0 + want * 1e-6 || got > interval) {
			fprintf(stderr, "interval_div_sqrt(%u, %u) = %u, want %.1f\n", interval, n, got,
				want);
			failures++;
			return;
		}
	}
}

/* The authors' Good growth on Cubic's counter, at the ends of the window:
 * cwnd never shrinks or wraps, the counter never wraps. */
static void shared_growth_property(void)
{
	int i;

	for (i = 0; i < 1000000; i++) {
		struct c2tcp_state st;
		__u32 cwnd = below(2) ? UINT32_MAX - (__u32)below(3) : log_uniform(1, UINT32_MAX);
		__u32 cnt = below(2) ? cwnd - 1 - (__u32)below(cwnd < 100 ? cwnd : 100)
				     : (__u32)below(cwnd);
		__u32 clamp = below(2) ? UINT32_MAX : cwnd + (__u32)below(UINT32_MAX - cwnd + 1ULL);
		__u32 rtt = pick_rtt((int)below(4), 1000), c = cwnd, n = cnt;
		__u64 add;

		c2tcp_state_init(&st, C2TCP_B_JSAC);
		st.setpoint_us = below(2) ? UINT32_MAX : log_uniform(1, UINT32_MAX);
		add = (st.setpoint_us / 1000) / (rtt / 1000 ? rtt / 1000 : 1);
		c2tcp_shared_growth(&st, rtt, &c, &n, clamp);
		/* cwnd grows by whole windows of the counter, up to clamp; the
		 * counter keeps the rest */
		__u64 total = (__u64)cnt + add, want = cwnd + total / cwnd;

		if (want > clamp)
			want = clamp;
		if (total >= cwnd ? (c != want || n != total % cwnd) : (c != cwnd || n != total)) {
			fprintf(stderr,
				"shared_growth(cwnd %u, cnt %u, clamp %u, Setpoint %u, rtt %u) = cwnd %u, cnt %u\n",
				cwnd, cnt, clamp, st.setpoint_us, rtt, c, n);
			failures++;
			return;
		}
	}
}

/* C2TCP_VARIANT: valid exactly as include/c2tcp.h says, and the
 * behaviours of any value are a subset of C2TCP_B_ALL. */
static void variant_property(void)
{
	int i;

	for (i = 0; i < 1000000; i++) {
		__u32 v = (__u32)rnd() >> (below(4) * 8), def = (__u32)rnd() & 0xffffff;
		__u32 base = v & 0xff, on = (v >> 8) & 0xff, off = (v >> 16) & 0xff;
		int want = base <= 3 && (v >> 24) == 0 && (on & ~0xffu) == 0 && (off & ~0xffu) == 0 &&
			   (on & off) == 0;

		CHECK_EQ(c2tcp_variant_valid(v), want);
		CHECK_EQ(c2tcp_behaviours(v, def) & ~C2TCP_B_ALL, 0);
		if (failures)
			return;
	}
}

int main(void)
{
	const char *s = getenv("C2TCP_PROP_SEED"), *n = getenv("C2TCP_PROP_SEQS");
	unsigned long long seqs = n ? strtoull(n, NULL, 0) : 20000;

	seed = s ? strtoull(s, NULL, 0) : 0xc2c2;
	rng_state = seed;
	for (seq_no = 0; seq_no < seqs && failures < 5; seq_no++)
		one_sequence((__u32)(seq_no % (C2TCP_B_ALL + 1))); /* every behaviour set */
	tune_alpha_property();
	anchored_property();
	interval_property();
	shared_growth_property();
	variant_property();
	if (failures) {
		fprintf(stderr, "c2tcp_logic_prop_test: %d failure(s) (seed %llu)\n", failures, seed);
		return 1;
	}
	printf("c2tcp_logic_prop_test: %llu sequences, %llu ACKs (%llu Good, %llu Bad, %llu tuning cycles), "
	       "seed %llu: all properties hold\n",
	       seqs, acks_total, goods_total, bads_total, cycles_total, seed);
	return 0;
}
