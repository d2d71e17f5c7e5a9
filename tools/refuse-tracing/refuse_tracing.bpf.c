// SPDX-License-Identifier: GPL-2.0-only
/* Test tooling for the kernel matrix (docs/kernel-matrix.md), never loaded by
 * c2tcp itself: a BPF LSM program that makes a guest kernel behave like the
 * virtualised 6.18 hosts this project's CI sometimes runs on, which refuse
 * every BPF_PROG_TYPE_TRACING program (fentry/fexit, tp_btf, iterators) with
 * EPERM before the verifier sees an instruction, and load everything else.
 *
 * How: the `bpf` LSM hook, security_bpf(cmd, attr, size), runs at the top of
 * the bpf() syscall, before any command's own work. For BPF_PROG_LOAD of a
 * tracing program it answers -EPERM, so the caller sees exactly what such a
 * host gives: bpf(BPF_PROG_LOAD) = -1 EPERM, no verifier log. It needs a
 * kernel with CONFIG_BPF_LSM=y booted with `bpf` in its lsm= list. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define EPERM 1

char LICENSE[] SEC("license") = "GPL";

/* Counts the refusals, for the log line the guest prints at the end. */
__u64 refused = 0;

SEC("lsm/bpf")
int BPF_PROG(refuse_tracing, int cmd, union bpf_attr *attr, unsigned int size)
{
	/* prog_type is the first field of BPF_PROG_LOAD's part of the union. */
	if (cmd == BPF_PROG_LOAD && attr->prog_type == BPF_PROG_TYPE_TRACING) {
		__sync_fetch_and_add(&refused, 1);
		return -EPERM;
	}
	return 0;
}
