// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of bpf/vivace_logic.h: the fixed-point x^0.9, the utility
 * function, and the rate controller driven through a packet-level model of
 * one bottleneck (FIFO of a given capacity and buffer, a base RTT, random
 * loss), with the kernel's counters (data_segs_out, delivered, lost, sRTT)
 * computed as TCP would.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../vivace_logic.h"
#include "check.h"

#define CHECK_TRUE(cond, ...)                                                     \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                             \
			fprintf(stderr, "\n");                                    \
			failures++;                                               \
		}                                                                 \
	} while (0)

#define MSS 1448
#define MBPS(x) ((__u64)((x) * 125000.0))

/* x^0.9 to within 0.05% over five decades of rate. */
static void test_pow_matches_libm(void)
{
	static const double mbps[] = {0.05, 0.5, 1, 2.5, 12, 48, 100, 1000, 10000};
	unsigned i;

	for (i = 0; i < sizeof(mbps) / sizeof(mbps[0]); i++) {
		double want = 1000.0 * pow(mbps[i], 0.9);
		double got = (double)vv_pow_t_milli((__u64)(mbps[i] * 1000));

		CHECK_TRUE(fabs(got - want) <= 0.0005 * want + 1, "%.2f Mbit/s: %.1f, want %.1f", mbps[i],
			   got, want);
	}
	CHECK_EQ(vv_pow_t_milli(0), 0);
	CHECK_EQ(vv_sdiv(-7, 2), (__u64)-3LL);
	CHECK_EQ(vv_sdiv(7, 2), 3);
}

/* An MI at rate_mbps that delivered n packets with loss_pct lost, over
 * 100 ms of sending during which the sRTT grew by rtt_growth_us. */
static __s64 utility(double rate_mbps, double loss_pct, __s64 rtt_growth_us, int starting)
{
	struct vivace_mi mi;
	__u32 n = 1000;

	memset(&mi, 0, sizeof(mi));
	mi.rate = MBPS(rate_mbps);
	mi.lost = (__u32)(n * loss_pct / 100.0 + 0.5);
	mi.delivered = n - mi.lost;
	mi.send_start_us = 1000000;
	mi.send_end_us = 1100000;
	mi.recv_start_us = 1050000;
	mi.recv_end_us = 1150000;
	mi.start_rtt_us = 50000;
	mi.end_rtt_us = (__u32)(50000 + rtt_growth_us);
	return vivace_utility(&mi, MSS, starting);
}

/* The sign of du/dx around 12 Mbit/s, as probing at +-5% sees it. */
static int probe_direction(double loss_pct, __s64 growth_hi_us, __s64 growth_lo_us)
{
	__s64 hi = utility(12 * 1.05, loss_pct, growth_hi_us, 0);
	__s64 lo = utility(12 * 0.95, loss_pct, growth_lo_us, 0);

	return hi > lo ? 1 : (hi < lo ? -1 : 0);
}

static void test_utility(void)
{
	/* No loss, no inflation: u = x^0.9 (12^0.9 = 9.3597). */
	CHECK_TRUE(llabs(utility(12, 0, 0, 0) - 9360) <= 3, "u(12) = %lld", (long long)utility(12, 0, 0, 0));
	/* c x x x L: 11.35 x 12 x 0.05 = 6.81 below x^0.9. */
	CHECK_TRUE(llabs(utility(12, 0, 0, 0) - utility(12, 5, 0, 0) - 6810) <= 10, "loss term %lld",
		   (long long)(utility(12, 0, 0, 0) - utility(12, 5, 0, 0)));
	/* b x x x dRTT/dT: 10 ms over 100 ms is 0.1: 900 x 12 x 0.1 = 1080. */
	CHECK_TRUE(llabs(utility(12, 0, 0, 0) - utility(12, 0, 10000, 0) - 1080000) <= 10, "rtt term %lld",
		   (long long)(utility(12, 0, 0, 0) - utility(12, 0, 10000, 0)));
	/* Inflation below 3% of the MI is noise (2 ms over 100 ms). */
	CHECK_EQ(utility(12, 0, 2000, 0), utility(12, 0, 0, 0));
	/* A draining queue (negative gradient) is a bonus, except in the
	 * starting phase, which ignores it, and ignores loss below 10% too. */
	CHECK_TRUE(utility(12, 0, -10000, 0) > utility(12, 0, 0, 0), "draining should score higher");
	CHECK_EQ(utility(12, 0, -10000, 1), utility(12, 0, 0, 1));
	CHECK_EQ(utility(12, 5, 0, 1), utility(12, 0, 0, 1));
	CHECK_TRUE(utility(12, 20, 0, 1) < utility(12, 0, 0, 1), "starting: 20%% loss counts");

	/* Random loss (equal at both probing rates) below c's threshold,
	 * 0.9 x^-0.1 / 11.35 = 6.2% at 12 Mbit/s, still says "faster"; above
	 * it, "slower". A queue that grows only at the higher rate says
	 * "slower" whatever the loss. */
	CHECK_EQ(probe_direction(0, 0, 0), 1);
	CHECK_EQ(probe_direction(1, 0, 0), 1);
	CHECK_EQ(probe_direction(5, 0, 0), 1);
	CHECK_EQ(probe_direction(8, 0, 0), (__u64)-1);
	CHECK_EQ(probe_direction(0, 5000, 0), (__u64)-1);
	/* No deliveries: no information, utility 0. */
	{
		struct vivace_mi mi;

		memset(&mi, 0, sizeof(mi));
		mi.rate = MBPS(12);
		mi.lost = 50;
		CHECK_EQ(vivace_utility(&mi, MSS, 0), 0);
	}
}

/* ---- a bottleneck and a TCP sender, packet by packet ---- */

#define RING 65536

struct event {
	double t;  /* when the sender learns the packet's fate */
	int lost;
	double rtt;
};

struct sim {
	double cap_Bps;    /* bottleneck rate */
	double base_rtt;   /* s */
	int buffer;        /* packets */
	double loss;       /* random loss probability */
	double now;
	double next_send;
	double link_free;  /* when the bottleneck finishes its backlog */
	struct event ring[RING];
	unsigned head, tail;
	__u32 segs_out, delivered, lost, inflight;
	double srtt;
	__u64 seed;
	struct vivace v;
	/* measurements since the last sim_reset_stats() */
	double stat_start;
	__u64 bytes_delivered;
	double qdelay_sum;
	__u64 qdelay_n;
};

static double rnd(struct sim *s)
{
	s->seed = s->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(s->seed >> 11) / (double)(1ULL << 53);
}

static struct vivace_ack sim_ack(struct sim *s)
{
	struct vivace_ack a = {
		.now_us = (__u64)(s->now * 1e6),
		.segs_out = s->segs_out,
		.delivered = s->delivered,
		.lost = s->lost,
		.srtt_us = (__u32)(s->srtt * 1e6),
		.mss = MSS,
		.rand = (__u32)(rnd(s) * 4),
	};
	return a;
}

static void sim_init(struct sim *s, double cap_mbps, double rtt_ms, int buffer, double loss, __u64 seed)
{
	struct vivace_ack a;

	memset(s, 0, sizeof(*s));
	s->cap_Bps = cap_mbps * 125000.0;
	s->base_rtt = rtt_ms / 1000.0;
	s->buffer = buffer;
	s->loss = loss;
	s->now = 1.0;
	s->srtt = s->base_rtt; /* the handshake's sample */
	s->seed = seed;
	s->delivered = 1;      /* the SYN */
	a = sim_ack(s);
	vv_init(&s->v, &a);
}

static void sim_reset_stats(struct sim *s)
{
	s->stat_start = s->now;
	s->bytes_delivered = 0;
	s->qdelay_sum = 0;
	s->qdelay_n = 0;
}

static double sim_throughput_mbps(const struct sim *s)
{
	return s->bytes_delivered * 8.0 / 1e6 / (s->now - s->stat_start);
}

static double sim_qdelay_ms(const struct sim *s)
{
	return s->qdelay_n ? s->qdelay_sum / s->qdelay_n * 1000.0 : 0;
}

static void sim_send(struct sim *s)
{
	struct event *e = &s->ring[s->tail++ % RING];
	double backlog = s->link_free > s->now ? (s->link_free - s->now) * s->cap_Bps / MSS : 0;

	s->segs_out++;
	s->inflight++;
	if (rnd(s) < s->loss || backlog >= s->buffer) {
		/* Found lost when later packets are SACKed: about an RTT later. */
		e->t = (s->link_free > s->now ? s->link_free : s->now) + s->base_rtt + 3.0 * MSS / s->cap_Bps;
		e->lost = 1;
		return;
	}
	if (s->link_free < s->now)
		s->link_free = s->now;
	s->link_free += MSS / s->cap_Bps;
	e->t = s->link_free + s->base_rtt;
	e->rtt = e->t - s->now;
	e->lost = 0;
}

/* Runs for `secs`; the cwnd and pacing rate are the controller's. */
static void sim_run(struct sim *s, double secs)
{
	double end = s->now + secs, step = 50e-6;

	for (; s->now < end; s->now += step) {
		while (s->head != s->tail && s->ring[s->head % RING].t <= s->now) {
			struct event *e = &s->ring[s->head++ % RING];
			struct vivace_ack a;

			s->inflight--;
			if (e->lost) {
				s->lost++;
			} else {
				s->delivered++;
				s->srtt = s->srtt * 7 / 8 + e->rtt / 8;
				s->bytes_delivered += MSS;
				s->qdelay_sum += e->rtt - s->base_rtt;
				s->qdelay_n++;
			}
			a = sim_ack(s);
			vv_on_ack(&s->v, &a);
		}
		while (s->next_send <= s->now &&
		       s->inflight < vivace_cwnd(s->v.pace_rate, (__u32)(s->srtt * 1e6), MSS) &&
		       s->tail - s->head < RING) {
			sim_send(s);
			s->next_send = (s->next_send > s->now - step ? s->next_send : s->now) +
				       (double)MSS / (double)s->v.pace_rate;
		}
	}
}

/* Starting phase: the rate doubles every MI while utility rises, then
 * falls back to the last good rate and starts probing. */
static void test_starting_phase(void)
{
	struct sim s;
	__u64 r0;
	int doublings = 0;

	sim_init(&s, 50, 40, 1000, 0, 42);
	r0 = s.v.rate;
	CHECK_EQ(r0, 10ULL * MSS * 1000000 / 40000); /* 10 packets per RTT */
	CHECK_EQ(s.v.mode, VIVACE_STARTING);
	while (s.v.mode == VIVACE_STARTING && s.now < 30) {
		__u64 before = s.v.rate;

		sim_run(&s, 0.001);
		if (s.v.mode == VIVACE_STARTING && s.v.rate != before) {
			CHECK_EQ(s.v.rate, 2 * before);
			doublings++;
		}
	}
	CHECK_EQ(s.v.mode, VIVACE_PROBING);
	/* 50 Mbit/s is 6.25 MB/s; from 362 KB/s that is 4 doublings to
	 * 5.8 MB/s and a fifth to 11.6 MB/s, where the queue grows. */
	CHECK_TRUE(doublings >= 4 && doublings <= 6, "%d doublings", doublings);
	CHECK_TRUE(s.v.rate >= MBPS(25) && s.v.rate <= MBPS(50), "start ended at %.2f Mbit/s",
		   s.v.rate / 125000.0);
}

/* Headroom: from a rate well below the bottleneck, the rate climbs to it. */
static void test_rate_rises_with_headroom(void)
{
	struct sim s;

	sim_init(&s, 24, 40, 100, 0, 42);
	sim_run(&s, 5);
	/* Pretend the starting phase ended far too low. */
	s.v.rate = MBPS(3);
	vv_setup_probing(&s.v, 1);
	s.v.mode = VIVACE_PROBING;
	{
		struct vivace_ack a = sim_ack(&s);

		vv_start_interval(&s.v, &a);
	}
	sim_run(&s, 15);
	CHECK_TRUE(s.v.rate >= MBPS(14), "from 3, climbed only to %.2f Mbit/s", s.v.rate / 125000.0);
	sim_reset_stats(&s);
	sim_run(&s, 10);
	CHECK_TRUE(sim_throughput_mbps(&s) >= 0.85 * 24, "throughput %.2f Mbit/s of 24", sim_throughput_mbps(&s));
	/* ... without standing queue: the RTT term keeps it short. */
	CHECK_TRUE(sim_qdelay_ms(&s) < 20, "queueing %.1f ms", sim_qdelay_ms(&s));
}

/* The controller is a noisy experimenter (random probing order, random
 * loss): behaviour is asserted on the median of SEEDS runs. */
#define SEEDS 5

static double median(double *v, int n)
{
	int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

/* A growing RTT pushes the rate down: the capacity halves under a sender
 * that had converged, behind a 1000-packet buffer it has no reason to
 * fill; it follows, and the queue the halving built drains. */
static void test_rate_falls_when_rtt_grows(void)
{
	double before[SEEDS], after[SEEDS], queue[SEEDS], thr[SEEDS];
	struct sim s;
	int i;

	for (i = 0; i < SEEDS; i++) {
		sim_init(&s, 24, 40, 1000, 0, 1000 + i);
		sim_run(&s, 20);
		before[i] = s.v.rate / 125000.0;
		s.cap_Bps /= 2;
		sim_run(&s, 15);
		after[i] = s.v.rate / 125000.0;
		sim_reset_stats(&s);
		sim_run(&s, 10);
		queue[i] = sim_qdelay_ms(&s);
		thr[i] = sim_throughput_mbps(&s);
	}
	CHECK_TRUE(median(before, SEEDS) >= 0.7 * 24, "converged to %.2f Mbit/s of 24", median(before, SEEDS));
	CHECK_TRUE(median(after, SEEDS) <= 14, "after the capacity halved: %.2f Mbit/s", median(after, SEEDS));
	/* A full buffer would be 965 ms of queue at 12 Mbit/s. */
	CHECK_TRUE(median(queue, SEEDS) < 100, "queue not drained: %.1f ms", median(queue, SEEDS));
	CHECK_TRUE(median(thr, SEEDS) >= 0.7 * 12, "throughput %.2f Mbit/s of 12", median(thr, SEEDS));
}

/* Random loss below c's threshold does not cut the rate; well above it,
 * the rate falls, as the utility's loss term says it should. */
static void test_random_loss(void)
{
	static const double loss[] = {0.01, 0.03, 0.15};
	struct sim s;
	unsigned l;
	int i;

	for (l = 0; l < 3; l++) {
		double thr[SEEDS], m;

		for (i = 0; i < SEEDS; i++) {
			sim_init(&s, 12, 50, 100, loss[l], 2000 + i);
			sim_run(&s, 10);
			sim_reset_stats(&s);
			sim_run(&s, 20);
			thr[i] = sim_throughput_mbps(&s);
		}
		m = median(thr, SEEDS);
		if (loss[l] < 0.05)
			CHECK_TRUE(m >= 0.6 * 12, "%.0f%% random loss: %.2f Mbit/s of 12", loss[l] * 100, m);
		else
			CHECK_TRUE(m < 0.3 * 12, "%.0f%% random loss: still %.2f Mbit/s", loss[l] * 100, m);
	}
}

/* The cwnd never limits the rate: two RTTs of it, at least 4 packets. */
static void test_cwnd(void)
{
	CHECK_EQ(vivace_cwnd(MBPS(12), 50000, MSS), 2ULL * 1500000 * 50000 / 1000000 / MSS);
	CHECK_EQ(vivace_cwnd(1024, 50000, MSS), 4);
}

int main(void)
{
	test_pow_matches_libm();
	test_utility();
	test_cwnd();
	test_starting_phase();
	test_rate_rises_with_headroom();
	test_rate_falls_when_rtt_grows();
	test_random_loss();
	if (failures) {
		fprintf(stderr, "vivace_logic_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("vivace_logic_test: ok\n");
	return 0;
}
