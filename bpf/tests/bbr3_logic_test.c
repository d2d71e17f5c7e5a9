// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of bpf/bbr3_logic.h: the phase machine (STARTUP, DRAIN,
 * PROBE_BW's DOWN/CRUISE/REFILL/UP cycle, PROBE_RTT), the bandwidth and
 * min-RTT filters, inflight_hi and the 2 % loss threshold, inflight_lo and
 * bw_lo with beta, the ECN response (off unless enabled), and the whole
 * controller on a model bottleneck (bpf/tests/tcp_sim.h) with a one-BDP
 * buffer.
 */
#include <math.h>

#include "../bbr3_logic.h"
#include "check.h"
#include "tcp_sim.h"

#define CHECK_TRUE(cond, ...)                                                     \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                             \
			fprintf(stderr, "\n");                                    \
			failures++;                                               \
		}                                                                 \
	} while (0)

/* ---- the controller on the model path ---- */

struct b3sim {
	struct bbr3 b;
	__u32 cwnd;
	__u64 pacing_rate;
	__u32 ecn_ok;
	__u32 ecn_max_rtt_us;
	/* phase history: each (mode, cycle_idx) change, in order */
	int trail[4096];
	int trail_n;
	double probe_rtt_entered;
	int probe_rtts;
};

static int phase_of(const struct bbr3 *b)
{
	return b->mode == BBR3_PROBE_BW ? 10 + b->cycle_idx : b->mode;
}

static void fill_in(struct sim *s, const struct b3sim *x, struct bbr3_in *in)
{
	memset(in, 0, sizeof(*in));
	in->now_us = (__u64)(s->now * 1e6);
	in->delivered_mstamp = (__u64)(s->delivered_time * 1e6);
	in->edt_ahead_us = s->next_send > s->now ? (__u64)((s->next_send - s->now) * 1e6) : 0;
	in->pacing_rate = x->pacing_rate;
	in->max_pacing_rate = ~0ULL;
	in->delivered = s->delivered;
	in->delivered_ce = s->delivered_ce;
	in->lost = s->lost;
	in->cwnd = x->cwnd;
	in->cwnd_clamp = 1u << 20;
	in->inflight = s->inflight;
	in->srtt_us = (__u32)(s->srtt * 1e6);
	in->tcp_min_rtt_us = (__u32)(s->min_rtt * 1e6);
	in->mss = SIM_MSS;
	in->pacing_shift = 10;
	in->min_tso_segs = 2;
	in->rand = (__u32)(sim_rnd(s) * 4294967295.0);
	in->ecn_max_rtt_us = x->ecn_max_rtt_us;
	in->ca_state = (__u8)s->ca_state;
	in->ecn_ok = (__u8)x->ecn_ok;
}

static void b3_sim_ack(struct sim *s, const struct sim_ack *a)
{
	struct b3sim *x = s->cc;
	struct bbr3_in in;
	struct bbr3_out out;
	int before = phase_of(&x->b);

	fill_in(s, x, &in);
	in.cwnd_limited = (__u8)a->cwnd_limited;
	in.rs_interval_us = a->interval >= 0 ? (__s64)(a->interval * 1e6) : -1;
	in.rs_rtt_us = a->rtt >= 0 ? (__s64)(a->rtt * 1e6) : -1;
	in.rs_delivered = a->rs_delivered;
	in.rs_losses = (__s32)a->losses;
	in.rs_prior_delivered = a->prior_delivered;
	in.rs_acked_sacked = a->acked;
	in.rs_prior_in_flight = a->prior_in_flight;
	in.rs_is_app_limited = (__u8)a->app_limited;
	b3_on_ack(&x->b, &in, &out);
	x->cwnd = out.cwnd;
	x->pacing_rate = out.pacing_rate;
	if (phase_of(&x->b) != before && x->trail_n < 4096) {
		x->trail[x->trail_n++] = phase_of(&x->b);
		if (x->b.mode == BBR3_PROBE_RTT) {
			x->probe_rtts++;
			x->probe_rtt_entered = s->now;
		}
	}
}

static __u32 b3_sim_cwnd(struct sim *s)
{
	return ((struct b3sim *)s->cc)->cwnd;
}

static double b3_sim_pacing(struct sim *s)
{
	return (double)((struct b3sim *)s->cc)->pacing_rate;
}

static void b3_sim_init(struct sim *s, struct b3sim *x, double mbps, double rtt_ms, int buffer, double loss,
			__u64 seed)
{
	struct bbr3_in in;
	struct bbr3_out out;

	sim_init(s, mbps, rtt_ms, buffer, loss, seed);
	memset(x, 0, sizeof(*x));
	x->cwnd = 10;
	x->ecn_max_rtt_us = B3_ECN_MAX_RTT_US;
	fill_in(s, x, &in);
	b3_start(&x->b, &in, &out);
	x->cwnd = out.cwnd;
	x->pacing_rate = out.pacing_rate;
	x->trail[x->trail_n++] = phase_of(&x->b);
	s->cc = x;
	s->on_ack = b3_sim_ack;
	s->cwnd = b3_sim_cwnd;
	s->pacing = b3_sim_pacing;
}

static double bdp_pkts(double mbps, double rtt_ms)
{
	return mbps * 125000.0 * rtt_ms / 1000.0 / SIM_MSS;
}

/* STARTUP -> DRAIN -> PROBE_BW, and PROBE_BW's cycle in its order: DOWN
 * -> CRUISE -> REFILL -> UP -> DOWN (DOWN may go straight to REFILL when
 * it is time to probe before the queue has drained). */
static void test_phase_machine(void)
{
	static struct sim s;
	static struct b3sim x;
	int i, seen[16] = {0}, bad = 0;

	b3_sim_init(&s, &x, 24, 40, (int)bdp_pkts(24, 40), 0, 11);
	CHECK_EQ(x.b.mode, BBR3_STARTUP);
	CHECK_EQ(x.b.pacing_gain, B3_STARTUP_PACING_GAIN);
	sim_run(&s, 30);
	CHECK_TRUE(x.trail_n >= 4, "only %d phase changes", x.trail_n);
	CHECK_EQ(x.trail[0], BBR3_STARTUP);
	CHECK_EQ(x.trail[1], BBR3_DRAIN);
	CHECK_EQ(x.trail[2], 10 + BBR3_DOWN);
	for (i = 0; i < x.trail_n; i++)
		seen[x.trail[i]] = 1;
	CHECK_TRUE(seen[10 + BBR3_UP] && seen[10 + BBR3_DOWN] && seen[10 + BBR3_CRUISE] && seen[10 + BBR3_REFILL],
		   "PROBE_BW phases seen: up %d down %d cruise %d refill %d", seen[10], seen[11], seen[12], seen[13]);
	for (i = 3; i < x.trail_n; i++) {
		int from = x.trail[i - 1], to = x.trail[i];
		int ok = (from == 10 + BBR3_DOWN && (to == 10 + BBR3_CRUISE || to == 10 + BBR3_REFILL)) ||
			 (from == 10 + BBR3_CRUISE && to == 10 + BBR3_REFILL) ||
			 (from == 10 + BBR3_REFILL && to == 10 + BBR3_UP) ||
			 (from == 10 + BBR3_UP && to == 10 + BBR3_DOWN) ||
			 to == BBR3_PROBE_RTT ||
			 (from == BBR3_PROBE_RTT && to == 10 + BBR3_CRUISE);

		if (!ok && !bad) {
			fprintf(stderr, "phase %d -> %d at step %d\n", from, to, i);
			bad = 1;
		}
	}
	CHECK_EQ(bad, 0);
	/* Probes come every 2-3 s (wall clock) or sooner by the Reno count,
	 * and PROBE_RTT (every 5 s on a path whose RTT never drops below its
	 * minimum) restarts that clock: at least one per 4 s. */
	{
		int ups = 0;

		for (i = 0; i < x.trail_n; i++)
			ups += x.trail[i] == 10 + BBR3_UP;
		CHECK_TRUE(ups >= 7, "%d probes in 30 s", ups);
	}
	/* Gains of the phases. */
	x.b.mode = BBR3_PROBE_BW;
	x.b.cycle_idx = BBR3_UP;
	b3_update_gains(&x.b);
	CHECK_EQ(x.b.pacing_gain, B3_UNIT * 5 / 4);
	CHECK_EQ(x.b.cwnd_gain, B3_UNIT * 9 / 4);
	x.b.cycle_idx = BBR3_DOWN;
	b3_update_gains(&x.b);
	CHECK_EQ(x.b.pacing_gain, B3_UNIT * 91 / 100);
	x.b.cycle_idx = BBR3_CRUISE;
	b3_update_gains(&x.b);
	CHECK_EQ(x.b.pacing_gain, B3_UNIT);
	x.b.mode = BBR3_DRAIN;
	b3_update_gains(&x.b);
	CHECK_EQ(x.b.pacing_gain, B3_UNIT * 1000 / 2885);
}

/* PROBE_RTT: 5 s without an RTT at or below the 5-s minimum. The window
 * drops to half the BDP (at least 4) for 200 ms and a round, the samples
 * are marked app-limited, then PROBE_BW resumes in CRUISE. */
static void test_probe_rtt(void)
{
	static struct sim s;
	static struct b3sim x;
	__u32 min_before;
	double entered;

	b3_sim_init(&s, &x, 12, 40, 1000, 0, 12);
	sim_run(&s, 3);
	CHECK_EQ(x.b.mode, BBR3_PROBE_BW);
	min_before = x.b.min_rtt_us;
	/* The path's delay grows by 10 ms: no sample reaches the minimum. */
	s.base_rtt += 0.010;
	x.probe_rtts = 0;
	sim_run(&s, 6);
	CHECK_TRUE(x.probe_rtts >= 1, "no PROBE_RTT in 6 s above the minimum");
	entered = x.probe_rtt_entered;
	CHECK_TRUE(entered > 0, "entered at %.3f", entered);
	/* 10 s on, the old minimum has expired: min_rtt follows the path. */
	sim_run(&s, 6);
	CHECK_TRUE(x.b.min_rtt_us > min_before + 8000, "min_rtt %u (was %u)", x.b.min_rtt_us, min_before);

	/* Its window and exit, step by step. */
	{
		struct bbr3 b;
		struct bbr3_in in;
		struct bbr3_out out;
		struct bbr3_ctx c = {0};
		struct bbr3_rs rs;

		memset(&in, 0, sizeof(in));
		memset(&rs, 0, sizeof(rs));
		in.now_us = 1000000;
		in.cwnd = 10;
		in.cwnd_clamp = 1 << 20;
		in.mss = SIM_MSS;
		in.tcp_min_rtt_us = 40000;
		in.max_pacing_rate = ~0ULL;
		b3_start(&b, &in, &out);
		b.full_bw_reached = 1;
		b.mode = BBR3_PROBE_BW;
		b.cycle_idx = BBR3_CRUISE;
		b.bw_hi[0] = (__u32)((100ULL << B3_BW_SCALE) / 40000); /* 100 packets / 40 ms */
		c.cwnd = 200;
		in.delivered = 1000;
		in.inflight = 150;
		rs.rtt_us = 50000;
		in.now_us += B3_PROBE_RTT_WIN_US + 1;
		b3_update_min_rtt(&b, &in, &out, &c, &rs);
		CHECK_EQ(b.mode, BBR3_PROBE_RTT);
		CHECK_EQ(b.prior_cwnd, 200);
		CHECK_EQ(out.app_limited, 1000 + 150);
		CHECK_EQ(b3_probe_rtt_cwnd(&b), 50); /* half of 100 */
		b3_set_cwnd(&b, &in, &out, &c, 0, b3_bw(&b), B3_UNIT);
		CHECK_EQ(c.cwnd, 50);
		/* flight down to the cap: 200 ms starts */
		in.inflight = 50;
		b3_update_min_rtt(&b, &in, &out, &c, &rs);
		CHECK_EQ(b.probe_rtt_done_stamp, in.now_us + B3_PROBE_RTT_MODE_US);
		/* a round and 200 ms later: out, to CRUISE, the window restored */
		b.round_start = 1;
		in.now_us += B3_PROBE_RTT_MODE_US + 1;
		b3_update_min_rtt(&b, &in, &out, &c, &rs);
		CHECK_EQ(b.mode, BBR3_PROBE_BW);
		CHECK_EQ(b.cycle_idx, BBR3_CRUISE);
		CHECK_EQ(c.cwnd, 200);
	}
}

/* The filters: bw_hi holds the max of the current and the previous cycle;
 * min_rtt the min of 10 s. */
static void test_filters(void)
{
	struct bbr3 b;
	struct bbr3_in in;
	struct bbr3_out out;
	struct bbr3_ctx c = {0};
	struct bbr3_rs rs;

	memset(&in, 0, sizeof(in));
	memset(&rs, 0, sizeof(rs));
	in.cwnd = 10;
	in.mss = SIM_MSS;
	in.tcp_min_rtt_us = 40000;
	in.max_pacing_rate = ~0ULL;
	b3_start(&b, &in, &out);
	rs.interval_us = 40000;
	rs.acked_sacked = 1;
	c.sample_bw = 1000;
	b3_update_congestion_signals(&b, &c, &rs);
	c.sample_bw = 800;
	b3_update_congestion_signals(&b, &c, &rs);
	CHECK_EQ(b3_max_bw(&b), 1000);
	b3_advance_max_bw_filter(&b); /* a cycle ends */
	c.sample_bw = 700;
	b3_update_congestion_signals(&b, &c, &rs);
	CHECK_EQ(b3_max_bw(&b), 1000); /* the previous cycle's max */
	b3_advance_max_bw_filter(&b); /* another */
	CHECK_EQ(b3_max_bw(&b), 700); /* 1000 is two cycles old */
	b3_advance_max_bw_filter(&b); /* a cycle without samples keeps the last */
	CHECK_EQ(b3_max_bw(&b), 700);
	/* App-limited samples count only if they raise the max. */
	rs.is_app_limited = 1;
	c.sample_bw = 600;
	b3_update_congestion_signals(&b, &c, &rs);
	CHECK_EQ(b.bw_hi[1], 0);
	c.sample_bw = 900;
	b3_update_congestion_signals(&b, &c, &rs);
	CHECK_EQ(b.bw_hi[1], 900);
	/* bw = min(max bw, bw_lo) */
	b.bw_lo = 500;
	CHECK_EQ(b3_bw(&b), 500);

	/* min RTT: a lower sample wins at once; a higher one after 10 s. */
	rs.is_app_limited = 0;
	in.now_us = 1000000;
	rs.rtt_us = 30000;
	b3_update_min_rtt(&b, &in, &out, &c, &rs);
	CHECK_EQ(b.min_rtt_us, 30000);
	in.now_us += 5000000;
	rs.rtt_us = 45000;
	b3_update_min_rtt(&b, &in, &out, &c, &rs);
	CHECK_EQ(b.min_rtt_us, 30000);
	in.now_us += 5000001;
	b3_update_min_rtt(&b, &in, &out, &c, &rs);
	CHECK_EQ(b.min_rtt_us, 45000);
	/* BDP = bw * min_rtt, rounded up: 100 packets per 40 ms x 40 ms. */
	b.min_rtt_us = 40000;
	b.bw_hi[0] = (__u32)((100ULL << B3_BW_SCALE) / 40000);
	b.bw_hi[1] = 0;
	b.bw_lo = ~0u;
	CHECK_EQ(b3_bdp(&b, b3_bw(&b), B3_UNIT), 100);
	CHECK_EQ(b3_bdp(&b, b3_bw(&b), 2 * B3_UNIT), 200);
	/* pacing: bw x gain x 99 %: 2 500 packets/s of 1 000 bytes */
	CHECK_TRUE(llabs((long long)b3_rate_Bps(b3_bw(&b), B3_UNIT, 1000, 1) - 2475000) <= 1000, "rate %llu",
		   (unsigned long long)b3_rate_Bps(b3_bw(&b), B3_UNIT, 1000, 1));
	CHECK_TRUE(llabs((long long)b3_rate_Bps(b3_bw(&b), B3_UNIT * 5 / 4, 1000, 1) - 3093750) <= 1000, "rate %llu",
		   (unsigned long long)b3_rate_Bps(b3_bw(&b), B3_UNIT * 5 / 4, 1000, 1));
}

/* inflight_hi and the 2 % loss threshold: while probing, a sample with more
 * than 2 % of its flight lost cuts inflight_hi to the flight where the
 * loss rate crossed 2 %, at least 0.7 x the target, and ends UP. */
static void test_inflight_hi(void)
{
	struct bbr3 b;
	struct bbr3_in in;
	struct bbr3_out out;
	struct bbr3_ctx c = {0};
	struct bbr3_rs rs;

	memset(&in, 0, sizeof(in));
	memset(&rs, 0, sizeof(rs));
	in.cwnd = 10;
	in.mss = SIM_MSS;
	in.tcp_min_rtt_us = 40000;
	in.max_pacing_rate = ~0ULL;
	in.min_tso_segs = 2;
	in.pacing_shift = 10;
	b3_start(&b, &in, &out);
	out.pacing_rate = 3000000; /* 24 Mbit/s: bursts of 2 packets */
	b.full_bw_reached = 1;
	b.mode = BBR3_PROBE_BW;
	b.cycle_idx = BBR3_UP;
	b.bw_probe_samples = 1;
	b.min_rtt_us = 40000;
	b.bw_hi[0] = (__u32)((100ULL << B3_BW_SCALE) / 40000);
	c.cwnd = 120;

	/* 1 of 100 lost (1 %): not too high; 2 of 100 is (the kernel's
	 * fixed point makes the threshold 5/256 = 1.95 %). */
	rs.tx_in_flight = 100;
	rs.lost = 1;
	CHECK_EQ(b3_is_inflight_too_high(&b, &rs), 0);
	rs.lost = 2;
	CHECK_EQ(b3_is_inflight_too_high(&b, &rs), 1);
	rs.tx_in_flight = 200;
	rs.lost = 3;
	CHECK_EQ(b3_is_inflight_too_high(&b, &rs), 0);
	rs.lost = 4;
	CHECK_EQ(b3_is_inflight_too_high(&b, &rs), 1);

	/* The crossing point: 130 in flight, 2 before and 3 now lost: 2 of
	 * 127 is under 2 %, the third crosses it at 127 + 1. */
	rs.tx_in_flight = 130;
	rs.lost = 5;
	rs.losses = 3;
	CHECK_EQ(b3_inflight_hi_from_lost(&rs), 128);
	rs.tx_in_flight = b3_inflight_hi_from_lost(&rs);
	b3_handle_inflight_too_high(&b, &in, &out, &c, &rs);
	/* max(128, 0.7 x min(BDP budget 100, cwnd 120) = 70) */
	CHECK_EQ(b.inflight_hi, 128);
	CHECK_EQ(b.cycle_idx, BBR3_DOWN);
	CHECK_EQ(b.prev_probe_too_high, 1);
	CHECK_EQ(b.bw_probe_samples, 0);

	/* A flight far below: beta's floor, 0.7 x the target inflight. */
	b.cycle_idx = BBR3_UP;
	b.bw_probe_samples = 1;
	rs.tx_in_flight = 20;
	rs.losses = 1;
	rs.lost = 1;
	b3_handle_inflight_too_high(&b, &in, &out, &c, &rs);
	/* (BDP 100 + UP's 2) x 0.7 */
	CHECK_EQ(b.inflight_hi, 102 * (B3_UNIT - B3_BETA) / B3_UNIT);

	/* Outside probing, the same loss does not touch inflight_hi. */
	b.inflight_hi = 150;
	b.bw_probe_samples = 0;
	b.cycle_idx = BBR3_CRUISE;
	rs.tx_in_flight = 100;
	rs.lost = 10;
	b3_adapt_upper_bounds(&b, &in, &out, &c, &rs);
	CHECK_EQ(b.inflight_hi, 150);
	/* ... and a safe sample above it raises it. */
	rs.lost = 0;
	rs.tx_in_flight = 160;
	b3_adapt_upper_bounds(&b, &in, &out, &c, &rs);
	CHECK_EQ(b.inflight_hi, 160);
	/* CRUISE keeps 15 % headroom under inflight_hi */
	CHECK_EQ(b3_inflight_with_headroom(&b), 160 - 160 * 38 / 256);
}

/* inflight_lo and bw_lo: a round with loss outside probing cuts both to
 * 0.7 x, but not below what the round delivered; a new probe forgets them. */
static void test_lower_bounds(void)
{
	struct bbr3 b;
	struct bbr3_in in;
	struct bbr3_out out;
	struct bbr3_ctx c = {0};

	memset(&in, 0, sizeof(in));
	in.cwnd = 10;
	in.mss = SIM_MSS;
	in.max_pacing_rate = ~0ULL;
	b3_start(&b, &in, &out);
	b.full_bw_reached = 1;
	b.mode = BBR3_PROBE_BW;
	b.cycle_idx = BBR3_CRUISE;
	b.bw_hi[0] = 1000;
	c.cwnd = 100;
	b.bw_latest = 100;
	b.inflight_latest = 10;
	b.loss_in_round = 1;
	b3_adapt_lower_bounds(&b, &c);
	CHECK_EQ(b.bw_lo, 1000 * (B3_UNIT - B3_BETA) / B3_UNIT);
	CHECK_EQ(b.inflight_lo, 100 * (B3_UNIT - B3_BETA) / B3_UNIT); /* 70 */
	b3_adapt_lower_bounds(&b, &c);
	CHECK_EQ(b.inflight_lo, 70 * (B3_UNIT - B3_BETA) / B3_UNIT); /* 49 */
	/* not below the latest round's delivery */
	b.inflight_latest = 60;
	b3_adapt_lower_bounds(&b, &c);
	CHECK_EQ(b.inflight_lo, 60);
	/* The cap applies to cwnd. */
	b3_bound_cwnd_for_inflight_model(&b, &c);
	CHECK_EQ(c.cwnd, 60);
	/* No loss: unchanged. */
	b.loss_in_round = 0;
	b3_adapt_lower_bounds(&b, &c);
	CHECK_EQ(b.inflight_lo, 60);
	/* Probing ignores the lower bounds ... */
	b.cycle_idx = BBR3_UP;
	b.loss_in_round = 1;
	b3_adapt_lower_bounds(&b, &c);
	CHECK_EQ(b.inflight_lo, 60);
	/* ... and REFILL forgets them. */
	b3_start_probe_refill(&b, &in, 0);
	CHECK_EQ(b.inflight_lo, ~0u);
	CHECK_EQ(b.bw_lo, ~0u);
}

/* The per-skb state the branch reads, from the round snapshots: losses
 * since the packet was sent, interpolated by its delivered count. */
static void test_sample_estimates(void)
{
	struct bbr3 b;
	struct bbr3_in in;
	struct bbr3_rs rs;

	memset(&b, 0, sizeof(b));
	memset(&in, 0, sizeof(in));
	b.snap_delivered[1] = 1000;
	b.snap_lost[1] = 10;
	b.snap_delivered[0] = 1100;
	b.snap_lost[0] = 20;
	b.snap_round_delivered = 1100;
	in.delivered = 1200;
	in.lost = 30;
	in.rs_prior_in_flight = 100;
	/* sent halfway through the previous round: 15 lost by then */
	in.rs_prior_delivered = 1050;
	b3_rate_sample(&b, &in, &rs);
	CHECK_EQ(rs.lost, 15);
	CHECK_EQ(rs.tx_in_flight, 100);
	/* sent a quarter into the current one: 22 by then */
	in.rs_prior_delivered = 1125;
	b3_rate_sample(&b, &in, &rs);
	CHECK_EQ(rs.lost, 8);
	/* nothing lost since: 0 */
	in.lost = 20;
	b3_rate_sample(&b, &in, &rs);
	CHECK_EQ(rs.lost, 0);
}

/* The set-up in the model: a 1-BDP buffer. Loss stays under 2 % at
 * more than 0.9 utilisation. */
static void test_one_bdp_buffer(void)
{
	static struct sim s;
	static struct b3sim x;
	int bdp = (int)bdp_pkts(24, 40);

	b3_sim_init(&s, &x, 24, 40, bdp, 0, 13);
	sim_run(&s, 5);
	sim_reset_stats(&s);
	sim_run(&s, 30);
	printf("bbr3, 24 Mbit/s, 40 ms, %d-packet (1 BDP) buffer: %.2f Mbit/s, loss %.2f %%, mean queue %.1f "
	       "packets, %d PROBE_RTTs\n",
	       bdp, sim_throughput_mbps(&s), sim_loss_rate(&s) * 100, sim_queue_pkts(&s), x.probe_rtts);
	CHECK_TRUE(sim_throughput_mbps(&s) >= 0.9 * 24, "throughput %.2f of 24", sim_throughput_mbps(&s));
	CHECK_TRUE(sim_loss_rate(&s) < 0.02, "loss %.2f %%", sim_loss_rate(&s) * 100);

	/* A shallow buffer (a quarter BDP): probing finds the loss, and
	 * inflight_hi keeps the loss rate low. */
	b3_sim_init(&s, &x, 24, 40, bdp / 4, 0, 14);
	sim_run(&s, 5);
	sim_reset_stats(&s);
	sim_run(&s, 30);
	printf("bbr3, 24 Mbit/s, 40 ms, %d-packet buffer: %.2f Mbit/s, loss %.2f %%\n", bdp / 4,
	       sim_throughput_mbps(&s), sim_loss_rate(&s) * 100);
	CHECK_TRUE(sim_throughput_mbps(&s) >= 0.85 * 24, "throughput %.2f of 24", sim_throughput_mbps(&s));
	CHECK_TRUE(sim_loss_rate(&s) < 0.02, "loss %.2f %%", sim_loss_rate(&s) * 100);
	/* inflight_hi was learnt from the loss: finite, within BDP + buffer
	 * and a probe's overshoot */
	CHECK_TRUE(x.b.inflight_hi != ~0u && x.b.inflight_hi <= 2u * (__u32)bdp, "inflight_hi %u", x.b.inflight_hi);
}

/* 1 % random loss: BBRv3 tolerates it (the loss threshold is 2 %). */
static void test_random_loss(void)
{
	static struct sim s;
	static struct b3sim x;

	b3_sim_init(&s, &x, 24, 40, (int)bdp_pkts(24, 40), 0.01, 15);
	sim_run(&s, 5);
	sim_reset_stats(&s);
	sim_run(&s, 30);
	CHECK_TRUE(sim_throughput_mbps(&s) >= 0.7 * 24, "1 %% random loss: %.2f of 24", sim_throughput_mbps(&s));
}

/* ECN: off unless enabled (the branch's default). With marks on the path
 * and the response off, every decision is the same as without marks.
 * Enabled, it applies only below the branch's 5 ms min RTT (or at any RTT
 * when that limit is 0); the EWMA of the CE fraction, inflight_lo's cut by
 * alpha/3 in a CE round outside probing, and a probe ended by more than
 * half CE. */
static void test_ecn(void)
{
	static struct sim s;
	static struct b3sim x;
	double q_plain;
	__u32 cwnd_plain;
	__u64 delivered_plain;

	b3_sim_init(&s, &x, 24, 40, 1000, 0, 16);
	sim_run(&s, 15);
	q_plain = sim_queue_pkts(&s);
	cwnd_plain = x.cwnd;
	delivered_plain = s.delivered;

	b3_sim_init(&s, &x, 24, 40, 1000, 0, 16);
	s.ce_thresh = 5;
	sim_run(&s, 15);
	CHECK_TRUE(s.delivered_ce > 1000, "the path marked only %u", s.delivered_ce);
	CHECK_EQ(x.b.ecn_eligible, 0);
	CHECK_TRUE(sim_queue_pkts(&s) == q_plain && x.cwnd == cwnd_plain && s.delivered == delivered_plain,
		   "marks changed BBRv3 with ECN off: queue %.2f vs %.2f", sim_queue_pkts(&s), q_plain);

	/* Enabled on a 40 ms path: over the branch's 5 ms, not eligible ... */
	b3_sim_init(&s, &x, 24, 40, 1000, 0, 16);
	s.ce_thresh = 5;
	x.ecn_ok = 1;
	sim_run(&s, 3);
	CHECK_EQ(x.b.ecn_eligible, 0);
	/* ... on a 4 ms one it is, and alpha follows the marks. */
	b3_sim_init(&s, &x, 240, 4, 1000, 0, 16);
	s.ce_thresh = 10;
	x.ecn_ok = 1;
	sim_run(&s, 3);
	CHECK_EQ(x.b.ecn_eligible, 1);
	CHECK_TRUE(x.b.ecn_alpha > 0 && x.b.ecn_alpha < B3_UNIT, "alpha %u", x.b.ecn_alpha);
	CHECK_TRUE(x.b.inflight_hi != ~0u, "no probe was ended by CE");

	/* The pieces. */
	{
		struct bbr3 b;
		struct bbr3_in in;
		struct bbr3_out out;
		struct bbr3_ctx c = {0};
		struct bbr3_rs rs;

		memset(&in, 0, sizeof(in));
		memset(&rs, 0, sizeof(rs));
		in.cwnd = 10;
		in.mss = SIM_MSS;
		in.max_pacing_rate = ~0ULL;
		in.tcp_min_rtt_us = 2000;
		in.ecn_ok = 1;
		in.ecn_max_rtt_us = B3_ECN_MAX_RTT_US;
		b3_start(&b, &in, &out);
		CHECK_EQ(b.ecn_alpha, B3_UNIT);
		/* a round of 100 delivered, none CE: alpha *= 15/16 */
		in.delivered = 100;
		b3_update_ecn_alpha(&b, &in, &out);
		CHECK_EQ(b.ecn_eligible, 1);
		CHECK_EQ(b.ecn_alpha, 240);
		/* a round all CE: alpha = 15/16 alpha + 1/16 */
		in.delivered = 200;
		in.delivered_ce = 100;
		b3_update_ecn_alpha(&b, &in, &out);
		CHECK_EQ(b.ecn_alpha, 240 * 240 / 256 + 16);
		/* a CE round outside probing: inflight_lo = cwnd (1 - alpha/3) */
		b.full_bw_reached = 1;
		b.mode = BBR3_PROBE_BW;
		b.cycle_idx = BBR3_CRUISE;
		b.ecn_alpha = B3_UNIT;
		c.cwnd = 90;
		b.ecn_in_round = 1;
		b3_adapt_lower_bounds(&b, &c);
		CHECK_EQ(b.inflight_lo, 90 * (B3_UNIT - B3_UNIT / 3) / B3_UNIT);
		/* while probing, more than half CE is too high, half is not */
		rs.delivered = 100;
		rs.delivered_ce = 50;
		CHECK_EQ(b3_is_inflight_too_high(&b, &rs), 0);
		rs.delivered_ce = 51;
		CHECK_EQ(b3_is_inflight_too_high(&b, &rs), 1);
		b.ecn_eligible = 0;
		CHECK_EQ(b3_is_inflight_too_high(&b, &rs), 0);
	}
}

int main(void)
{
	test_filters();
	test_inflight_hi();
	test_lower_bounds();
	test_sample_estimates();
	test_phase_machine();
	test_probe_rtt();
	test_one_bdp_buffer();
	test_random_loss();
	test_ecn();
	if (failures) {
		fprintf(stderr, "bbr3_logic_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("bbr3_logic_test: ok\n");
	return 0;
}
