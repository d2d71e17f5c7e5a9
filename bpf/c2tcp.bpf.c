// SPDX-License-Identifier: GPL-2.0
/*
 * c2tcp: Cellular Controlled-Delay TCP as a BPF congestion control.
 *
 * The paper's architecture, literally: an unmodified loss-based TCP plus a
 * window-refining module. The loss-based TCP is the kernel's own Cubic, called
 * through its kfuncs for every hook (init, ssthresh, cong_avoid, set_state,
 * cwnd_event, pkts_acked, undo). The refining module (c2tcp_logic.h) runs in
 * pkts_acked, the only hook that sees an RTT sample, before Cubic's
 * cong_avoid for the same ACK - where the authors' kernel patch calls it, at
 * the end of Cubic's bictcp_acked:
 *
 *   Good   -> paper: cwnd += Setpoint/RTT per RTT (extra to Cubic's growth),
 *             only while cwnd-limited and not recovering a loss;
 *             jsac: Setpoint_ms/rtt_ms into Cubic's snd_cwnd_cnt, every ACK;
 *   Bad    -> ssthresh = Cubic's recalc_ssthresh(), cwnd = 1: an imaginary
 *             drop, handled like a timeout (drain: cwnd = the packets
 *             delivered in the last min RTT, and ssthresh kept while cwnd
 *             is still below it);
 *   Normal -> nothing.
 *
 * The drain variant also asks the kernel to pace the socket (set_pacing).
 *
 * The jsac variant's blind window reads Cubic's own epoch_start from its
 * private state (struct bictcp in icsk_ca_priv, the bytes the cubictcp_*
 * kfuncs use) against the kernel's jiffies, exactly as bictcp_acked does.
 *
 * Per-socket Target, pinned alpha and variant come from the c2tcp socket
 * option (cgroup/setsockopt below) through socket storage, which also holds
 * the state machine (it does not fit the 44 bytes Cubic leaves in
 * icsk_ca_priv). The per-ACK path is one storage lookup and integer
 * arithmetic.
 *
 * A Target per cgroup (`c2tcp target set`): c2tcp_sock_create runs when any
 * process creates a TCP socket, walks the creator's cgroup ancestry from the
 * root down (bpf_get_current_ancestor_cgroup_id, a bounded loop), and copies
 * the deepest cgroup's setting into the new socket's storage, marked as
 * coming from that cgroup. The application's own C2TCP_TARGET overrides it;
 * accepted sockets inherit the listener's storage (BPF_F_CLONE), so a server
 * gets its own cgroup's Target on both open directions. Resolving once, at
 * creation, keeps the per-ACK path unchanged: a later `target set`/`clear`
 * applies to sockets created afterwards.
 *
 * `c2tcp top` reads every socket's storage through c2tcp_connections, an
 * iterator over the storage map (all network namespaces at once). It is the
 * one tracing program here, and optional: where the kernel refuses tracing
 * programs the loader leaves it out and everything else works.
 */
#include "tcp_ca_common.h"
#include "c2tcp_sockopt.h"
#include "c2tcp_top.h"
#include <bpf/bpf_endian.h>

#ifndef AF_INET
#define AF_INET 2
#endif
#ifndef AF_INET6
#define AF_INET6 10
#endif
#ifndef SOCK_STREAM
#define SOCK_STREAM 1
#endif

char _license[] SEC("license") = "GPL";

/* The kernel's HZ (jiffies per second), for Cubic's "1 s after an epoch
 * start". The loader sets it before loading, from the resolution of the
 * kernel's coarse clocks, which tick once a jiffy (crates/bpfload): no
 * kernel config file is needed, wherever a distribution keeps it. */
const volatile __u32 c2tcp_hz = 250;

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC | BPF_F_CLONE);
	__type(key, int);
	__type(value, struct c2tcp_sk);
} c2tcp_sk_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct c2tcp_config);
} c2tcp_config_map SEC(".maps");

/* cgroup id -> struct c2tcp_cgroup_setting, written by `c2tcp target`. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, C2TCP_CGROUP_MAX_ENTRIES);
	__type(key, __u64);
	__type(value, struct c2tcp_cgroup_setting);
} c2tcp_cgroups SEC(".maps");

static __always_inline __u32 resolve_target_us(const struct c2tcp_sk *s)
{
	struct c2tcp_config *cfg;
	__u32 zero = 0;

	if (s->target_us)
		return s->target_us;
	cfg = bpf_map_lookup_elem(&c2tcp_config_map, &zero);
	if (cfg && cfg->default_target_us)
		return cfg->default_target_us;
	return 2 * s->st.min_rtt_us; /* the authors' server default */
}

/* The C2TCP_B_* behaviours for the socket's variant under the load-time default. */
static __always_inline __u32 resolve_behaviours(const struct c2tcp_sk *s)
{
	struct c2tcp_config *cfg;
	__u32 zero = 0;

	cfg = bpf_map_lookup_elem(&c2tcp_config_map, &zero);
	return c2tcp_behaviours(s->variant, cfg ? cfg->default_variant : 0);
}

/* bictcp_acked's "discard delay samples right after fast recovery": true for
 * HZ jiffies after Cubic opened its current epoch. */
static __always_inline int in_cubic_blind_window(const struct sock *sk)
{
	const struct bictcp *ca = inet_csk_ca(sk);
	__u32 epoch_start = ca->epoch_start;
	return epoch_start && (__s32)((__u32)bpf_jiffies64() - epoch_start) < (__s32)c2tcp_hz;
}

/* PACING: the kernel paces the socket itself (tcp_needs_internal_pacing)
 * at its own rate, sk_pacing_rate = cwnd x mss / srtt x 200 % in slow start
 * or 120 % after it (tcp_update_pacing_rate, net.ipv4.tcp_pacing_*_ratio),
 * so no fq qdisc is needed. Turned on when the behaviour is in force and
 * off again only where we turned it on (an fq qdisc's SK_PACING_FQ stays). */
static __always_inline void set_pacing(struct sock *sk, struct c2tcp_sk *s)
{
	if (s->st.behaviours & C2TCP_B_PACING) {
		if (sk->sk_pacing_status == SK_PACING_NONE) {
			sk->sk_pacing_status = SK_PACING_NEEDED;
			s->paced = 1;
		}
	} else if (s->paced) {
		if (sk->sk_pacing_status == SK_PACING_NEEDED)
			sk->sk_pacing_status = SK_PACING_NONE;
		s->paced = 0;
	}
}

/* ---- the congestion control ---- */

SEC("struct_ops")
void BPF_PROG(c2tcp_init, struct sock *sk)
{
	struct c2tcp_sk *s;

	cubictcp_init(sk);
	s = bpf_sk_storage_get(&c2tcp_sk_map, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s)
		return;
	/* Keep the configuration (set before connect, or inherited from the
	 * listener); start the state machine afresh. */
	c2tcp_state_init(&s->st, resolve_behaviours(s));
	s->running = 1;
	set_pacing(sk, s);
}

SEC("struct_ops")
void BPF_PROG(c2tcp_release, struct sock *sk)
{
	struct c2tcp_sk *s = bpf_sk_storage_get(&c2tcp_sk_map, sk, 0, 0);

	if (s) {
		s->running = 0;
		if (s->paced && sk->sk_pacing_status == SK_PACING_NEEDED)
			sk->sk_pacing_status = SK_PACING_NONE; /* the next CC paces if it wants */
		s->paced = 0;
	}
}

SEC("struct_ops")
void BPF_PROG(c2tcp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct c2tcp_sk *s;
	enum c2tcp_action act;
	__s32 rtt_us = sample->rtt_us;
	__u32 alpha_pin;

	cubictcp_acked(sk, sample);
	if (rtt_us <= 0)
		return;
	s = bpf_sk_storage_get(&c2tcp_sk_map, sk, 0, 0);
	if (!s)
		return;

	if (s->st.behaviours & C2TCP_B_BDP_FLOOR)
		c2tcp_track_delivered(&s->st, tp->tcp_mstamp, tp->delivered);
	if (!(s->st.behaviours & C2TCP_B_PACING) != !s->paced)
		set_pacing(sk, s);
	alpha_pin = s->pinned_alpha_pct * 10;
	act = c2tcp_on_rtt(&s->st, tp->tcp_mstamp, (__u32)rtt_us,
			   resolve_target_us(s), alpha_pin,
			   (s->st.behaviours & C2TCP_B_BLIND_WINDOW) && in_cubic_blind_window(sk));

	if (act == C2TCP_ACT_BACKOFF) {
		if (c2tcp_backoff_sets_ssthresh(&s->st, tp->snd_cwnd, tp->snd_ssthresh))
			tp->snd_ssthresh = cubictcp_recalc_ssthresh(sk);
		tp->snd_cwnd = c2tcp_backoff_cwnd(&s->st, tp->snd_cwnd);
		tp->snd_cwnd_cnt = 0;
	} else if (act == C2TCP_ACT_GROW && (s->st.behaviours & C2TCP_B_SHARED_GROWTH)) {
		__u32 cwnd = tp->snd_cwnd, cnt = tp->snd_cwnd_cnt;

		c2tcp_shared_growth(&s->st, (__u32)rtt_us, &cwnd, &cnt, tp->snd_cwnd_clamp);
		tp->snd_cwnd_cnt = cnt;
		tcp_set_cwnd(tp, cwnd);
	} else if (act == C2TCP_ACT_GROW &&
		   inet_csk(sk)->icsk_ca_state == TCP_CA_Open &&
		   tcp_is_cwnd_limited(sk)) {
		__u32 extra = c2tcp_good_growth(&s->st, tp->snd_cwnd,
						sample->pkts_acked, (__u32)rtt_us);
		if (extra)
			tcp_set_cwnd(tp, tp->snd_cwnd + extra);
	}
}

/* The kernel's own cuts (a loss, a timeout). With HOLD_SSTHRESH, one that
 * comes while the window is still climbing back to ssthresh keeps it, as a
 * Bad does: a timeout in an outage, after C2TCP has already cut the window,
 * would otherwise set ssthresh from that cut window (c2tcp_logic.h). */
SEC("struct_ops")
__u32 BPF_PROG(c2tcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct c2tcp_sk *s = bpf_sk_storage_get(&c2tcp_sk_map, sk, 0, 0);

	if (s && s->running &&
	    !c2tcp_backoff_sets_ssthresh(&s->st, tp->snd_cwnd, tp->snd_ssthresh))
		return tp->snd_ssthresh;
	return cubictcp_recalc_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(c2tcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	cubictcp_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(c2tcp_set_state, struct sock *sk, __u8 new_state)
{
	cubictcp_state(sk, new_state);
}

SEC("struct_ops")
void BPF_PROG(c2tcp_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	cubictcp_cwnd_event(sk, event); /* before 7.1 */
}

SEC("struct_ops")
void BPF_PROG(c2tcp_cwnd_event_tx_start, struct sock *sk)
{
	cubictcp_cwnd_event_tx_start(sk); /* 7.1 and later */
}

SEC("struct_ops")
__u32 BPF_PROG(c2tcp_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops___c2tcp c2tcp = {
	.init = (void *)c2tcp_init,
	.release = (void *)c2tcp_release,
	.ssthresh = (void *)c2tcp_ssthresh,
	.cong_avoid = (void *)c2tcp_cong_avoid,
	.set_state = (void *)c2tcp_set_state,
	.cwnd_event = (void *)c2tcp_cwnd_event,
	.cwnd_event_tx_start = (void *)c2tcp_cwnd_event_tx_start,
	.pkts_acked = (void *)c2tcp_pkts_acked,
	.undo_cwnd = (void *)c2tcp_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "c2tcp",
};

/* ---- the socket option ----
 *
 * Two forms of the same program; the loader loads one. With bpf_set_retval
 * (Linux 5.18) a refused value reaches the caller as EINVAL or ENOPROTOOPT;
 * before it, a cgroup/setsockopt program can only reject the call, which the
 * caller sees as EPERM.
 */

static __always_inline int refuse(int err, bool can_set_retval)
{
	if (can_set_retval)
		bpf_set_retval(-err);
	return 0;
}

static __always_inline int read_u32_opt(struct bpf_sockopt *ctx, __u32 *val)
{
	__u8 *p = ctx->optval;

	if (ctx->optlen != sizeof(__u32) || p + sizeof(__u32) > (__u8 *)ctx->optval_end)
		return -EINVAL;
	*val = *(__u32 *)p;
	return 0;
}

static __always_inline int handle_setsockopt(struct bpf_sockopt *ctx, bool can_set_retval)
{
	struct bpf_sock *sk = ctx->sk;
	struct c2tcp_sk *s;
	__u32 val;

	if (ctx->level != SOL_C2TCP)
		return 1; /* not ours: the kernel handles it untouched */
	if (!sk || sk->protocol != IPPROTO_TCP)
		return 1; /* the kernel answers ENOPROTOOPT */
	if (ctx->optname != C2TCP_TARGET && ctx->optname != C2TCP_ALPHA &&
	    ctx->optname != C2TCP_VARIANT)
		return refuse(ENOPROTOOPT, can_set_retval);
	if (read_u32_opt(ctx, &val))
		return refuse(EINVAL, can_set_retval);
	if (ctx->optname == C2TCP_TARGET &&
	    (val < C2TCP_TARGET_MIN_US || val > C2TCP_TARGET_MAX_US))
		return refuse(EINVAL, can_set_retval);
	if (ctx->optname == C2TCP_ALPHA && val != 0 &&
	    (val < C2TCP_ALPHA_MIN_PCT || val > C2TCP_ALPHA_MAX_PCT))
		return refuse(EINVAL, can_set_retval);
	if (ctx->optname == C2TCP_VARIANT && !c2tcp_variant_valid(val))
		return refuse(EINVAL, can_set_retval);

	s = bpf_sk_storage_get(&c2tcp_sk_map, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s)
		return refuse(ENOMEM, can_set_retval);
	if (ctx->optname == C2TCP_TARGET) {
		s->target_us = val;
		s->target_source = C2TCP_SOURCE_SOCKET;
	} else if (ctx->optname == C2TCP_ALPHA) {
		s->pinned_alpha_pct = val;
	} else {
		s->variant = val;
		if (s->running) /* mid-connection: the new behaviours from the next ACK */
			s->st.behaviours = resolve_behaviours(s);
	}
	ctx->optlen = -1; /* handled: skip the kernel's setsockopt */
	return 1;
}

SEC("cgroup/setsockopt")
int c2tcp_setsockopt(struct bpf_sockopt *ctx)
{
	return handle_setsockopt(ctx, true);
}

SEC("cgroup/setsockopt")
int c2tcp_setsockopt_eperm(struct bpf_sockopt *ctx)
{
	return handle_setsockopt(ctx, false);
}

static __always_inline void fill_info(struct c2tcp_info *info, struct c2tcp_sk *s)
{
	struct c2tcp_config *cfg;
	__u32 zero = 0, base = C2TCP_VARIANT_JSAC, default_variant = 0;

	__builtin_memset(info, 0, sizeof(*info));
	info->version = C2TCP_INFO_VERSION;
	cfg = bpf_map_lookup_elem(&c2tcp_config_map, &zero);
	if (cfg)
		default_variant = cfg->default_variant;
	if (default_variant & 0xff)
		base = default_variant & 0xff;
	/* The variant in force, even on a socket that never set an option. */
	info->variant = s ? s->variant : 0;
	info->behaviours = s && s->running ? s->st.behaviours
					    : c2tcp_behaviours(info->variant, default_variant);
	if ((info->variant & 0xff) == C2TCP_VARIANT_DEFAULT)
		info->variant |= base;
	if (!s)
		return;
	info->target_us = resolve_target_us(s);
	info->alpha_pct = s->pinned_alpha_pct ? s->pinned_alpha_pct : s->st.alpha_milli / 10;
	info->min_rtt_us = s->st.min_rtt_us;
	info->setpoint_us = s->st.setpoint_us;
	info->interval_us = s->st.interval_us;
	info->last_avg_rtt_us = s->st.last_avg_rtt_us;
	info->condition = s->st.condition;
	info->bad_events = s->st.bad_events;
	info->tune_cycles = s->st.tune_cycles;
	info->skipped_samples = s->st.skipped_samples;
	info->bdp_pkts = s->st.bdp_pkts;
	info->paced = s->paced;
}

SEC("cgroup/getsockopt")
int c2tcp_getsockopt(struct bpf_sockopt *ctx)
{
	struct bpf_sock *sk = ctx->sk;
	struct c2tcp_sk *s;
	__u8 *p = ctx->optval;
	__u32 *out = (__u32 *)p;

	if (ctx->level != SOL_C2TCP)
		return 1;
	if (!sk || sk->protocol != IPPROTO_TCP)
		return 1;

	s = bpf_sk_storage_get(&c2tcp_sk_map, sk, 0, 0);
	switch (ctx->optname) {
	case C2TCP_INFO: {
		struct c2tcp_info info;

		/* Older readers pass 40 or 52 bytes and get their version's fields. */
		if (ctx->optlen < C2TCP_INFO_V1_SIZE ||
		    p + C2TCP_INFO_V1_SIZE > (__u8 *)ctx->optval_end) {
			ctx->retval = -EINVAL;
			return 1;
		}
		fill_info(&info, s);
		if (ctx->optlen >= (int)sizeof(info) && p + sizeof(info) <= (__u8 *)ctx->optval_end) {
			__builtin_memcpy(p, &info, sizeof(info));
			ctx->optlen = sizeof(info);
		} else if (ctx->optlen >= C2TCP_INFO_V2_SIZE &&
			   p + C2TCP_INFO_V2_SIZE <= (__u8 *)ctx->optval_end) {
			__builtin_memcpy(p, &info, C2TCP_INFO_V2_SIZE);
			ctx->optlen = C2TCP_INFO_V2_SIZE;
		} else {
			__builtin_memcpy(p, &info, C2TCP_INFO_V1_SIZE);
			ctx->optlen = C2TCP_INFO_V1_SIZE;
		}
		break;
	}
	case C2TCP_TARGET:
	case C2TCP_ALPHA:
	case C2TCP_VARIANT:
		if (ctx->optlen < (int)sizeof(__u32) || p + sizeof(__u32) > (__u8 *)ctx->optval_end) {
			ctx->retval = -EINVAL;
			return 1;
		}
		if (ctx->optname == C2TCP_TARGET)
			*out = s ? resolve_target_us(s) : 0;
		else if (ctx->optname == C2TCP_ALPHA)
			*out = s ? s->pinned_alpha_pct : 0;
		else
			*out = s ? s->variant : 0;
		ctx->optlen = sizeof(__u32);
		break;
	default:
		ctx->retval = -ENOPROTOOPT;
		return 1;
	}
	ctx->retval = 0;
	return 1;
}

/* ---- a Target per cgroup ---- */

SEC("cgroup/sock_create")
int c2tcp_sock_create(struct bpf_sock *ctx)
{
	struct c2tcp_cgroup_setting *set, *nearest = 0;
	__u64 nearest_id = 0;
	struct c2tcp_sk *s;
	int level;

	if (ctx->protocol != IPPROTO_TCP || ctx->type != SOCK_STREAM)
		return 1;
	/* From the root down; the deepest setting wins. An ancestor level
	 * beyond the creator's own depth reads as id 0. */
	for (level = 0; level < C2TCP_CGROUP_MAX_DEPTH; level++) {
		__u64 id = bpf_get_current_ancestor_cgroup_id(level);

		if (!id)
			break;
		set = bpf_map_lookup_elem(&c2tcp_cgroups, &id);
		if (set) {
			nearest = set;
			nearest_id = id;
		}
	}
	if (!nearest)
		return 1; /* no storage: the socket stays on the load-time default */
	s = bpf_sk_storage_get(&c2tcp_sk_map, ctx, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s)
		return 1; /* out of memory: the default, but never a refused socket */
	s->target_us = nearest->target_us;
	s->variant = nearest->variant;
	s->target_source = C2TCP_SOURCE_CGROUP;
	s->cgroup_id = nearest_id;
	return 1;
}

/* ---- `c2tcp top`: every socket with c2tcp storage ---- */

SEC("iter/bpf_sk_storage_map")
int c2tcp_connections(struct bpf_iter__bpf_sk_storage_map *ctx)
{
	struct c2tcp_sk *s = ctx->value;
	struct sock *sk = ctx->sk;
	const struct tcp_congestion_ops *ops;
	struct c2tcp_conn_record r;
	struct tcp_sock *tp;

	if (!sk || !s)
		return 0;
	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp)
		return 0; /* a request or timewait socket */

	__builtin_memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.netns_ino = sk->__sk_common.skc_net.net->ns.inum;
	r.family = sk->__sk_common.skc_family;
	r.state = sk->__sk_common.skc_state;
	r.running = s->running;
	r.sport = sk->__sk_common.skc_num;
	r.dport = bpf_ntohs(sk->__sk_common.skc_dport);
	if (r.family == AF_INET6) {
		bpf_probe_read_kernel(r.saddr, 16, &sk->__sk_common.skc_v6_rcv_saddr);
		bpf_probe_read_kernel(r.daddr, 16, &sk->__sk_common.skc_v6_daddr);
	} else {
		bpf_probe_read_kernel(r.saddr, 4, &sk->__sk_common.skc_rcv_saddr);
		bpf_probe_read_kernel(r.daddr, 4, &sk->__sk_common.skc_daddr);
	}
	ops = tp->inet_conn.icsk_ca_ops;
	if (ops)
		bpf_probe_read_kernel_str(r.cc, sizeof(r.cc), ops->name);

	r.cgroup_id = s->cgroup_id;
	r.target_us = resolve_target_us(s);
	r.target_source = s->target_source;
	r.variant = s->variant;
	r.alpha_pct = s->pinned_alpha_pct ? s->pinned_alpha_pct : s->st.alpha_milli / 10;
	r.min_rtt_us = s->st.min_rtt_us;
	r.last_avg_rtt_us = s->st.last_avg_rtt_us;
	r.condition = s->st.condition;
	r.bad_events = s->st.bad_events;
	r.tune_cycles = s->st.tune_cycles;

	r.srtt_us = tp->srtt_us >> 3;
	r.snd_cwnd = tp->snd_cwnd;
	r.mss = tp->mss_cache;
	r.pacing_rate = sk->sk_pacing_rate;
	/* tcp_get_info()'s delivery rate: segments delivered over the interval. */
	if (tp->rate_interval_us)
		r.delivery_rate = (__u64)tp->rate_delivered * tp->mss_cache * USEC_PER_SEC /
				  tp->rate_interval_us;

	bpf_seq_write(ctx->meta->seq, &r, sizeof(r));
	return 0;
}
