// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of bpf/copa_logic.h (and bpf/win_minmax.h): the windowed
 * filters, RTTstanding and RTTmin, the target-rate test, the velocity's
 * doubling and reset, the switch to and from the competitive mode, and the
 * whole controller on a model bottleneck (bpf/tests/tcp_sim.h), where the
 * paper's model says where it should settle.
 */
#include <math.h>

#include "../copa_logic.h"
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

#define MS 1000u

/* ---- the windowed filters ---- */

static void test_win_minmax(void)
{
	struct win_minmax m;
	__u32 t;

	/* A falling sample is the new minimum at once. */
	win_reset(&m, 0, 50);
	CHECK_EQ(win_min(&m, 100, 10, 40), 40);
	CHECK_EQ(win_min(&m, 100, 40, 60), 40);
	/* ... and is forgotten once the window has passed it: the minimum of
	 * what followed (60, then 70) takes over. */
	CHECK_EQ(win_min(&m, 100, 90, 70), 40);
	CHECK_EQ(win_min(&m, 100, 115, 80), 60);
	CHECK_EQ(win_min(&m, 100, 300, 90), 90);
	/* The estimate's price: a runner-up within the first quarter window
	 * of the best is not kept (60 at 20 is lost; 70 at 90 stands in). */
	win_reset(&m, 0, 50);
	win_min(&m, 100, 10, 40);
	win_min(&m, 100, 20, 60);
	win_min(&m, 100, 90, 70);
	CHECK_EQ(win_min(&m, 100, 115, 80), 70);

	/* Max likewise. */
	win_reset(&m, 0, 10);
	CHECK_EQ(win_max(&m, 100, 10, 30), 30);
	CHECK_EQ(win_max(&m, 100, 50, 20), 30);
	CHECK_EQ(win_max(&m, 100, 200, 5), 5);

	/* A steady ramp down is tracked exactly, a ramp up within the window. */
	win_reset(&m, 0, 1000);
	for (t = 1; t <= 1000; t++) {
		__u32 v = win_min(&m, 100, t, 1000 - t);

		if (v != 1000 - t)
			failures++;
	}
	win_reset(&m, 0, 0);
	for (t = 1; t <= 1000; t++) {
		__u32 v = win_min(&m, 100, t, t);

		/* the true minimum is t - 100; the estimate is never older
		 * than the window and never newer than its last quarter */
		if (t > 200 && (v + 100 < t || v > t - 100 + 50)) {
			fprintf(stderr, "ramp up: t %u min %u\n", t, v);
			failures++;
			break;
		}
	}
	/* The clock may wrap. */
	win_reset(&m, 0xfffffff0u, 50);
	CHECK_EQ(win_min(&m, 100, 0x20, 60), 50);
	CHECK_EQ(win_min(&m, 100, 0x200, 60), 60);
}

/* ---- per-ACK pieces ---- */

static struct copa_ack ack_at(__u64 now_us, __s64 rtt_us, __u32 srtt_us)
{
	struct copa_ack a = {
		.now_us = now_us,
		.rtt_us = rtt_us,
		.srtt_us = srtt_us,
		.acked = 1,
		.mss = SIM_MSS,
		.cwnd_limited = 1,
	};
	return a;
}

/* RTTstanding is the minimum of the last srtt/2, RTTmin of the last 10 s. */
static void test_standing_and_min_rtt(void)
{
	struct copa c;
	struct copa_ack a;
	__u64 t = 1000000;
	int i;

	copa_start(&c, t, 10, 1);
	/* 50 ms RTTs, one 30 ms sample, then 60 ms RTTs. */
	for (i = 0; i < 100; i++, t += 1 * MS) {
		a = ack_at(t, 50 * MS, 50 * MS);
		copa_on_ack(&c, &a);
	}
	CHECK_EQ(c.rtt_standing_us, 50 * MS);
	CHECK_EQ(c.rtt_min_us, 50 * MS);
	a = ack_at(t, 30 * MS, 50 * MS);
	copa_on_ack(&c, &a);
	CHECK_EQ(c.rtt_standing_us, 30 * MS);
	CHECK_EQ(c.rtt_min_us, 30 * MS);
	for (i = 0; i < 10; i++) { /* 10 ms later: within srtt/2 = 25 ms */
		t += 1 * MS;
		a = ack_at(t, 60 * MS, 50 * MS);
		copa_on_ack(&c, &a);
	}
	CHECK_EQ(c.rtt_standing_us, 30 * MS);
	for (i = 0; i < 40; i++) { /* 50 ms later: past srtt/2 */
		t += 1 * MS;
		a = ack_at(t, 60 * MS, 50 * MS);
		copa_on_ack(&c, &a);
	}
	CHECK_EQ(c.rtt_standing_us, 60 * MS);
	CHECK_EQ(c.rtt_min_us, 30 * MS); /* RTTmin remembers for 10 s */
	for (i = 0; i < 11000; i++) {
		t += 1 * MS;
		a = ack_at(t, 60 * MS, 50 * MS);
		copa_on_ack(&c, &a);
	}
	CHECK_EQ(c.rtt_min_us, 60 * MS);
}

/* lambda = cwnd / RTTstanding against lambda_t = 1 / (delta * d_q). */
static void test_target_rate(void)
{
	/* d_q = 10 ms, delta = 0.5: lambda_t = 200 packets/s; RTTstanding
	 * 50 ms: cwnd 10 is exactly at the target, 11 above it. */
	CHECK_EQ(copa_below_target(10ULL << COPA_CWND_SHIFT, 50 * MS, 40 * MS, COPA_INV_DELTA_DEFAULT), 1);
	CHECK_EQ(copa_below_target(11ULL << COPA_CWND_SHIFT, 50 * MS, 40 * MS, COPA_INV_DELTA_DEFAULT), 0);
	/* delta = 0.25 (1/delta = 4) doubles the target. */
	CHECK_EQ(copa_below_target(20ULL << COPA_CWND_SHIFT, 50 * MS, 40 * MS, 4u << COPA_INV_DELTA_SHIFT), 1);
	CHECK_EQ(copa_below_target(21ULL << COPA_CWND_SHIFT, 50 * MS, 40 * MS, 4u << COPA_INV_DELTA_SHIFT), 0);
	/* No queue: infinite target. */
	CHECK_EQ(copa_below_target(1ULL << 30, 40 * MS, 40 * MS, COPA_INV_DELTA_DEFAULT), 1);

	/* One ACK moves cwnd by v / (delta * cwnd): 1 / (0.5 * 10) = 0.2
	 * packet up below the target, down above it. */
	{
		struct copa c;
		struct copa_ack a;
		__u64 before;

		copa_start(&c, 0, 10, 1);
		c.slow_start = 0;
		a = ack_at(1000, 40 * MS, 40 * MS); /* RTTmin 40 ms */
		copa_on_ack(&c, &a);
		copa_set_cwnd(&c, 10ULL << COPA_CWND_SHIFT);
		before = c.cwnd_fp;
		a = ack_at(2000, 40 * MS, 40 * MS); /* no queue */
		copa_on_ack(&c, &a);
		CHECK_EQ(c.cwnd_fp - before, (1ULL << COPA_CWND_SHIFT) / 5);

		copa_start(&c, 0, 10, 1);
		c.slow_start = 0;
		a = ack_at(1000, 40 * MS, 40 * MS);
		copa_on_ack(&c, &a);
		c.min_rtt.s[0].v = c.min_rtt.s[1].v = c.min_rtt.s[2].v = 20 * MS;
		copa_set_cwnd(&c, 10ULL << COPA_CWND_SHIFT);
		before = c.cwnd_fp;
		a = ack_at(2000, 40 * MS, 40 * MS); /* d_q 20 ms: target 100/s */
		copa_on_ack(&c, &a);
		CHECK_EQ(before - c.cwnd_fp, (1ULL << COPA_CWND_SHIFT) / 5);
		/* Pacing at 2 cwnd / RTTstanding. */
		CHECK_EQ(c.pacing_rate, 2 * (c.cwnd_fp * SIM_MSS >> COPA_CWND_SHIFT) * 1000000 / (40 * MS));
	}
}

/* v stays 1 for three RTTs in one direction, then doubles each RTT; the
 * decision flipping resets it to 1 at once. */
static void test_velocity(void)
{
	struct copa c;
	struct copa_ack a;
	__u64 t = 0;
	__u32 v_at_rtt[10];
	int r, i;

	copa_start(&c, 0, 100, 1);
	c.slow_start = 0;
	a = ack_at(t, 40 * MS, 40 * MS);
	copa_on_ack(&c, &a); /* RTTmin = RTTstanding: always below target */
	for (r = 0; r < 10; r++) {
		for (i = 0; i < 40; i++) { /* one RTT: 40 ACKs 1 ms apart */
			t += MS;
			a = ack_at(t, 40 * MS, 40 * MS);
			copa_on_ack(&c, &a);
		}
		v_at_rtt[r] = c.velocity;
	}
	CHECK_EQ(c.direction, COPA_DIR_UP);
	/* The first RTT records the direction; v = 1 through the third same
	 * direction, 2 at the third, then doubling each RTT. */
	CHECK_EQ(v_at_rtt[0], 1);
	CHECK_EQ(v_at_rtt[1], 1);
	CHECK_EQ(v_at_rtt[2], 1);
	CHECK_EQ(v_at_rtt[3], 2);
	CHECK_EQ(v_at_rtt[4], 4);
	CHECK_EQ(v_at_rtt[5], 8);
	CHECK_TRUE(v_at_rtt[9] > v_at_rtt[5], "v %u then %u", v_at_rtt[5], v_at_rtt[9]);
	/* ... never past cwnd * delta: the window cannot change by more than
	 * itself in an RTT. */
	CHECK_TRUE((__u64)c.velocity * 2 <= copa_cwnd(&c) * 2ULL, "v %u, cwnd %u", c.velocity, copa_cwnd(&c));

	/* A queue appears. One high sample is jitter to RTTstanding (the
	 * minimum of srtt/2); half an RTT of them is a queue, the decision
	 * says down, and v resets at that ACK. */
	{
		int flipped_at = -1;

		for (i = 0; i < 30; i++) {
			__u32 v_before = c.velocity;

			t += MS;
			a = ack_at(t, 400 * MS, 40 * MS);
			copa_on_ack(&c, &a);
			if (c.direction == COPA_DIR_DOWN && flipped_at < 0) {
				flipped_at = i;
				CHECK_TRUE(v_before > 1, "v was %u before the flip", v_before);
				CHECK_EQ(c.velocity, 1);
			}
		}
		CHECK_TRUE(flipped_at >= 15 && flipped_at <= 25, "flipped after %d ms of queue", flipped_at + 1);
	}
}

/* Competitive mode: the queue has not emptied in five RTTs. 1/delta then
 * grows by 1 per RTT and halves on a loss; once the queue empties again,
 * back to the default delta = 0.5. */
static void test_competitive_mode(void)
{
	struct copa c;
	struct copa_ack a;
	__u64 t = 0;
	int r, i;

	copa_start(&c, 0, 50, 1);
	c.slow_start = 0;
	a = ack_at(t, 40 * MS, 40 * MS);
	copa_on_ack(&c, &a);
	/* RTT between 70 and 80 ms: a standing queue of 30-40 ms over a 40 ms
	 * path, as a buffer-filler beside us would keep. */
	for (r = 0; r < 4; r++) {
		for (i = 0; i < 80; i++) {
			t += MS;
			a = ack_at(t, (70 + i % 11) * MS, 80 * MS);
			copa_on_ack(&c, &a);
		}
	}
	/* Four RTTs (of 80 ms): still within the five the first 40 ms sample
	 * counts for. */
	CHECK_EQ(c.competitive, 0);
	for (r = 0; r < 3; r++) {
		for (i = 0; i < 80; i++) {
			t += MS;
			a = ack_at(t, (70 + i % 11) * MS, 80 * MS);
			copa_on_ack(&c, &a);
		}
	}
	CHECK_EQ(c.competitive, 1);
	{
		__u32 before = c.inv_delta;

		for (i = 0; i < 4 * 80; i++) {
			t += MS;
			a = ack_at(t, (70 + i % 11) * MS, 80 * MS);
			copa_on_ack(&c, &a);
		}
		/* four RTTs: +4 (within one of it, by where the RTT boundary falls) */
		CHECK_TRUE(c.inv_delta >= before + 3 * COPA_INV_DELTA_STEP &&
				   c.inv_delta <= before + 5 * COPA_INV_DELTA_STEP,
			   "1/delta %u -> %u", before, c.inv_delta);
		before = c.inv_delta;
		t += MS;
		a = ack_at(t, 75 * MS, 80 * MS);
		a.losses = 1;
		copa_on_ack(&c, &a);
		CHECK_EQ(c.inv_delta, before / 2 < COPA_INV_DELTA_DEFAULT ? COPA_INV_DELTA_DEFAULT : before / 2);
		/* a second loss within the RTT does not halve again */
		before = c.inv_delta;
		t += MS;
		copa_on_ack(&c, &a);
		CHECK_EQ(c.inv_delta, before);
	}
	/* The queue drains: an RTT near RTTmin. */
	t += MS;
	a = ack_at(t, 41 * MS, 80 * MS);
	copa_on_ack(&c, &a);
	CHECK_EQ(c.competitive, 0);
	CHECK_EQ(c.inv_delta, COPA_INV_DELTA_DEFAULT);
	CHECK_EQ(c.mode_switches, 2);
}

/* ---- the controller on a model path ---- */

static void copa_sim_ack(struct sim *s, const struct sim_ack *sa)
{
	struct copa *c = s->cc;
	struct copa_ack a = {
		.now_us = (__u64)(sa->now * 1e6),
		.rtt_us = sa->rtt >= 0 ? (__s64)(sa->rtt * 1e6) : -1,
		.srtt_us = (__u32)(sa->srtt * 1e6),
		.acked = sa->acked,
		.losses = sa->losses,
		.mss = SIM_MSS,
		.cwnd_limited = sa->cwnd_limited,
	};
	copa_on_ack(c, &a);
}

static __u32 copa_sim_cwnd(struct sim *s)
{
	return copa_cwnd(s->cc);
}

static double copa_sim_pacing(struct sim *s)
{
	return (double)((struct copa *)s->cc)->pacing_rate;
}

static void copa_sim_init(struct sim *s, struct copa *c, double mbps, double rtt_ms, int buffer, double loss,
			  __u64 seed)
{
	sim_init(s, mbps, rtt_ms, buffer, loss, seed);
	copa_start(c, (__u64)(s->now * 1e6), 10, 1);
	c->pacing_rate = copa_pacing_rate(c->cwnd_fp, (__u32)(rtt_ms * 1000), SIM_MSS);
	s->cc = c;
	s->on_ack = copa_sim_ack;
	s->cwnd = copa_sim_cwnd;
	s->pacing = copa_sim_pacing;
}

/*
 * The set-up in the model: 24 Mbit/s, 20 ms, a deep (1000-packet)
 * buffer. The paper's model has a lone flow settle where d_q = 1/(delta mu),
 * a standing queue of 1/delta = 2 packets at delta = 0.5, its window
 * oscillating around that point; so the queue stays a handful of packets
 * and the link stays busy.
 */
static void test_lone_flow(void)
{
	static struct sim s;
	struct copa c;

	copa_sim_init(&s, &c, 24, 20, 1000, 0, 1);
	sim_run(&s, 5);
	CHECK_EQ(c.slow_start, 0);
	CHECK_EQ(c.competitive, 0);
	sim_reset_stats(&s);
	sim_run(&s, 20);
	printf("copa, 24 Mbit/s, 20 ms, 1000-packet buffer: %.2f Mbit/s, mean queue %.2f packets "
	       "(%.2f ms), max %.1f ms, mode switches %u\n",
	       sim_throughput_mbps(&s), sim_queue_pkts(&s), sim_qdelay_ms(&s), s.qdelay_max * 1000,
	       c.mode_switches);
	CHECK_TRUE(sim_throughput_mbps(&s) >= 0.9 * 24, "throughput %.2f of 24", sim_throughput_mbps(&s));
	CHECK_TRUE(sim_queue_pkts(&s) <= 10, "mean queue %.2f packets", sim_queue_pkts(&s));
	CHECK_EQ(c.competitive, 0);
}

/* The capacity halves: Copa follows it down, and the queue the halving
 * built drains within a couple of seconds. (What it does afterwards on a
 * deep buffer is docs/peers.md's: a stretch without an empty queue turns
 * the competitive mode on, and with nothing lost nothing turns it off.) */
static void test_capacity_drop(void)
{
	static struct sim s;
	struct copa c;

	copa_sim_init(&s, &c, 24, 40, 1000, 0, 2);
	sim_run(&s, 10);
	s.cap_Bps /= 2;
	sim_run(&s, 2);
	sim_reset_stats(&s);
	sim_run(&s, 3);
	CHECK_TRUE(sim_throughput_mbps(&s) >= 0.85 * 12, "throughput %.2f of 12", sim_throughput_mbps(&s));
	CHECK_TRUE(sim_queue_pkts(&s) <= 10, "mean queue %.2f packets", sim_queue_pkts(&s));
}

/* Random loss (1 %) does not move the default mode's window (the paper:
 * robust to non-congestive loss). */
static void test_random_loss(void)
{
	static struct sim s;
	struct copa c;

	copa_sim_init(&s, &c, 12, 40, 1000, 0.01, 3);
	sim_run(&s, 5);
	sim_reset_stats(&s);
	sim_run(&s, 15);
	CHECK_TRUE(sim_throughput_mbps(&s) >= 0.85 * 12 * 0.99, "1 %% loss: %.2f of 12", sim_throughput_mbps(&s));
}

/* An RTO: minimum window, slow start again. */
static void test_rto(void)
{
	struct copa c;

	copa_start(&c, 0, 100, 1);
	c.slow_start = 0;
	c.velocity = 8;
	copa_on_rto(&c, SIM_MSS);
	CHECK_EQ(copa_cwnd(&c), COPA_MIN_CWND);
	CHECK_EQ(c.slow_start, 1);
	CHECK_EQ(c.velocity, 1);
}

int main(void)
{
	test_win_minmax();
	test_standing_and_min_rtt();
	test_target_rate();
	test_velocity();
	test_competitive_mode();
	test_rto();
	test_lone_flow();
	test_capacity_drop();
	test_random_loss();
	if (failures) {
		fprintf(stderr, "copa_logic_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("copa_logic_test: ok\n");
	return 0;
}
