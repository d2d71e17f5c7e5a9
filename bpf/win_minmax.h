/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A windowed minimum or maximum in constant space: Kathleen Nichols'
 * estimator, the one BBR and the kernel's min-RTT filter use. Keeping every
 * sample of a window (as genericCC's deque or mvfst's filter do) needs
 * memory in proportion to the ACK rate; this keeps three.
 *
 * The three samples are the best value of the window and the best of its
 * later parts: s[0] is the best, s[1] the best since s[0], s[2] the best
 * since s[1] (times never decrease from s[0] to s[2]). A new sample that
 * beats s[0], or arrives after the whole window has passed since s[2],
 * replaces all three. Otherwise it replaces the later samples it beats.
 * When s[0] ages past the window, s[1] takes its place (and s[2] s[1]'s),
 * so the answer is never older than the window plus the gap between
 * samples. While one value stays best, the later slots are refreshed a
 * quarter and a half window on, so the runners-up are at most that old
 * when they are promoted. The result is exact when the best sample is the
 * newest and within the window's 3/4 otherwise: an estimate, as the
 * kernel's lib/win_minmax.c documents for the same algorithm.
 *
 * Times are u32 microseconds compared by difference, so a window may be up
 * to 35 minutes long and the clock may wrap. No loop, no division: the
 * same code in BPF and in the host tests (bpf/tests/copa_logic_test.c).
 */
#ifndef WIN_MINMAX_H
#define WIN_MINMAX_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

struct win_sample {
	__u32 t; /* µs */
	__u32 v;
};

struct win_minmax {
	struct win_sample s[3];
};

static __always_inline __u32 win_get(const struct win_minmax *m)
{
	return m->s[0].v;
}

static __always_inline void win_reset(struct win_minmax *m, __u32 t, __u32 v)
{
	m->s[0].t = t;
	m->s[0].v = v;
	m->s[1] = m->s[0];
	m->s[2] = m->s[0];
}

/* Ages the three samples against the window ending at `now`, where the
 * newest sample is `val` (already placed where it belongs). */
static __always_inline __u32 win_age(struct win_minmax *m, __u32 win, __u32 now, __u32 val)
{
	__u32 dt = now - m->s[0].t;

	if (dt > win) {
		/* The best has left the window: promote the runners-up. */
		m->s[0] = m->s[1];
		m->s[1] = m->s[2];
		m->s[2].t = now;
		m->s[2].v = val;
		if (now - m->s[0].t > win) {
			m->s[0] = m->s[1];
			m->s[1] = m->s[2];
		}
	} else if (m->s[1].t == m->s[0].t && dt > win / 4) {
		/* A quarter window on with one value best: a fresh runner-up. */
		m->s[1].t = now;
		m->s[1].v = val;
		m->s[2] = m->s[1];
	} else if (m->s[2].t == m->s[1].t && dt > win / 2) {
		m->s[2].t = now;
		m->s[2].v = val;
	}
	return m->s[0].v;
}

/* The minimum over the last `win` µs, with the sample `val` taken at `now`. */
static __always_inline __u32 win_min(struct win_minmax *m, __u32 win, __u32 now, __u32 val)
{
	if (val <= m->s[0].v || now - m->s[2].t > win) {
		win_reset(m, now, val);
		return val;
	}
	if (val <= m->s[1].v) {
		m->s[1].t = now;
		m->s[1].v = val;
		m->s[2] = m->s[1];
	} else if (val <= m->s[2].v) {
		m->s[2].t = now;
		m->s[2].v = val;
	}
	return win_age(m, win, now, val);
}

/* The maximum over the last `win` µs, likewise. */
static __always_inline __u32 win_max(struct win_minmax *m, __u32 win, __u32 now, __u32 val)
{
	if (val >= m->s[0].v || now - m->s[2].t > win) {
		win_reset(m, now, val);
		return val;
	}
	if (val >= m->s[1].v) {
		m->s[1].t = now;
		m->s[1].v = val;
		m->s[2] = m->s[1];
	} else if (val >= m->s[2].v) {
		m->s[2].t = now;
		m->s[2].v = val;
	}
	return win_age(m, win, now, val);
}

#endif /* WIN_MINMAX_H */
