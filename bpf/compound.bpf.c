// SPDX-License-Identifier: GPL-2.0
/*
 * compound: Compound TCP as a BPF congestion control. The Linux port of CTCP
 * (tcp_compound, Castellani/Hemminger 2006, Andrew 2008) was never merged and
 * stops at 2.6.2x kernels, and this kernel loads no modules, so the algorithm
 * is compound_logic.h and this file keeps its two windows in step with the
 * kernel's one.
 *
 * The kernel knows only snd_cwnd; we keep snd_cwnd = cwnd + dwnd (loss window
 * + delay window) ourselves. Whenever the stack moved snd_cwnd on its own
 * (recovery's PRR, a timeout's cwnd = 1, an undo), the two are re-derived
 * from it first: a smaller snd_cwnd cuts the delay window first, then the
 * loss window; a larger one is credited to the delay window. RTT samples
 * feed baseRTT (all-time minimum) and the round's minimum; a round ends when
 * an ACK passes the snd_nxt noted at its start, as in our Vegas.
 */
#include "tcp_ca_common.h"
#include "compound_logic.h"

char _license[] SEC("license") = "GPL";

struct compound {
	__u32 cwnd;	    /* loss-based window, packets */
	__u32 dwnd;	    /* delay-based window, packets */
	__u32 cnt;	    /* packets acked toward the loss window's next +1 */
	__u32 base_rtt_us;  /* minimum RTT ever seen */
	__u32 round_min_us; /* minimum RTT of this round */
	__u32 round_cnt;    /* RTT samples in this round */
	__u32 beg_snd_nxt;  /* the round ends when this is acked */
};

_Static_assert(sizeof(struct compound) <= 104, "icsk_ca_priv is 104 bytes");

static __always_inline struct compound *ct(const struct sock *sk)
{
	return (struct compound *)inet_csk_ca(sk);
}

static __always_inline void ctcp_new_round(struct sock *sk)
{
	struct compound *c = ct(sk);

	c->beg_snd_nxt = tcp_sk(sk)->snd_nxt;
	c->round_cnt = 0;
	c->round_min_us = 0x7fffffff;
}

/* Make cwnd + dwnd equal the kernel's snd_cwnd again. */
static __always_inline void ctcp_sync(struct compound *c, __u32 snd_cwnd)
{
	if (snd_cwnd == c->cwnd + c->dwnd)
		return;
	if (snd_cwnd <= c->cwnd) {
		c->cwnd = snd_cwnd;
		c->dwnd = 0;
	} else {
		c->dwnd = snd_cwnd - c->cwnd;
	}
}

SEC("struct_ops")
void BPF_PROG(compound_init, struct sock *sk)
{
	struct compound *c = ct(sk);

	c->cwnd = tcp_sk(sk)->snd_cwnd;
	c->dwnd = 0;
	c->cnt = 0;
	c->base_rtt_us = 0x7fffffff;
	ctcp_new_round(sk);
}

SEC("struct_ops")
void BPF_PROG(compound_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct compound *c = ct(sk);
	__u32 rtt;

	if (sample->rtt_us <= 0)
		return;
	rtt = (__u32)sample->rtt_us + 1; /* never 0 */
	if (rtt < c->base_rtt_us)
		c->base_rtt_us = rtt;
	if (rtt < c->round_min_us)
		c->round_min_us = rtt;
	c->round_cnt++;
}

SEC("struct_ops")
void BPF_PROG(compound_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct compound *c = ct(sk);
	__u32 diff;

	ctcp_sync(c, tp->snd_cwnd);
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		/* The delay window joins only in congestion avoidance. */
		tcp_slow_start(tp, acked);
		c->cwnd = tp->snd_cwnd;
		c->dwnd = 0;
		ctcp_new_round(sk);
		return;
	}
	c->cwnd = ctcp_cwnd_after_ack(c->cwnd, c->dwnd, &c->cnt, acked);
	if ((__s32)(ack - c->beg_snd_nxt) > 0) {
		/* A round is over; too few samples cannot tell delayed ACKs
		 * from queueing (as in Vegas), so the delay window then holds. */
		if (c->round_cnt > 2) {
			diff = ctcp_diff(c->cwnd + c->dwnd, c->base_rtt_us, c->round_min_us);
			c->dwnd = ctcp_dwnd_after_round(c->cwnd, c->dwnd, diff);
		}
		ctcp_new_round(sk);
	}
	tcp_set_cwnd(tp, c->cwnd + c->dwnd);
}

/* A loss: both windows shrink (compound_logic.h); the kernel's recovery
 * brings snd_cwnd down to their new sum. */
SEC("struct_ops")
__u32 BPF_PROG(compound_ssthresh, struct sock *sk)
{
	struct compound *c = ct(sk);
	__u32 win;

	ctcp_sync(c, tcp_sk(sk)->snd_cwnd);
	c->dwnd = ctcp_dwnd_after_loss(c->cwnd, c->dwnd);
	c->cwnd = ctcp_cwnd_after_loss(c->cwnd);
	c->cnt = 0;
	win = c->cwnd + c->dwnd;
	return win > 2 ? win : 2;
}

SEC("struct_ops")
void BPF_PROG(compound_set_state, struct sock *sk, __u8 new_state)
{
	struct compound *c = ct(sk);

	if (new_state == TCP_CA_Loss) {
		/* A timeout: the window restarts from 1, all of it loss-based. */
		c->dwnd = 0;
		c->cnt = 0;
	}
	if (new_state == TCP_CA_Open)
		ctcp_new_round(sk);
}

SEC("struct_ops")
void BPF_PROG(compound_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	if (event == CA_EVENT_CWND_RESTART || event == CA_EVENT_TX_START)
		ctcp_new_round(sk);
}

/* Linux 7.1 and later report the restart after idle here instead. */
SEC("struct_ops")
void BPF_PROG(compound_cwnd_event_tx_start, struct sock *sk)
{
	ctcp_new_round(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(compound_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops___c2tcp compound = {
	.init = (void *)compound_init,
	.pkts_acked = (void *)compound_pkts_acked,
	.cong_avoid = (void *)compound_cong_avoid,
	.ssthresh = (void *)compound_ssthresh,
	.set_state = (void *)compound_set_state,
	.cwnd_event = (void *)compound_cwnd_event,
	.cwnd_event_tx_start = (void *)compound_cwnd_event_tx_start,
	.undo_cwnd = (void *)compound_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "compound",
};
