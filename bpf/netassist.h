/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NATCP, NACubic and TG: the kernel side shared by natcp.bpf.c, nacubic.bpf.c
 * and tg.bpf.c (docs/netassist.md).
 *
 * The server agent (crates/netassist, agent.rs) writes the latest NetAssist
 * feedback of each UE into `na_feedback`, keyed by the UE's IPv4 address. On
 * every ACK, cong_control() looks up the connection's peer there:
 *
 *   fresh feedback (younger than its timeout, default 4 periods):
 *     natcp:   cwnd = eq. 1 with BBR's headroom (netassist_logic.h),
 *              pacing = BL_Bw / beta
 *     nacubic: the kernel's Cubic (through its kfuncs), cwnd capped at
 *              eq. 1, pacing = BL_Bw / beta
 *     tg:      cwnd = BL_Bw x the connection's own SRTT, recomputed on
 *              every ACK, pacing = BL_Bw (tg_logic.h: no beta, no
 *              NetAssist min RTT)
 *   none yet, or stale (section 2.4's fallback timer):
 *     both are plain Cubic, unpaced, until feedback returns.
 *
 * Why cong_control() rather than cong_avoid(): after cong_avoid() the kernel
 * recomputes sk_pacing_rate from cwnd/srtt (tcp_update_pacing_rate), so only
 * a congestion control that implements cong_control() owns the pacing rate.
 * The price is that the kernel then also skips its PRR loss recovery
 * (tcp_cwnd_reduction) and the reset of cwnd to ssthresh at the end of a
 * reduction (tcp_end_cwnd_reduction): both are redone here, PRR with our
 * own prr_delivered counter (the kernel's is not writable from BPF), so the
 * Cubic paths behave as the kernel's Cubic does. In assisted mode NATCP keeps
 * cwnd at eq. 1 through loss recovery too (the network, not the loss, says
 * what the path holds), except that it always lets the first retransmission
 * out; NACubic's cap applies on top of Cubic's own PRR.
 *
 * Pacing needs no fq qdisc: the kernel paces internally when
 * sk_pacing_status is SK_PACING_NEEDED. We set it on entering assisted mode
 * (only if nobody else did, e.g. fq sets SK_PACING_FQ) and clear it again on
 * falling back, so the fallback really is plain Cubic.
 *
 * Kernels before 6.10 call cong_control(sk, rs) without the ACK's sequence
 * number and flags (6.10 added them so that a BPF congestion control can run
 * the kernel's own path, and let it write snd_cwnd_stamp). Each congestion control therefore has a second
 * struct_ops, <cc>_pre610, whose cong_control derives the three flags the
 * Cubic path reads from the socket (na_flags_from_socket) and passes
 * snd_una as the ACK (Cubic's cong_avoid ignores it); the loader registers
 * the one the running kernel takes.
 *
 * State: Cubic's struct bictcp takes the first 60 bytes of icsk_ca_priv;
 * ours lives behind it. What a test or the runner wants to see (mode,
 * fallbacks, resumes, the applied feedback) is mirrored into `na_flows`,
 * keyed by (peer address, peer port), when it changes - at most once per
 * feedback period, never per ACK.
 */
#ifndef NETASSIST_H
#define NETASSIST_H

#include "tcp_ca_common.h"
#include "netassist_logic.h"
#include "tg_logic.h"

/* Which window rule a NetAssist congestion control applies while assisted. */
enum na_flavour {
	NA_NATCP = 0,   /* eq. 1 */
	NA_NACUBIC = 1, /* Cubic capped at eq. 1 */
	NA_TG = 2,      /* guided bandwidth x own SRTT */
};

#define NA_CUBIC_PRIV 64 /* Cubic's 60 bytes, rounded up to 8 */

#define FLAG_DATA_ACKED 0x04
#define FLAG_SYN_ACKED 0x10
#define FLAG_DATA_SACKED 0x20
#define FLAG_SND_UNA_ADVANCED 0x400
#define FLAG_FORWARD_PROGRESS (FLAG_DATA_ACKED | FLAG_SYN_ACKED | FLAG_DATA_SACKED)

/* Written by the agent; layout shared with bpfload::netassist::Feedback. */
struct na_feedback {
	__u64 bw_Bps;     /* bottleneck bandwidth, bytes/s of IP packets */
	__u64 updated_us; /* CLOCK_MONOTONIC us when the agent accepted it */
	__u32 min_rtt_us;
	__u32 beta;       /* the UE's flows, >= 1 */
	__u32 seq;        /* NetAssist's sequence number */
	__u32 timeout_us; /* fallback timer */
	__u32 alpha_pct;  /* eq. 1's alpha, percent */
	__u32 flags;      /* NA_FB_* (netassist_logic.h) */
};

struct na_flow_key {
	__u32 daddr; /* network order, as skc_daddr */
	__u16 dport; /* network order, as skc_dport */
	__u16 pad;
};

/* Read by bpfload::netassist::FlowState. */
struct na_flow_state {
	__u64 pacing_rate; /* payload bytes/s in force (0 in Cubic modes) */
	__u64 bw_Bps;
	__u64 changed_us;  /* tcp_mstamp of this record */
	__u32 mode;        /* enum na_mode */
	__u32 fallbacks;
	__u32 resumes;
	__u32 seq;
	__u32 target_cwnd;
	__u32 cwnd;
	__u32 min_rtt_us;
	__u32 beta;
};

struct na_sk {
	__u64 pacing_rate; /* assisted mode's rate, set with target (per feedback, not per ACK) */
	__u32 prr_delivered;
	__u32 seq;
	__u32 target;
	__u32 fallbacks;
	__u32 resumes;
	__u32 prior_snd_una; /* the pre-6.10 form's flags: snd_una at the last ACK */
	__u8 mode;
	__u8 own_pacing;
	__u8 applied; /* seq/target valid */
	__u8 pad;
};

struct na_priv {
	__u8 cubic[NA_CUBIC_PRIV];
	struct na_sk na;
};
_Static_assert(sizeof(struct na_priv) <= 104, "icsk_ca_priv is 104 bytes");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct na_feedback);
} na_feedback SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct na_flow_key);
	__type(value, struct na_flow_state);
} na_flows SEC(".maps");

static __always_inline struct na_sk *na_sk(const struct sock *sk)
{
	return &((struct na_priv *)inet_csk_ca(sk))->na;
}

static __always_inline bool na_in_reduction(__u8 ca_state)
{
	return ((1 << TCP_CA_CWR) | (1 << TCP_CA_Recovery)) & (1 << ca_state);
}

/* The bytes one full segment takes on the wire (IPv4). */
static __always_inline __u32 na_wire(const struct tcp_sock *tp)
{
	return tp->mss_cache + tp->tcp_header_len + NA_IPV4_HDR;
}

/* Whether struct_ops programs may write snd_cwnd_stamp: since 6.10, with
 * cong_control's new arguments; set by the loader. Before, the stamp stays
 * the kernel's, which only cwnd validation after idle reads, and the kernel
 * skips that for congestion controls with their own cong_control. */
const volatile bool na_writes_cwnd_stamp = true;

static __always_inline void na_stamp_cwnd(struct tcp_sock *tp)
{
	if (na_writes_cwnd_stamp)
		tp->snd_cwnd_stamp = (__u32)bpf_jiffies64();
}

static __always_inline void na_export(struct sock *sk, const struct na_sk *s, const struct na_feedback *fb)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct na_flow_key key = {
		.daddr = sk->__sk_common.skc_daddr,
		.dport = sk->__sk_common.skc_dport,
	};
	struct na_flow_state st = {
		.pacing_rate = s->mode == NA_MODE_ASSISTED ? sk->sk_pacing_rate : 0,
		.changed_us = tp->tcp_mstamp,
		.mode = s->mode,
		.fallbacks = s->fallbacks,
		.resumes = s->resumes,
		.seq = s->seq,
		.target_cwnd = s->target,
		.cwnd = tp->snd_cwnd,
	};

	if (fb) {
		st.bw_Bps = fb->bw_Bps;
		st.min_rtt_us = fb->min_rtt_us;
		st.beta = fb->beta;
	}
	bpf_map_update_elem(&na_flows, &key, &st, BPF_ANY);
}

/* ---- the kernel's Cubic path, as tcp_cong_control() runs it ---- */

static __always_inline bool na_may_raise_cwnd(const struct sock *sk, int flag)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	int limit = sk->__sk_common.skc_net.net->ipv4.sysctl_tcp_reordering;

	if (tp->reordering > limit)
		return flag & FLAG_FORWARD_PROGRESS;
	return flag & FLAG_DATA_ACKED;
}

static __always_inline void na_cwnd_reduction(struct sock *sk, struct na_sk *s, int newly_acked_sacked,
					      int newly_lost, int flag)
{
	struct tcp_sock *tp = tcp_sk(sk);
	int sndcnt;

	if (newly_acked_sacked <= 0 || !tp->prior_cwnd)
		return;
	s->prr_delivered += newly_acked_sacked;
	sndcnt = na_prr_sndcnt(tp->snd_ssthresh, tcp_packets_in_flight(tp), s->prr_delivered, tp->prr_out,
			       tp->prior_cwnd, newly_acked_sacked, newly_lost, flag & FLAG_SND_UNA_ADVANCED);
	tcp_set_cwnd(tp, tcp_packets_in_flight(tp) + sndcnt);
}

static __always_inline void na_cubic(struct sock *sk, struct na_sk *s, __u32 ack, int flag,
				     const struct rate_sample *rs)
{
	if (na_in_reduction(inet_csk(sk)->icsk_ca_state)) {
		na_cwnd_reduction(sk, s, rs->acked_sacked, rs->losses, flag);
	} else if (na_may_raise_cwnd(sk, flag)) {
		cubictcp_cong_avoid(sk, ack, rs->acked_sacked);
		na_stamp_cwnd(tcp_sk(sk));
	}
}

/* The flags tcp_ack() passes to cong_control() since 6.10, as far as the
 * Cubic path reads them, for kernels that pass none: the ACK advanced
 * snd_una (FLAG_SND_UNA_ADVANCED, and FLAG_DATA_ACKED: after the handshake
 * every advance acknowledges data), or delivered something, SACKed included
 * (FLAG_FORWARD_PROGRESS). */
static __always_inline int na_flags_from_socket(const struct tcp_sock *tp, struct na_sk *s,
						const struct rate_sample *rs)
{
	int flag = 0;

	if (tp->snd_una != s->prior_snd_una)
		flag |= FLAG_SND_UNA_ADVANCED | FLAG_DATA_ACKED;
	if (rs->acked_sacked > 0)
		flag |= FLAG_DATA_SACKED;
	s->prior_snd_una = tp->snd_una;
	return flag;
}

static __always_inline void na_kernel_pacing(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct net *net = sk->__sk_common.skc_net.net;
	__u64 rate = na_kernel_pacing_rate(tp->mss_cache, tp->snd_cwnd, tp->packets_out, tp->snd_ssthresh,
					   tp->srtt_us, net->ipv4.sysctl_tcp_pacing_ss_ratio,
					   net->ipv4.sysctl_tcp_pacing_ca_ratio);

	sk->sk_pacing_rate = rate < sk->sk_max_pacing_rate ? rate : sk->sk_max_pacing_rate;
}

/* ---- mode changes ---- */

static __always_inline void na_enter_assisted(struct sock *sk, struct na_sk *s)
{
	if (s->mode == NA_MODE_FALLBACK)
		s->resumes++;
	s->mode = NA_MODE_ASSISTED;
	if (sk->sk_pacing_status == SK_PACING_NONE) {
		sk->sk_pacing_status = SK_PACING_NEEDED;
		s->own_pacing = 1;
	}
}

/* Cubic takes over at the last assisted window, in congestion avoidance,
 * with a fresh epoch (its old one is from before the assisted stretch). */
static __always_inline void na_enter_fallback(struct sock *sk, struct na_sk *s)
{
	struct tcp_sock *tp = tcp_sk(sk);

	s->mode = NA_MODE_FALLBACK;
	s->fallbacks++;
	if (s->own_pacing) {
		sk->sk_pacing_status = SK_PACING_NONE;
		s->own_pacing = 0;
	}
	cubictcp_state(sk, TCP_CA_Loss); /* only resets Cubic's own state */
	if (!na_in_reduction(inet_csk(sk)->icsk_ca_state))
		tp->snd_ssthresh = tp->snd_cwnd > 2 ? tp->snd_cwnd : 2;
}

/* ---- the hooks ---- */

static __always_inline void na_init(struct sock *sk)
{
	struct na_sk *s = na_sk(sk);

	cubictcp_init(sk);
	s->pacing_rate = 0;
	s->prr_delivered = 0;
	s->seq = 0;
	s->target = 0;
	s->fallbacks = 0;
	s->resumes = 0;
	s->mode = NA_MODE_WAITING;
	s->own_pacing = 0;
	s->applied = 0;
	s->prior_snd_una = tcp_sk(sk)->snd_una;
	na_export(sk, s, 0); /* a clean record: the peer's address and port may be reused */
}

static __always_inline void na_set_state(struct sock *sk, __u8 new_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct na_sk *s = na_sk(sk);
	__u8 old = inet_csk(sk)->icsk_ca_state;

	if (!na_in_reduction(old) && na_in_reduction(new_state)) {
		s->prr_delivered = 0; /* tcp_init_cwnd_reduction() zeroed the kernel's */
	} else if (na_in_reduction(old) && !na_in_reduction(new_state) && new_state != TCP_CA_Loss) {
		/* tcp_end_cwnd_reduction(), which the kernel skips for us. */
		if (tp->snd_ssthresh < TCP_INFINITE_SSTHRESH && (old == TCP_CA_CWR || tp->undo_marker)) {
			tcp_set_cwnd(tp, tp->snd_ssthresh);
			na_stamp_cwnd(tp);
		}
	}
	cubictcp_state(sk, new_state);
}

static __always_inline void na_cong_control(struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs,
					    enum na_flavour flavour)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct na_sk *s = na_sk(sk);
	__u32 key = sk->__sk_common.skc_daddr;
	struct na_feedback *fb = bpf_map_lookup_elem(&na_feedback, &key);
	__u8 was = s->mode;
	bool fresh = fb && na_fresh(fb->updated_us, fb->timeout_us, tp->tcp_mstamp);
	bool changed = false;
	bool cap_cubic = flavour == NA_NACUBIC;

	/* TG needs the sender's own RTT estimate; before the first sample it is Cubic. */
	if (flavour == NA_TG && !tg_srtt_us(tp->srtt_us))
		fresh = false;

	if (fresh) {
		if (was != NA_MODE_ASSISTED)
			na_enter_assisted(sk, s);
		if (!s->applied || s->seq != fb->seq || was != NA_MODE_ASSISTED) {
			s->seq = fb->seq;
			s->applied = 1;
			if (flavour == NA_TG) {
				s->pacing_rate = tg_pacing_rate(fb->bw_Bps, tp->mss_cache, na_wire(tp));
			} else {
				s->pacing_rate = na_pacing_rate(fb->bw_Bps, fb->beta, tp->mss_cache, na_wire(tp));
				s->target = flavour == NA_NATCP
						    ? na_natcp_cwnd(fb->bw_Bps, fb->min_rtt_us, fb->alpha_pct,
								    fb->beta, na_wire(tp), tp->mss_cache,
								    s->pacing_rate, fb->flags)
						    : na_target_cwnd(fb->bw_Bps, fb->min_rtt_us, fb->alpha_pct,
								     fb->beta, na_wire(tp));
			}
			changed = true;
		}
		/* TG's RTT is the connection's, which moves with every ACK. */
		if (flavour == NA_TG)
			s->target = tg_target_cwnd(fb->bw_Bps, tg_srtt_us(tp->srtt_us), na_wire(tp));
	} else if (was == NA_MODE_ASSISTED) {
		na_enter_fallback(sk, s);
		changed = true;
	}

	if (s->mode == NA_MODE_ASSISTED && !cap_cubic) {
		__u32 cwnd = s->target;

		/* NATCP's assumed delay cap (netassist_logic.h): eq. 1 alone while
		 * the latest RTT sample (RACK's) is above NetAssist's minimum RTT. */
		if (flavour == NA_NATCP && fb && (fb->flags & NA_FB_MAX_DELAY))
			cwnd = na_natcp_delay_capped(cwnd,
						     na_target_cwnd(fb->bw_Bps, fb->min_rtt_us, fb->alpha_pct,
								    fb->beta, na_wire(tp)),
						     tp->rack.rtt_us, fb->min_rtt_us);

		/* Let the first retransmission of a recovery out. */
		if (na_in_reduction(inet_csk(sk)->icsk_ca_state) && !tp->prr_out &&
		    cwnd < tcp_packets_in_flight(tp) + 1)
			cwnd = tcp_packets_in_flight(tp) + 1;
		tcp_set_cwnd(tp, cwnd);
		na_stamp_cwnd(tp);
	} else {
		na_cubic(sk, s, ack, flag, rs);
		if (s->mode == NA_MODE_ASSISTED && tp->snd_cwnd > s->target) {
			__u32 floor = tcp_packets_in_flight(tp) + 1;

			if (na_in_reduction(inet_csk(sk)->icsk_ca_state) && !tp->prr_out && s->target < floor)
				tcp_set_cwnd(tp, floor);
			else
				tcp_set_cwnd(tp, s->target);
		}
	}

	if (s->mode == NA_MODE_ASSISTED) {
		__u64 rate = s->pacing_rate;

		sk->sk_pacing_rate = rate < sk->sk_max_pacing_rate ? rate : sk->sk_max_pacing_rate;
	} else {
		na_kernel_pacing(sk);
	}
	if (changed)
		na_export(sk, s, fb);
}

/*
 * One congestion control: the BPF programs (named <cc>_<hook>, as
 * `c2tcp status` expects) and its struct_ops; flavour is an enum na_flavour.
 */
#define NA_DEFINE_CC(cc, flavour)                                                                    \
	SEC("struct_ops")                                                                              \
	void BPF_PROG(cc##_init, struct sock *sk)                                                    \
	{                                                                                              \
		na_init(sk);                                                                           \
	}                                                                                              \
	SEC("struct_ops")                                                                              \
	void BPF_PROG(cc##_cong_control, struct sock *sk, __u32 ack, int flag,                       \
		      const struct rate_sample *rs)                                                    \
	{                                                                                              \
		na_cong_control(sk, ack, flag, rs, flavour);                                           \
	}                                                                                              \
	SEC("struct_ops")                                                                              \
	void BPF_PROG(cc##_cong_control_pre610, struct sock *sk, const struct rate_sample *rs)       \
	{                                                                                              \
		struct tcp_sock *tp = tcp_sk(sk);                                                      \
		int flag = na_flags_from_socket(tp, na_sk(sk), rs);                                    \
                                                                                                       \
		na_cong_control(sk, tp->snd_una, flag, rs, flavour);                                   \
	}                                                                                              \
	SEC("struct_ops")                                                                              \
	__u32 BPF_PROG(cc##_ssthresh, struct sock *sk)                                               \
	{                                                                                              \
		return cubictcp_recalc_ssthresh(sk);                                                   \
	}                                                                                              \
	SEC("struct_ops")                                                                              \
	void BPF_PROG(cc##_set_state, struct sock *sk, __u8 new_state)                               \
	{                                                                                              \
		na_set_state(sk, new_state);                                                           \
	}                                                                                              \
	SEC("struct_ops")                                                                              \
	void BPF_PROG(cc##_cwnd_event, struct sock *sk, enum tcp_ca_event event)                     \
	{                                                                                              \
		cubictcp_cwnd_event(sk, event);                                                        \
	}                                                                                              \
	SEC("struct_ops")                                                                              \
	void BPF_PROG(cc##_cwnd_event_tx_start, struct sock *sk)                                     \
	{                                                                                              \
		cubictcp_cwnd_event_tx_start(sk);                                                      \
	}                                                                                              \
	SEC("struct_ops")                                                                              \
	void BPF_PROG(cc##_pkts_acked, struct sock *sk, const struct ack_sample *sample)              \
	{                                                                                              \
		cubictcp_acked(sk, sample);                                                            \
	}                                                                                              \
	SEC("struct_ops")                                                                              \
	__u32 BPF_PROG(cc##_undo_cwnd, struct sock *sk)                                              \
	{                                                                                              \
		return tcp_reno_undo_cwnd(sk);                                                         \
	}                                                                                              \
	SEC(".struct_ops.link")                                                                        \
	struct tcp_congestion_ops___c2tcp cc = {                                                     \
		.init = (void *)cc##_init,                                                           \
		.cong_control = (void *)cc##_cong_control,                                           \
		.ssthresh = (void *)cc##_ssthresh,                                                   \
		.set_state = (void *)cc##_set_state,                                                 \
		.cwnd_event = (void *)cc##_cwnd_event,                                               \
		.cwnd_event_tx_start = (void *)cc##_cwnd_event_tx_start,                             \
		.pkts_acked = (void *)cc##_pkts_acked,                                               \
		.undo_cwnd = (void *)cc##_undo_cwnd,                                                 \
		.flags = TCP_CONG_NON_RESTRICTED,                                                      \
		.name = #cc,                                                                         \
	};                                                                                             \
	SEC(".struct_ops.link")                                                                        \
	struct tcp_congestion_ops___c2tcp cc##_pre610 = {                                            \
		.init = (void *)cc##_init,                                                           \
		.cong_control = (void *)cc##_cong_control_pre610,                                    \
		.ssthresh = (void *)cc##_ssthresh,                                                   \
		.set_state = (void *)cc##_set_state,                                                 \
		.cwnd_event = (void *)cc##_cwnd_event,                                               \
		.cwnd_event_tx_start = (void *)cc##_cwnd_event_tx_start,                             \
		.pkts_acked = (void *)cc##_pkts_acked,                                               \
		.undo_cwnd = (void *)cc##_undo_cwnd,                                                 \
		.flags = TCP_CONG_NON_RESTRICTED,                                                      \
		.name = #cc,                                                                         \
	}

#endif /* NETASSIST_H */
