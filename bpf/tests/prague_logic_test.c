// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of bpf/prague_logic.h. */
#include <stdio.h>

#include "../prague_logic.h"
#include "check.h"

#define INF 0x7fffffffu

/* A sender's view: the kernel's counters and window, advanced by hand. */
struct sim {
	struct prague_state s;
	struct prague_ack a;
};

static void sim_init(struct sim *m, __u32 cwnd, __u32 ssthresh, int fallback)
{
	m->a = (struct prague_ack){
		.delivered = 1000, .delivered_ce = 0, .snd_cwnd = cwnd, .snd_ssthresh = ssthresh,
		.snd_cwnd_clamp = 100000, .snd_una = 5000, .snd_nxt = 5000 + cwnd,
		.srtt_us = 20000, .min_rtt_us = 20000, .now_us = 1000000, .mtu = 1500,
		.cwnd_limited = 1,
	};
	prague_init_state(&m->s, &m->a, fallback);
}

/* One ACK of `n` packets, `ce` of them echoed CE, applied to the kernel's
 * view as cong_control would. */
static void sim_ack(struct sim *m, __u32 n, __u32 ce)
{
	struct prague_window w;

	m->a.delivered += n;
	m->a.delivered_ce += ce;
	m->a.snd_una += n;
	m->a.snd_nxt = m->a.snd_una + m->a.snd_cwnd;
	m->a.now_us += 2000; /* a round of W ACKs lasts 2W ms */
	w = prague_on_ack(&m->s, &m->a);
	m->a.snd_cwnd = w.snd_cwnd;
	m->a.snd_ssthresh = w.snd_ssthresh;
}

/* A whole round trip: the window's worth of packets acked one by one, one
 * packet in `ce_every` marked (counted across rounds, so a steady fraction
 * however small the window); CWR entered at the round's first mark, as the
 * kernel does at most once a round. */
static void sim_round(struct sim *m, __u32 ce_every)
{
	static __u32 sent;
	__u32 n = m->a.snd_cwnd, i, cwr = 0;

	for (i = 0; i < n; i++) {
		__u32 ce = ce_every && (++sent % ce_every) == 0;

		sim_ack(m, 1, ce);
		if (ce && !cwr) {
			m->a.snd_ssthresh = prague_on_cwr(&m->s, &m->a);
			cwr = 1;
		}
	}
}

static void test_slow_start_then_the_first_mark_halves(void)
{
	struct sim m;
	int r;

	sim_init(&m, 10, INF, 0);
	for (r = 0; r < 3; r++)
		sim_round(&m, 0);
	CHECK_EQ(m.a.snd_cwnd, 80); /* 10 -> 20 -> 40 -> 80: doubling */
	CHECK_EQ(m.s.saw_ce, 0);
	CHECK_EQ(m.s.upscaled_alpha, 0);
	/* The first mark halves the window (alpha is 0, so the CWR the kernel
	 * enters takes nothing more), and snd_cwnd walks down one per ACK:
	 * slow start is over. */
	sim_ack(&m, 1, 1);
	CHECK_EQ(m.s.saw_ce, 1);
	m.a.snd_ssthresh = prague_on_cwr(&m.s, &m.a);
	CHECK_EQ(prague_cwnd_of(m.s.frac_cwnd), 40);
	CHECK_EQ(m.a.snd_ssthresh, 40);
	/* 60 more ACKs: +60/40 packets in congestion avoidance (41.5), while
	 * snd_cwnd walked down from 80 to the window's 42. */
	for (r = 0; r < 60; r++)
		sim_ack(&m, 1, 0);
	CHECK_EQ(m.a.snd_cwnd, 42);
	CHECK_EQ(m.a.snd_ssthresh, 41); /* where the walk down ended */
}

/* Alpha follows the marked fraction with gain 1/16 once a round; a window
 * marked at a steady fraction F settles where the additive increase (one
 * packet a round, for the unmarked share) meets the reduction alpha/2. */
static void test_alpha_tracks_the_marked_fraction(void)
{
	struct sim m;
	int r;

	sim_init(&m, 100, 100, 0); /* out of slow start */
	m.a.srtt_us = 30000; /* above the 25 ms target: no RTT scaling */
	m.s.saw_ce = 1;
	for (r = 0; r < 200; r++)
		sim_round(&m, 10); /* 10 % of packets marked */
	/* EWMA of F = 0.1 from 0: after 200 rounds within 0.1 % of 0.1. */
	r = (int)(m.s.upscaled_alpha >> PRAGUE_SHIFT_G) - (int)(PRAGUE_MAX_ALPHA / 10);
	CHECK_EQ(r > -1100 && r < 1100, 1);
	/* Each round: +0.9 packet, -alpha/2 x cwnd = -0.05 cwnd: ~18 packets. */
	CHECK_EQ(m.a.snd_cwnd >= 16 && m.a.snd_cwnd <= 21, 1);
}

/* Unsaturated growth: +1 packet a round without marks, and only the
 * unmarked packets count. */
static void test_additive_increase_counts_unmarked_packets(void)
{
	struct sim m;
	__u64 before;

	sim_init(&m, 50, 50, 0);
	before = m.s.frac_cwnd;
	sim_round(&m, 0);
	CHECK_EQ((m.s.frac_cwnd - before + PRAGUE_ONE_CWND / 100) >> PRAGUE_CWND_UNIT, 1);
	before = m.s.frac_cwnd;
	m.s.saw_ce = 1; /* not the first mark (that one halves) */
	sim_ack(&m, 2, 2); /* both marked: no growth */
	CHECK_EQ(m.s.frac_cwnd, before);
	CHECK_EQ(m.s.saw_ce, 1);
}

static void test_loss_halves_once_and_undo_restores(void)
{
	struct sim m;

	sim_init(&m, 64, 64, 0);
	CHECK_EQ(prague_on_loss(&m.s, &m.a), 32);
	CHECK_EQ(prague_cwnd_of(m.s.frac_cwnd), 32);
	CHECK_EQ(m.s.in_loss, 1);
	sim_ack(&m, 1, 0); /* in recovery: no growth, one step down */
	CHECK_EQ(prague_cwnd_of(m.s.frac_cwnd), 32);
	CHECK_EQ(m.a.snd_cwnd, 63);
	CHECK_EQ(prague_undo(&m.s, &m.a), 64);
	CHECK_EQ(prague_cwnd_of(m.s.frac_cwnd), 64);
	CHECK_EQ(m.s.in_loss, 0);
	/* Never below two packets. */
	m.s.frac_cwnd = 3ull << PRAGUE_CWND_UNIT;
	m.a.snd_cwnd = 3;
	prague_on_loss(&m.s, &m.a);
	CHECK_EQ(prague_cwnd_of(m.s.frac_cwnd), PRAGUE_MIN_CWND);
}

/* After PRAGUE_RTT_TRANSITION rounds a 10 ms flow grows (10/25)^2 = 0.16
 * packet a round and reacts at most once per 25 ms. */
static void test_rtt_independence_below_the_target(void)
{
	struct sim m;
	__u64 before;

	sim_init(&m, 40, 40, 0);
	m.a.srtt_us = 10000;
	m.s.round = PRAGUE_RTT_TRANSITION;
	CHECK_EQ(prague_ai(&m.s, 10000), (PRAGUE_MAX_ALPHA * 16 + 50) / 100);
	CHECK_EQ(prague_ai(&m.s, 30000), PRAGUE_MAX_ALPHA); /* above the target */
	m.s.round = PRAGUE_RTT_TRANSITION - 1;
	CHECK_EQ(prague_ai(&m.s, 10000), PRAGUE_MAX_ALPHA); /* not yet */
	m.s.round = PRAGUE_RTT_TRANSITION;
	m.s.ai_ack_increase = prague_ai(&m.s, 10000);
	m.s.alpha_stamp_us = m.a.now_us; /* no alpha update inside this round */
	before = m.s.frac_cwnd;
	sim_round(&m, 0);
	CHECK_EQ(((m.s.frac_cwnd - before) * 100 + PRAGUE_ONE_CWND / 2) >> PRAGUE_CWND_UNIT, 16);
	/* Two marks 10 ms apart: one reduction. */
	m.s.upscaled_alpha = (PRAGUE_MAX_ALPHA / 2) << PRAGUE_SHIFT_G;
	m.s.cwr_stamp_us = m.a.now_us - 30000;
	before = m.s.frac_cwnd;
	prague_on_cwr(&m.s, &m.a);
	CHECK_EQ(m.s.frac_cwnd < before, 1);
	before = m.s.frac_cwnd;
	m.a.now_us += 10000;
	prague_on_cwr(&m.s, &m.a);
	CHECK_EQ(m.s.frac_cwnd, before);
	m.a.now_us += 20000;
	prague_on_cwr(&m.s, &m.a);
	CHECK_EQ(m.s.frac_cwnd < before, 1);
}

static void test_log2_is_close(void)
{
	CHECK_EQ(prague_log2(1), 0);
	CHECK_EQ(prague_log2(1024), 10ull << PRAGUE_ALPHA_BITS);
	/* log2(3) = 1.585; the interpolation gives 1.5. */
	CHECK_EQ(prague_log2(3), (3ull << PRAGUE_ALPHA_BITS) / 2);
	CHECK_EQ(ilog2_u64(1ull << 40), 40);
}

/* The classic detection: a calm, shallow path (L4S) keeps the score at 0;
 * a path whose RTT wanders by 10 ms over a 30 ms standing queue (a Classic
 * AQM) raises it past 8 within a few rounds, and then alpha is floored at
 * 0.625 for the reductions, when the fallback is on. */
static void test_classic_ecn_detection_and_fallback(void)
{
	struct prague_state s = { 0 };
	int r;

	s.srtt_slow = 21000ull << PRAGUE_ALPHA_BITS;
	s.mdev_slow = 200ull << PRAGUE_ALPHA_BITS;
	for (r = 0; r < 50; r++)
		prague_classic_detection(&s, 20000);
	CHECK_EQ(s.classic_ecn, 0);
	s.srtt_slow = 50000ull << PRAGUE_ALPHA_BITS;
	s.mdev_slow = 10000ull << PRAGUE_ALPHA_BITS;
	for (r = 0; r < 4; r++)
		prague_classic_detection(&s, 20000);
	/* Per round: 0.5 log2(10000/750) + 0.5 log2(30000/2000) ~ 3.8. */
	CHECK_EQ(s.classic_ecn > PRAGUE_L_STICKY, 1);
	for (r = 0; r < 20; r++)
		prague_classic_detection(&s, 20000);
	CHECK_EQ(s.classic_ecn, PRAGUE_C_STICKY);
	s.upscaled_alpha = (PRAGUE_MAX_ALPHA / 20) << PRAGUE_SHIFT_G;
	s.ecn_fallback = 0;
	CHECK_EQ(prague_reduction_alpha(&s), PRAGUE_MAX_ALPHA / 20);
	s.ecn_fallback = 1;
	CHECK_EQ(prague_reduction_alpha(&s), (PRAGUE_MAX_ALPHA >> 1) + (PRAGUE_MAX_ALPHA >> 3));
}

static void test_slow_estimators_follow_the_samples(void)
{
	struct prague_state s = { 0 };
	int i;

	s.slow_shift = 4;
	prague_rtt_sample(&s, 20000);
	for (i = 0; i < 400; i++)
		prague_rtt_sample(&s, (i & 1) ? 30000 : 10000);
	/* Mean 20 ms, deviation 10 ms, within the EWMA's ripple. */
	CHECK_EQ((s.srtt_slow >> PRAGUE_ALPHA_BITS) / 1000 >= 19 &&
		 (s.srtt_slow >> PRAGUE_ALPHA_BITS) / 1000 <= 21, 1);
	CHECK_EQ((s.mdev_slow >> PRAGUE_ALPHA_BITS) / 1000 >= 9 &&
		 (s.mdev_slow >> PRAGUE_ALPHA_BITS) / 1000 <= 11, 1);
}

/* pacing_rate of `s` for a kernel view of srtt, cwnd, ssthresh. */
static __u64 pace(const struct prague_state *s, __u32 srtt_us, __u32 cwnd, __u32 ssthresh,
		  __u32 in_flight)
{
	struct prague_ack a = { .srtt_us = srtt_us, .snd_cwnd = cwnd, .snd_ssthresh = ssthresh,
				.mtu = 1500 };

	return prague_pacing_rate(s, &a, in_flight);
}

static void test_pacing(void)
{
	struct prague_state s = { 0 };

	s.frac_cwnd = 20ull << PRAGUE_CWND_UNIT;
	/* 20 x 1500 B / 20 ms = 1.5 MB/s; twice that below ssthresh / 2. */
	CHECK_EQ(pace(&s, 20000, 20, 20, 10), 1500000);
	CHECK_EQ(pace(&s, 20000, 20, 100, 10), 3000000);
	CHECK_EQ(pace(&s, 0, 20, 20, 10), 0);
	/* More in flight than the window (it shrank): the flight's rate. */
	CHECK_EQ(pace(&s, 20000, 20, 20, 30), 2250000);
	/* A window cut to a tenth of a packet over 1 s: the 100 kbit/s floor,
	 * not a packet every 10 s. */
	s.frac_cwnd = PRAGUE_ONE_CWND / 10;
	CHECK_EQ(pace(&s, 1000000, 2, 2, 0), PRAGUE_MIN_RATE);
}

/* A marked flow out of slow start and RTT-independent (20 ms, under the
 * 25 ms target), its window `cwnd` packets. */
static void sim_marked(struct sim *m, __u32 cwnd)
{
	sim_init(m, cwnd, cwnd, 0);
	m->s.round = PRAGUE_RTT_TRANSITION;
	m->s.saw_ce = 1;
}

/* v0.7's switch: once marked, 4 packets of 1500 B or fewer is rate mode,
 * the window following the rate; above, window mode. Not before a mark. */
static void test_rate_mode_at_or_below_four_packets(void)
{
	struct sim m;

	sim_init(&m, 3, 3, 0);
	sim_ack(&m, 1, 0);
	CHECK_EQ(m.s.rate_mode, 0); /* no CE yet */
	sim_marked(&m, 3);
	sim_ack(&m, 1, 0); /* the window grows to 4 packets: still rate mode */
	CHECK_EQ(m.a.snd_cwnd, 4);
	CHECK_EQ(m.s.rate_mode, 1);
	/* The window is the rate x 20 ms in 1500-B packets. */
	CHECK_EQ(prague_cwnd_of(m.s.frac_cwnd),
		 (__u32)(((__u64)m.s.rate * 20000 / 1500 + 999999) / 1000000));
	sim_marked(&m, 5);
	sim_ack(&m, 1, 0);
	CHECK_EQ(m.s.rate_mode, 0);
	/* Smaller packets count in bytes: 5 packets of 1000 B are 5 000 B. */
	sim_marked(&m, 5);
	m.a.mtu = 1000;
	sim_ack(&m, 1, 0);
	CHECK_EQ(m.s.rate_mode, 1);
}

/* The rate grows by one MTU_SYS per vrtt every vrtt (vrtt = max(25 ms,
 * srtt)): at 100 kB/s and srtt 20 ms, 60 kB/s a vrtt, the ACKs of one
 * vrtt's packets each adding their share. */
static void test_rate_mode_grows_one_mtu_per_vrtt_each_vrtt(void)
{
	struct sim m;
	__u32 before, i;

	sim_marked(&m, 2);
	m.s.rate_mode = 1;
	m.s.rate = 100000;
	m.s.alpha_stamp_us = m.a.now_us; /* no alpha update in the way */
	before = m.s.rate;
	/* 100 kB/s x 25 ms = 1.67 packets a vrtt, 2 rounded up: an ACK adds
	 * half of 1500 B / 25 ms = 60 kB/s. */
	m.s.next_seq = m.a.snd_una + 100; /* no round end */
	m.a.delivered += 1;
	m.a.snd_una += 1;
	prague_on_ack(&m.s, &m.a);
	CHECK_EQ(m.s.rate - before, 30000);
	/* A vrtt's ACKs (the rate's packets per 25 ms) at 1 MB/s: +60 kB/s. */
	m.s.rate = 1000000;
	before = m.s.rate;
	for (i = 0; i < 17; i++) { /* 1 MB/s x 25 ms = 16.7 packets */
		m.a.delivered += 1;
		m.a.snd_una += 1;
		prague_on_ack(&m.s, &m.a);
	}
	CHECK_EQ(m.s.rate - before >= 57000 && m.s.rate - before <= 63000, 1);
	/* Marked ACKs add nothing; nor an application-limited sender. */
	before = m.s.rate;
	m.a.delivered += 1;
	m.a.delivered_ce += 1;
	prague_on_ack(&m.s, &m.a);
	m.a.app_limited = 1;
	m.a.delivered += 1;
	prague_on_ack(&m.s, &m.a);
	CHECK_EQ(m.s.rate, before);
	/* Pacing: +3 % in the first half of the vrtt after the alpha update,
	 * -3 % in the second. */
	m.s.rate = 128000;
	m.a.now_us = m.s.alpha_stamp_us + 5000;
	CHECK_EQ(prague_pacing_rate(&m.s, &m.a, 1), 132000);
	m.a.now_us = m.s.alpha_stamp_us + 13000;
	CHECK_EQ(prague_pacing_rate(&m.s, &m.a, 1), 124000);
}

/* CE in rate mode: rate x (1 - alpha/2), at most once per 25 ms, never
 * below 100 kbit/s; a loss halves the rate and undo restores it. */
static void test_rate_mode_reductions(void)
{
	struct sim m;

	sim_marked(&m, 2);
	m.s.rate_mode = 1;
	m.s.rate = 200000;
	m.s.upscaled_alpha = (PRAGUE_MAX_ALPHA / 2) << PRAGUE_SHIFT_G; /* alpha 0.5 */
	m.s.cwr_stamp_us = m.a.now_us - 30000;
	prague_on_cwr(&m.s, &m.a);
	CHECK_EQ(m.s.rate, 150000);
	CHECK_EQ(prague_cwnd_of(m.s.frac_cwnd), 2); /* 150 kB/s x 20 ms = 2 packets */
	m.a.now_us += 10000;
	prague_on_cwr(&m.s, &m.a);
	CHECK_EQ(m.s.rate, 150000); /* 10 ms later: not again */
	m.a.now_us += 20000;
	m.s.upscaled_alpha = PRAGUE_MAX_ALPHA << PRAGUE_SHIFT_G;
	m.s.rate = 20000;
	prague_on_cwr(&m.s, &m.a);
	CHECK_EQ(m.s.rate, PRAGUE_MIN_RATE);
	m.s.rate = 200000;
	m.s.frac_cwnd = prague_rate_to_frac(m.s.rate, 20000, 1500);
	prague_on_loss(&m.s, &m.a);
	CHECK_EQ(m.s.rate, 100000);
	prague_undo(&m.s, &m.a);
	CHECK_EQ(m.s.rate >= 199000 && m.s.rate <= 201000, 1);
}

/* Below one packet in window mode: +1 packet a round (v0.7 divides the
 * increase by the fractional window), not the window itself a round. */
static void test_a_window_under_a_packet_grows_a_packet_a_round(void)
{
	struct sim m;
	__u64 before;

	sim_init(&m, 2, 2, 0);
	m.s.frac_cwnd = PRAGUE_ONE_CWND / 4;
	m.s.ai_ack_increase = PRAGUE_MAX_ALPHA;
	before = m.s.frac_cwnd;
	/* A quarter of a packet a round: one ACK is a round's 1/4 ... x4. */
	m.a.delivered += 1;
	m.a.snd_una += 1;
	m.s.next_seq = m.a.snd_una + 100;
	prague_on_ack(&m.s, &m.a);
	CHECK_EQ((m.s.frac_cwnd - before + PRAGUE_ONE_CWND / 2) >> PRAGUE_CWND_UNIT, 4);
}

/* Rate mode against a steady marking probability p, the RTT under 25 ms:
 * v0.7's header gives r = (1/p - 1) Mbit/s (one MTU a vrtt of increase for
 * the unmarked 1 - p against alpha/2 = p/2 of the rate once a vrtt). The
 * kernel's CWR, entered at most once a round trip and refused by Prague
 * within 25 ms of the last, reduces less often than every vrtt, so the
 * rate settles somewhat above; its shape, r ~ 1/p - 1, holds. */
static __u64 rate_mode_settles(__u32 p_percent)
{
	struct sim m;
	__u64 sum = 0, n = 0, acc = 0;
	__u32 i, cwr_until = 0;

	sim_marked(&m, 2);
	m.s.rate = 100000;
	for (i = 0; i < 40000; i++) {
		struct prague_window w;
		__u32 ce, gap = (__u32)(1500ull * 1000000 / (m.s.rate ? m.s.rate : 1));

		acc += p_percent;
		ce = acc >= 100;
		if (ce)
			acc -= 100;
		m.a.now_us += gap;
		m.a.delivered += 1;
		m.a.delivered_ce += ce;
		m.a.snd_una += 1;
		m.a.snd_nxt = m.a.snd_una + m.a.snd_cwnd;
		w = prague_on_ack(&m.s, &m.a);
		m.a.snd_cwnd = w.snd_cwnd;
		m.a.snd_ssthresh = w.snd_ssthresh;
		/* The kernel enters CWR on an echoed CE, and stays in it until
		 * what was sent by then is acked (at most once a round trip). */
		if (ce && (__s32)(m.a.snd_una - cwr_until) >= 0) {
			m.a.snd_ssthresh = prague_on_cwr(&m.s, &m.a);
			cwr_until = m.a.snd_nxt;
		}
		if (i >= 20000) {
			sum += m.s.rate;
			n++;
		}
	}
	CHECK_EQ(m.s.rate_mode, 1);
	return sum / n;
}

static void test_rate_mode_follows_v07s_rate_equation(void)
{
	/* The equation: p = 0.5, 1 Mbit/s (125 kB/s); p = 0.75, a third. */
	__u64 r50 = rate_mode_settles(50), r75 = rate_mode_settles(75);
	int ok = r50 >= 110000 && r50 <= 200000 && r75 * 2 <= r50 && r75 * 4 >= r50;

	CHECK_EQ(ok, 1);
	if (!ok)
		fprintf(stderr, "rate at p 0.5: %llu B/s, at 0.75: %llu B/s\n",
			(unsigned long long)r50, (unsigned long long)r75);
}

int main(void)
{
	test_slow_start_then_the_first_mark_halves();
	test_alpha_tracks_the_marked_fraction();
	test_additive_increase_counts_unmarked_packets();
	test_loss_halves_once_and_undo_restores();
	test_rtt_independence_below_the_target();
	test_log2_is_close();
	test_classic_ecn_detection_and_fallback();
	test_slow_estimators_follow_the_samples();
	test_pacing();
	test_rate_mode_at_or_below_four_packets();
	test_rate_mode_grows_one_mtu_per_vrtt_each_vrtt();
	test_rate_mode_reductions();
	test_a_window_under_a_packet_grows_a_packet_a_round();
	test_rate_mode_follows_v07s_rate_equation();
	if (failures) {
		fprintf(stderr, "prague_logic_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("prague_logic_test: ok\n");
	return 0;
}
