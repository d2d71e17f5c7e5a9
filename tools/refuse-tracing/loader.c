// SPDX-License-Identifier: GPL-2.0-only
/* refuse-tracing OBJ: loads and attaches refuse_tracing.bpf.o (the BPF LSM
 * program beside this file), prints "refuse-tracing: attached" and holds
 * the link until SIGTERM or SIGINT, then prints how many program loads it
 * refused. Nothing is pinned, so the guest's bpffs stays as c2tcp leaves it.
 * Built statically (libbpf, libelf, zlib) into the kernel matrix's guests. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s refuse_tracing.bpf.o\n", argv[0]);
		return 2;
	}
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "refuse-tracing: opening %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	int err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "refuse-tracing: loading: %s\n", strerror(-err));
		return 1;
	}
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, "refuse_tracing");
	struct bpf_link *link = prog ? bpf_program__attach_lsm(prog) : NULL;
	if (!link) {
		fprintf(stderr, "refuse-tracing: attaching to lsm/bpf: %s (is `bpf` in the kernel's lsm= list?)\n",
			strerror(errno));
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("refuse-tracing: attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	/* The global `refused` lives in the object's .bss map. */
	struct bpf_map *bss = bpf_object__find_map_by_name(obj, ".bss");
	unsigned long long refused = 0;
	int zero = 0;
	if (bss)
		bpf_map_lookup_elem(bpf_map__fd(bss), &zero, &refused);
	printf("refuse-tracing: refused %llu tracing program load(s)\n", refused);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return 0;
}
