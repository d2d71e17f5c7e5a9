// SPDX-License-Identifier: GPL-2.0
/*
 * prague: TCP Prague as a BPF congestion control (prague_logic.h has the
 * algorithm and its references; docs/l4s.md the constants and deviations).
 *
 * Below a window of 4 packets, once marked, it keeps a rate rather than a
 * window (tcp_prague.c v0.7's rate mode; prague_logic.h).
 *
 * cong_control() runs on every ACK in place of the kernel's cwnd machinery
 * (so PRR does not shrink the window behind our back): it reads how many
 * packets the ACK newly delivered and how many the receiver echoed as CE
 * (tp->delivered, tp->delivered_ce), grows the fractional window for the
 * unmarked ones, updates alpha once a round trip, moves snd_cwnd one step
 * toward the window and paces at the window per smoothed RTT. The
 * reductions come through set_state(): CWR (the kernel entered it on an
 * echoed CE, at most once a round trip) takes alpha/2 of the window,
 * Recovery (a loss) half of it; cwnd_event(CA_EVENT_LOSS) is a timeout.
 * Each sets the ssthresh to the reduced window (the kernel asked ssthresh()
 * just before and was told the old one), which ends slow start there.
 *
 * The wire: TCP_CONG_NEEDS_ECN makes the connection negotiate ECN and send
 * ECT(0) whatever net.ipv4.tcp_ecn says; a struct_ops program cannot write
 * the IP header, so the L4S identifier, ECT(1), is set by a tc egress
 * program on the sender's device (bpf/ect1.bpf.c, attached by the runner
 * for Prague's flows only). The receiver runs this congestion control too
 * (the runner makes `prague` the namespaces' default).
 *
 * The feedback: TCP_CONG_NEEDS_ACCECN makes both ends negotiate Accurate
 * ECN (RFC 9768) where the kernel has the flag (7.0, and 6.18.y's
 * backport; KernelForm::apply clears it elsewhere, docs/l4s.md): the
 * receiver's kernel counts CE packets and the sender's adds exact counts
 * to tp->delivered_ce. Without it, or if the peer answers with classic ECN,
 * the receiver's cwnd_event() echoes CE per packet as DCTCP's receiver does
 * (ce_echo.h), which tcp_ca_common.h's ce_echo_event() skips on an AccECN
 * connection. alpha reads tp->delivered_ce either way.
 */
#include "tcp_ca_common.h"
#include "prague_logic.h"

char _license[] SEC("license") = "GPL";

/* Classic-ECN fallback: 0, as the L4S team's tcp_prague.c ships it
 * (prague_ecn_fallback = 0: the score is kept, never applied); 1 applies it
 * (the draft's SHOULD). docs/l4s.md says why the shipped default. */
#define PRAGUE_ECN_FALLBACK 0

_Static_assert(sizeof(struct prague_state) <= 104, "icsk_ca_priv is 104 bytes");

static __always_inline struct prague_state *prague_of(const struct sock *sk)
{
	return (struct prague_state *)inet_csk_ca(sk);
}

static __always_inline struct prague_ack prague_read(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct prague_ack a = {
		.delivered = tp->delivered,
		.delivered_ce = tp->delivered_ce,
		.snd_cwnd = tp->snd_cwnd,
		.snd_ssthresh = tp->snd_ssthresh,
		.snd_cwnd_clamp = tp->snd_cwnd_clamp,
		.snd_una = tp->snd_una,
		.snd_nxt = tp->snd_nxt,
		.srtt_us = tp->srtt_us >> 3,
		.min_rtt_us = tp->rtt_min.s[0].v,
		.now_us = (__u32)tp->tcp_mstamp,
		.mtu = tp->mss_cache + tp->tcp_header_len + 20, /* + the IPv4 header */
		.cwnd_limited = tcp_is_cwnd_limited(sk),
		.app_limited = tp->app_limited != 0,
	};
	return a;
}

static __always_inline void prague_pace(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct prague_ack a = prague_read(sk);
	__u64 rate = prague_pacing_rate(prague_of(sk), &a, tcp_packets_in_flight(tp));

	if (rate)
		sk->sk_pacing_rate = rate < sk->sk_max_pacing_rate ? rate : sk->sk_max_pacing_rate;
}

SEC("struct_ops")
void BPF_PROG(prague_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct prague_ack a = prague_read(sk);

	prague_init_state(prague_of(sk), &a, PRAGUE_ECN_FALLBACK);
	prague_of(sk)->echo.prior_rcv_nxt = tp->rcv_nxt;
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
}

SEC("struct_ops")
void BPF_PROG(prague_cong_control, struct sock *sk, __u32 ack, int flag,
	      const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct prague_ack a = prague_read(sk);
	struct prague_window w = prague_on_ack(prague_of(sk), &a);

	tcp_set_cwnd(tp, w.snd_cwnd);
	tp->snd_ssthresh = w.snd_ssthresh;
	prague_pace(sk);
}

SEC("struct_ops")
void BPF_PROG(prague_set_state, struct sock *sk, __u8 new_state)
{
	struct prague_state *s = prague_of(sk);
	__u8 old = inet_csk(sk)->icsk_ca_state;
	struct prague_ack a;

	if (new_state == old)
		return;
	switch (new_state) {
	case TCP_CA_CWR:
		a = prague_read(sk);
		tcp_sk(sk)->snd_ssthresh = prague_on_cwr(s, &a);
		break;
	case TCP_CA_Recovery:
		a = prague_read(sk);
		tcp_sk(sk)->snd_ssthresh = prague_on_loss(s, &a);
		break;
	case TCP_CA_Open:
		s->in_loss = 0;
		break;
	}
}

/* The receiver's echo of each data packet's CE bit; a timeout. */
SEC("struct_ops")
void BPF_PROG(prague_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct prague_ack a;

	if (ev == CA_EVENT_LOSS) {
		a = prague_read(sk);
		tcp_sk(sk)->snd_ssthresh = prague_on_loss(prague_of(sk), &a);
	} else {
		ce_echo_event(sk, &prague_of(sk)->echo, ev);
	}
}

SEC("struct_ops")
void BPF_PROG(prague_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	if (sample->rtt_us > 0)
		prague_rtt_sample(prague_of(sk), (__u32)sample->rtt_us);
}

SEC("struct_ops")
__u32 BPF_PROG(prague_ssthresh, struct sock *sk)
{
	/* set_state() and the ACKs move the window and the ssthresh. */
	return tcp_sk(sk)->snd_ssthresh;
}

SEC("struct_ops")
__u32 BPF_PROG(prague_undo_cwnd, struct sock *sk)
{
	struct prague_ack a = prague_read(sk);

	return prague_undo(prague_of(sk), &a);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops prague = {
	.init = (void *)prague_init,
	.cong_control = (void *)prague_cong_control,
	.set_state = (void *)prague_set_state,
	.cwnd_event = (void *)prague_cwnd_event,
	.pkts_acked = (void *)prague_pkts_acked,
	.ssthresh = (void *)prague_ssthresh,
	.undo_cwnd = (void *)prague_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED | TCP_CONG_NEEDS_ECN | TCP_CONG_NEEDS_ACCECN,
	.name = "prague",
};
