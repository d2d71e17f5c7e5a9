// SPDX-License-Identifier: GPL-2.0
/*
 * bbr3: BBRv3 (Google's v3 branch, draft-ietf-ccwg-bbr) as a BPF congestion
 * control; bbr3_logic.h has the algorithm and says what a BPF program on a
 * mainline kernel does differently from the branch's module and why.
 *
 * The hooks, as the branch's module uses them:
 *   init          the model's initial state; internal pacing engaged
 *                 (SK_PACING_NEEDED: no fq qdisc needed);
 *   cong_control  every ACK: the socket's counters and the rate sample in,
 *                 cwnd, sk_pacing_rate (and in PROBE_RTT tp->app_limited,
 *                 at DRAIN ssthresh for monitoring) out;
 *   cwnd_event    CA_EVENT_TX_START (7.1's cwnd_event_tx_start hook where
 *                 the kernel has it): the restart after idle;
 *   ssthresh      entering recovery: what undo needs; ssthresh unchanged;
 *   undo_cwnd     a spurious recovery: the bounds as they were;
 *   set_state     an RTO, and its end;
 *   min_tso_segs  mainline BBR's (the branch's tso_segs() is not a hook
 *                 mainline offers: bbr3_logic.h says what that changes);
 *   sndbuf_expand 3, as BBR: it may slow-start during recovery.
 *
 * The state (~230 bytes with our round snapshots) does not fit
 * icsk_ca_priv's 104 bytes, where the branch packs it in bitfields; it
 * lives in socket-local storage, freed with the socket.
 *
 * ECN: the response to CE marks applies to connections that negotiated ECN
 * (the sender's net.ipv4.tcp_ecn = 1; off by Linux's default) below
 * `bbr3_ecn_max_rtt_us` of min RTT (the branch's 5 ms, set before load;
 * 0 for any RTT): bbr3_logic.h.
 *
 * Kernels before 6.10 call cong_control(sk, rs): the struct_ops
 * bbr3_pre610 carries that form (the branch's BBR reads only the rate
 * sample and the socket, not the ACK's flags), and the loader registers
 * the one the running kernel takes.
 */
#include "tcp_ca_common.h"
#include "bbr3_logic.h"

char _license[] SEC("license") = "GPL";

#define TCP_ECN_OK 1

/* Set before load. */
const volatile __u32 bbr3_ecn_max_rtt_us = B3_ECN_MAX_RTT_US;

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct bbr3);
} bbr3_state SEC(".maps");

/* The socket's side of struct bbr3_in. */
static __always_inline void bbr3_in_of(struct sock *sk, struct bbr3_in *in)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 wstamp = tp->tcp_wstamp_ns, clock = tp->tcp_clock_cache;

	in->now_us = tp->tcp_mstamp;
	in->delivered_mstamp = tp->delivered_mstamp;
	in->edt_ahead_us = wstamp > clock ? (wstamp - clock) / 1000 : 0;
	in->pacing_rate = sk->sk_pacing_rate;
	in->max_pacing_rate = sk->sk_max_pacing_rate;
	in->delivered = tp->delivered;
	in->delivered_ce = tp->delivered_ce;
	in->lost = tp->lost;
	in->cwnd = tp->snd_cwnd;
	in->cwnd_clamp = tp->snd_cwnd_clamp;
	in->prior_cwnd = tp->prior_cwnd;
	in->inflight = tcp_packets_in_flight(tp);
	in->srtt_us = tp->srtt_us >> 3;
	in->tcp_min_rtt_us = tp->rtt_min.s[0].v;
	in->mss = tp->mss_cache;
	in->pacing_shift = sk->sk_pacing_shift;
	in->min_tso_segs = 2; /* net.ipv4.tcp_min_tso_segs' default */
	in->rand = bpf_get_prandom_u32();
	in->ecn_max_rtt_us = bbr3_ecn_max_rtt_us;
	in->ca_state = inet_csk(sk)->icsk_ca_state;
	in->cwnd_limited = BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited);
	in->ecn_ok = !!(tp->ecn_flags & TCP_ECN_OK);
	in->app_limited = tp->app_limited != 0;
}

/*
 * write_app_limited: whether this program may write tp->app_limited (its
 * PROBE_RTT mark). Kernels before 6.10, which call the _pre610 struct_ops,
 * include some (6.1) whose verifier refuses that write ("no write support
 * to tcp_sock"); there the mark is left out: PROBE_RTT's low-rate samples
 * then count as ordinary ones, which the max bandwidth filter ignores but
 * the round's delivery figures (bw_lo's floor) see.
 */
static __always_inline void bbr3_apply(struct sock *sk, const struct bbr3_out *out,
				       int write_app_limited)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 rate = out->pacing_rate;

	sk->sk_pacing_rate = rate < sk->sk_max_pacing_rate ? rate : sk->sk_max_pacing_rate;
	tcp_set_cwnd(tp, out->cwnd);
	if (out->ssthresh)
		tp->snd_ssthresh = out->ssthresh;
	if (write_app_limited && out->app_limited)
		tp->app_limited = out->app_limited;
}

static __always_inline void bbr3_ack(struct sock *sk, const struct rate_sample *rs,
				     int write_app_limited)
{
	struct bbr3 *b = bpf_sk_storage_get(&bbr3_state, sk, 0, 0);
	struct bbr3_out out;
	struct bbr3_in in;

	if (!b)
		return;
	bbr3_in_of(sk, &in);
	in.rs_interval_us = rs->interval_us;
	in.rs_rtt_us = rs->rtt_us;
	in.rs_delivered = rs->delivered;
	in.rs_losses = rs->losses;
	in.rs_prior_delivered = rs->prior_delivered;
	in.rs_acked_sacked = rs->acked_sacked;
	in.rs_prior_in_flight = rs->prior_in_flight;
	in.rs_is_app_limited = rs->is_app_limited;
	in.rs_is_ack_delayed = rs->is_ack_delayed;
	b3_on_ack(b, &in, &out);
	bbr3_apply(sk, &out, write_app_limited);
}

static __always_inline void bbr3_tx_start(struct sock *sk)
{
	struct bbr3 *b = bpf_sk_storage_get(&bbr3_state, sk, 0, 0);
	struct bbr3_out out;
	struct bbr3_in in;

	if (!b)
		return;
	__builtin_memset(&in, 0, sizeof(in));
	bbr3_in_of(sk, &in);
	b3_on_tx_start(b, &in, &out);
	bbr3_apply(sk, &out, 0);
}

SEC("struct_ops")
void BPF_PROG(bbr3_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr3_out out;
	struct bbr3_in in;
	struct bbr3 *b;

	b = bpf_sk_storage_get(&bbr3_state, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!b)
		return; /* no memory: the socket keeps its initial window, unpaced */
	__builtin_memset(&in, 0, sizeof(in));
	bbr3_in_of(sk, &in);
	b3_start(b, &in, &out);
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	sk->sk_pacing_rate = out.pacing_rate < sk->sk_max_pacing_rate ? out.pacing_rate : sk->sk_max_pacing_rate;
}

SEC("struct_ops")
void BPF_PROG(bbr3_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	bbr3_ack(sk, rs, 1);
}

SEC("struct_ops")
void BPF_PROG(bbr3_cong_control_pre610, struct sock *sk, const struct rate_sample *rs)
{
	bbr3_ack(sk, rs, 0);
}

SEC("struct_ops")
void BPF_PROG(bbr3_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	if (event == CA_EVENT_TX_START)
		bbr3_tx_start(sk);
}

SEC("struct_ops")
void BPF_PROG(bbr3_cwnd_event_tx_start, struct sock *sk)
{
	bbr3_tx_start(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(bbr3_ssthresh, struct sock *sk)
{
	struct bbr3 *b = bpf_sk_storage_get(&bbr3_state, sk, 0, 0);

	if (b)
		b3_on_ssthresh(b, tcp_sk(sk)->snd_cwnd);
	return tcp_sk(sk)->snd_ssthresh;
}

SEC("struct_ops")
__u32 BPF_PROG(bbr3_undo_cwnd, struct sock *sk)
{
	struct bbr3 *b = bpf_sk_storage_get(&bbr3_state, sk, 0, 0);
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;

	/* Read here: clang would otherwise share one load between the two
	 * pointers, which the verifier refuses. */
	asm volatile("" : "+r"(cwnd));
	if (b)
		cwnd = b3_on_undo(b);
	return cwnd;
}

SEC("struct_ops")
void BPF_PROG(bbr3_set_state, struct sock *sk, __u8 new_state)
{
	struct bbr3 *b = bpf_sk_storage_get(&bbr3_state, sk, 0, 0);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd;

	if (!b)
		return;
	cwnd = b3_on_state(b, new_state, tp->snd_cwnd);
	if (cwnd != tp->snd_cwnd)
		tcp_set_cwnd(tp, cwnd);
}

SEC("struct_ops")
__u32 BPF_PROG(bbr3_min_tso_segs, struct sock *sk)
{
	return b3_min_tso_segs(sk->sk_pacing_rate);
}

SEC("struct_ops")
__u32 BPF_PROG(bbr3_sndbuf_expand, struct sock *sk)
{
	return 3;
}

SEC(".struct_ops.link")
struct tcp_congestion_ops___c2tcp bbr3 = {
	.init = (void *)bbr3_init,
	.cong_control = (void *)bbr3_cong_control,
	.cwnd_event = (void *)bbr3_cwnd_event,
	.cwnd_event_tx_start = (void *)bbr3_cwnd_event_tx_start,
	.ssthresh = (void *)bbr3_ssthresh,
	.undo_cwnd = (void *)bbr3_undo_cwnd,
	.set_state = (void *)bbr3_set_state,
	.min_tso_segs = (void *)bbr3_min_tso_segs,
	.sndbuf_expand = (void *)bbr3_sndbuf_expand,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "bbr3",
};

SEC(".struct_ops.link")
struct tcp_congestion_ops___c2tcp bbr3_pre610 = {
	.init = (void *)bbr3_init,
	.cong_control = (void *)bbr3_cong_control_pre610,
	.cwnd_event = (void *)bbr3_cwnd_event,
	.cwnd_event_tx_start = (void *)bbr3_cwnd_event_tx_start,
	.ssthresh = (void *)bbr3_ssthresh,
	.undo_cwnd = (void *)bbr3_undo_cwnd,
	.set_state = (void *)bbr3_set_state,
	.min_tso_segs = (void *)bbr3_min_tso_segs,
	.sndbuf_expand = (void *)bbr3_sndbuf_expand,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "bbr3",
};
