/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A TCP sender and one bottleneck, packet by packet, for the host tests of
 * the congestion controls that need the kernel's rate samples (Copa, BBRv3).
 *
 * The path: a FIFO of `buffer` packets drained at `cap_Bps` (the rate may
 * be changed between runs), then `base_rtt` of propagation and the ACK's
 * way back; one ACK per packet. A packet that finds the FIFO full is lost,
 * and the sender learns it when the packet sent after it is acknowledged
 * (SACK's view); random loss likewise. The sender is paced at the
 * controller's rate (no pacing when 0) and limited by its window.
 *
 * The sender keeps the kernel's counters (delivered, lost, delivered_ce,
 * the flight) and builds each ACK's rate sample as net/ipv4/tcp_rate.c
 * does: every packet remembers tp->delivered, the delivery time and the
 * first-send time at its departure; the sample's interval is the longer of
 * the send and ACK intervals, and a sample shorter than the min RTT is
 * invalid (interval -1). An optional CE marker marks packets that find at
 * least `ce_thresh` packets queued.
 *
 * The controller is plugged in through `on_ack`, `cwnd` and `pacing`.
 */
#ifndef TCP_SIM_H
#define TCP_SIM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIM_MSS 1448
#define SIM_RING 65536
#define SIM_CA_OPEN 0
#define SIM_CA_RECOVERY 3

struct sim_pkt {
	double sent;		/* s */
	double fate;		/* when the sender learns it: ACK or loss */
	double first_tx;	/* tp->first_tx_mstamp at its send */
	double delivered_time;	/* tp->delivered_mstamp at its send */
	double qdelay;		/* s in the FIFO */
	__u32 delivered;	/* tp->delivered at its send */
	__u32 seq;
	int lost;
	int ce;
	int app_limited;
};

/* What one ACK tells the controller. */
struct sim_ack {
	double now;
	double rtt;		/* < 0: none */
	double srtt;
	double min_rtt;
	double delivered_time;
	double interval;	/* the rate sample's; -1 invalid */
	__u32 delivered, lost, delivered_ce, inflight, prior_in_flight;
	__u32 prior_delivered;
	__s32 rs_delivered;
	__u32 acked;
	__u32 losses;		/* newly marked lost at this ACK */
	int ca_state;
	int cwnd_limited;
	int app_limited;	/* the sample is app-limited */
	double edt_ahead;	/* s the next departure is paced ahead */
};

struct sim;
typedef void (*sim_ack_fn)(struct sim *s, const struct sim_ack *a);

struct sim {
	double cap_Bps;
	double base_rtt;
	int buffer;
	double loss;
	int ce_thresh;		/* 0: no ECN marking */
	double now, next_send, link_free;
	struct sim_pkt ring[SIM_RING];
	unsigned head, tail;
	__u32 seq, delivered, lost, delivered_ce, inflight;
	__u32 recovery_end;
	int ca_state;
	int cwnd_blocked;
	double first_tx, delivered_time;
	double srtt, min_rtt;
	__u64 seed;
	/* the controller */
	void *cc;
	sim_ack_fn on_ack;
	__u32 (*cwnd)(struct sim *s);
	double (*pacing)(struct sim *s); /* bytes/s; 0: unpaced */
	/* measurements since sim_reset_stats() */
	double stat_start;
	__u64 bytes_delivered, pkts_sent, pkts_lost;
	double qdelay_sum, qdelay_max;
	__u64 qdelay_n;
	double queue_pkts_sum;	/* FIFO length at each departure */
};

static double sim_rnd(struct sim *s)
{
	s->seed = s->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(s->seed >> 11) / (double)(1ULL << 53);
}

static void sim_init(struct sim *s, double cap_mbps, double rtt_ms, int buffer, double loss, __u64 seed)
{
	memset(s, 0, sizeof(*s));
	s->cap_Bps = cap_mbps * 125000.0;
	s->base_rtt = rtt_ms / 1000.0;
	s->buffer = buffer;
	s->loss = loss;
	s->now = 1.0;
	s->srtt = s->base_rtt; /* the handshake's sample */
	s->min_rtt = s->base_rtt;
	s->seed = seed;
	s->delivered = 1; /* the SYN */
	s->first_tx = s->now;
	s->delivered_time = s->now;
}

static inline void sim_reset_stats(struct sim *s)
{
	s->stat_start = s->now;
	s->bytes_delivered = 0;
	s->pkts_sent = 0;
	s->pkts_lost = 0;
	s->qdelay_sum = 0;
	s->qdelay_max = 0;
	s->qdelay_n = 0;
	s->queue_pkts_sum = 0;
}

static inline double sim_throughput_mbps(const struct sim *s)
{
	return s->bytes_delivered * 8.0 / 1e6 / (s->now - s->stat_start);
}

static inline double sim_qdelay_ms(const struct sim *s)
{
	return s->qdelay_n ? s->qdelay_sum / s->qdelay_n * 1000.0 : 0;
}

/* Mean FIFO occupancy seen by departing packets, in packets. */
static inline double sim_queue_pkts(const struct sim *s)
{
	return s->qdelay_n ? s->queue_pkts_sum / s->qdelay_n : 0;
}

static inline double sim_loss_rate(const struct sim *s)
{
	return s->pkts_sent ? (double)s->pkts_lost / s->pkts_sent : 0;
}

static double sim_backlog(const struct sim *s)
{
	return s->link_free > s->now ? (s->link_free - s->now) * s->cap_Bps / SIM_MSS : 0;
}

static void sim_send(struct sim *s)
{
	struct sim_pkt *p = &s->ring[s->tail++ % SIM_RING];
	double backlog = sim_backlog(s);

	if (!s->inflight) { /* tcp_rate_skb_sent(): a fresh start after idle */
		s->first_tx = s->now;
		s->delivered_time = s->now;
	}
	p->sent = s->now;
	p->first_tx = s->first_tx;
	p->delivered_time = s->delivered_time;
	p->delivered = s->delivered;
	p->seq = s->seq++;
	p->ce = 0;
	p->app_limited = 0;
	s->inflight++;
	s->pkts_sent++;
	if (sim_rnd(s) < s->loss || backlog >= s->buffer) {
		/* Learnt when the next packet's ACK arrives. */
		p->fate = (s->link_free > s->now ? s->link_free : s->now) + s->base_rtt + SIM_MSS / s->cap_Bps;
		p->lost = 1;
		return;
	}
	if (s->ce_thresh && backlog >= s->ce_thresh)
		p->ce = 1;
	if (s->link_free < s->now)
		s->link_free = s->now;
	p->qdelay = s->link_free - s->now;
	s->queue_pkts_sum += backlog;
	s->link_free += SIM_MSS / s->cap_Bps;
	p->fate = s->link_free + s->base_rtt;
	p->lost = 0;
}

static void sim_deliver(struct sim *s, struct sim_pkt *p, __u32 losses)
{
	struct sim_ack a;
	double send_elapsed, ack_elapsed, rtt = p->fate - p->sent;

	memset(&a, 0, sizeof(a));
	a.prior_in_flight = s->inflight;
	s->inflight--;
	s->delivered++;
	if (p->ce)
		s->delivered_ce++;
	s->delivered_time = s->now;
	s->first_tx = p->sent;
	s->srtt = s->srtt * 7 / 8 + rtt / 8;
	if (rtt < s->min_rtt)
		s->min_rtt = rtt;
	s->bytes_delivered += SIM_MSS;
	s->qdelay_sum += p->qdelay;
	if (p->qdelay > s->qdelay_max)
		s->qdelay_max = p->qdelay;
	s->qdelay_n++;
	if (s->ca_state == SIM_CA_RECOVERY && p->seq >= s->recovery_end)
		s->ca_state = SIM_CA_OPEN;

	send_elapsed = p->sent - p->first_tx;
	ack_elapsed = s->now - p->delivered_time;
	a.interval = send_elapsed > ack_elapsed ? send_elapsed : ack_elapsed;
	if (a.interval < s->min_rtt)
		a.interval = -1; /* tcp_rate_gen(): too short to trust */
	a.now = s->now;
	a.rtt = rtt;
	a.srtt = s->srtt;
	a.min_rtt = s->min_rtt;
	a.delivered_time = s->delivered_time;
	a.delivered = s->delivered;
	a.lost = s->lost;
	a.delivered_ce = s->delivered_ce;
	a.inflight = s->inflight;
	a.prior_delivered = p->delivered;
	a.rs_delivered = (__s32)(s->delivered - p->delivered);
	a.acked = 1;
	a.losses = losses;
	a.ca_state = s->ca_state;
	a.cwnd_limited = s->cwnd_blocked || s->inflight + 1 >= s->cwnd(s);
	a.app_limited = p->app_limited;
	a.edt_ahead = s->next_send > s->now ? s->next_send - s->now : 0;
	s->cwnd_blocked = 0;
	s->on_ack(s, &a);
}

/* Runs for `secs` of model time in 20 µs steps. */
static void sim_run(struct sim *s, double secs)
{
	double end = s->now + secs, step = 20e-6;

	for (; s->now < end; s->now += step) {
		__u32 losses = 0;

		while (s->head != s->tail && s->ring[s->head % SIM_RING].fate <= s->now) {
			struct sim_pkt *p = &s->ring[s->head++ % SIM_RING];

			if (p->lost) {
				s->inflight--;
				s->lost++;
				s->pkts_lost++;
				losses++;
				if (s->ca_state != SIM_CA_RECOVERY) {
					s->ca_state = SIM_CA_RECOVERY;
					s->recovery_end = s->seq;
				}
				continue;
			}
			sim_deliver(s, p, losses);
			losses = 0;
		}
		for (;;) {
			double rate = s->pacing(s);

			if (s->tail - s->head >= SIM_RING)
				break;
			if (s->inflight >= s->cwnd(s)) {
				s->cwnd_blocked = 1;
				break;
			}
			if (rate > 0 && s->next_send > s->now)
				break;
			sim_send(s);
			if (rate > 0)
				s->next_send = (s->next_send > s->now - step ? s->next_send : s->now) + SIM_MSS / rate;
		}
	}
}

#endif /* TCP_SIM_H */
