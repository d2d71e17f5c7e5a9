# SPDX-License-Identifier: GPL-2.0-only
# c2tcp - the two set-up commands of the README are `make demo` and `make test`;
# both install what they need first (`make deps`).
SHELL := /bin/bash
CARGO ?= cargo
BIN ?= target/release/c2tcp
# The webrtc-gcc scheme's endpoints (tools/webrtc-gcc, Go, pion's GCC): built
# beside the c2tcp binary, where the runner looks for it. Its modules come
# from the Go module proxy at the versions go.sum pins.
GO ?= go
WEBRTC_GCC := $(dir $(BIN))webrtc-gcc
# `make install`: PREFIX and DESTDIR as usual. The binary finds its traces and
# scenarios in $(PREFIX)/share/c2tcp (relative to itself, so DESTDIR works too).
PREFIX ?= /usr/local
DATADIR := $(DESTDIR)$(PREFIX)/share/c2tcp

# Debian packages: clang/llvm build the BPF programs, bpftool dumps the kernel's
# BTF into vmlinux.h, libelf/zlib link libbpf, iproute2/iputils/iperf3 drive
# and probe the test hosts; fonts-dejavu-core is the font the report's plots read;
# python3-venv makes the Ray driver's test environment (`make test-python`);
# tshark reads the emulator's pcapng captures back in its test (its debconf
# question, whether non-root users may capture, takes the default "no" under
# DEBIAN_FRONTEND=noninteractive); the kernel matrix (`make test-kernels`,
# docs/kernel-matrix.md) boots Debian's kernels in qemu-system-x86 with an
# initramfs of busybox-static (cpio and kmod's depmod lay it out) and builds
# its tracing-refusing LSM's loader with libbpf-dev.
DEB_PACKAGES := clang-19 llvm-19 bpftool libelf-dev zlib1g-dev pkg-config make gcc \
                iproute2 iputils-ping iperf3 fonts-dejavu-core python3 python3-venv tshark \
                qemu-system-x86 busybox-static cpio kmod libbpf-dev

# The Ray driver (python/c2tcp_ray) is tested in a virtualenv under target/,
# made once and kept (Ray is ~80 MB): rebuilt only when its pyproject changes.
PY ?= python3
RAY_VENV := target/ray-venv

# The traces (traces/README.md) are other projects' data, not in git:
# `make traces` copies them from TRACES_FROM (default ../shared/traces where
# it exists) or downloads them from their sources at the manifest's commits,
# every file checked against traces/MANIFEST.tsv's git blob SHA-1
# (scripts/traces.py). C2TCP_TRACES, where the tools read traces at run
# time, is another thing.
TRACES_FROM ?= $(wildcard ../shared/traces)
# The UCC 5G dataset's zip, which `make bench`'s part 5g-bridged re-imports
# with the recorder's restarts bridged (docs/5g.md).
UCC_ZIP ?= $(wildcard ../shared/data/ucc-5g/5G-production-dataset.zip)

.PHONY: all deps traces test-traces fuzz-deps fuzz-pass build test test-logic test-rust test-python test-fuzz test-kernels test-fuzz-and-kernels fuzz demo bench bench-emulator install uninstall clean

all: build

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:" $$missing; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@command -v $(CARGO) >/dev/null || { echo "no cargo: install Rust >= 1.80 with rustup (https://rustup.rs)"; exit 1; }
	@command -v $(GO) >/dev/null || { echo "no go: install Go >= 1.24 (https://go.dev/dl; Debian 12's golang-go is too old)"; exit 1; }
	@$(MAKE) --no-print-directory fuzz-deps

# Fuzzing (docs/fuzzing.md): cargo-fuzz (libFuzzer) on the nightly toolchain,
# one target per parser of outside input in fuzz/fuzz_targets, its own
# workspace so `cargo build --workspace` never builds it. One build serves
# every target: debug assertions on (overflow checks), no sanitizer (the
# parsers are safe Rust; ASan would double the build for nothing they can
# do). `make test` builds them unoptimised (`--dev`: 150 s against 250 s
# for an optimised build on this machine kind, which matters in CI's
# 30 minutes; a 3 s pass needs no speed) and runs each target FUZZ_SHORT seconds from its committed
# corpus (fuzz/corpus/<target>, read only; what it finds goes to
# target/fuzz-corpus/<target>); `make fuzz` FUZZ_SECONDS each.
FUZZ_TARGETS := $(basename $(notdir $(wildcard fuzz/fuzz_targets/*.rs)))
FUZZ_BUILD := --debug-assertions --sanitizer none
FUZZ_SHORT ?= 3
FUZZ_SECONDS ?= 600
FUZZ_PROFILE ?= release
FUZZ_TOML := scenario scheme_file claims
FUZZ_JSON := job run_json metrics_json endpoint_reports

# cargo-fuzz from crates.io, when missing (`make deps` calls this). A failed
# install stops CI; elsewhere it only means the fuzz pass is skipped.
fuzz-deps:
	@command -v cargo-fuzz >/dev/null || { echo "installing cargo-fuzz (crates.io)"; \
	  $(CARGO) install cargo-fuzz --locked || { [ "$$CI" != true ] && echo "cargo-fuzz not installed: make test will skip the fuzz targets"; }; }

FUZZ_TRIPLE = $(shell rustc +nightly -vV 2>/dev/null | sed -n 's/^host: //p')

# With CI=true a missing nightly toolchain or cargo-fuzz fails; elsewhere
# the fuzz pass is skipped with the reason.
test-fuzz:
	@if ! $(CARGO) +nightly --version >/dev/null 2>&1; then reason="no nightly toolchain (rustup toolchain install nightly)"; \
	elif ! command -v cargo-fuzz >/dev/null; then reason="no cargo-fuzz (make fuzz-deps)"; fi; \
	if [ -n "$$reason" ]; then \
	  if [ "$$CI" = true ]; then echo "CI: cannot run the fuzz targets: $$reason"; exit 1; fi; \
	  echo "skipping the fuzz targets: $$reason"; exit 0; fi; \
	$(CARGO) +nightly fuzz build --dev --sanitizer none && $(MAKE) --no-print-directory fuzz-pass FUZZ_PASS_SECONDS=$(FUZZ_SHORT) FUZZ_PROFILE=debug

# Long runs: `make fuzz FUZZ_SECONDS=3600`, one target: `make fuzz FUZZ_TARGETS=trace`.
fuzz: fuzz-deps
	$(CARGO) +nightly fuzz build $(FUZZ_BUILD)
	@$(MAKE) --no-print-directory fuzz-pass FUZZ_PASS_SECONDS=$(FUZZ_SECONDS) FUZZ_PROFILE=release

# Each target runs as libFuzzer's own binary (no cargo in between) from a
# fresh output corpus under target/ (for `trace`, seeded with slices of the
# real traces, which are not committed) and the committed one, read only, with
# the TOML or JSON keys the real files use. A crash, a panic, an input over
# -timeout seconds or -rss_limit_mb fails it, its reproducer left in
# fuzz/artifacts/<target>/ and the log's tail shown.
fuzz-pass: traces
	@for t in $(FUZZ_TARGETS); do \
	  dict=; case " $(FUZZ_TOML) " in *" $$t "*) dict=-dict=fuzz/dict/toml.dict;; esac; \
	  case " $(FUZZ_JSON) " in *" $$t "*) dict=-dict=fuzz/dict/json.dict;; esac; \
	  mkdir -p target/fuzz-corpus/$$t fuzz/artifacts/$$t; log=target/fuzz-corpus/$$t.log; \
	  [ $$t != trace ] || $(PY) fuzz/seed-corpora.py --trace-slices target/fuzz-corpus; \
	  printf '%-18s ' $$t; \
	  fuzz/target/$(FUZZ_TRIPLE)/$(FUZZ_PROFILE)/$$t target/fuzz-corpus/$$t fuzz/corpus/$$t $$dict \
	    -max_total_time=$(FUZZ_PASS_SECONDS) -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=fuzz/artifacts/$$t/ >$$log 2>&1 \
	    || { echo; tail -40 $$log; echo "fuzz target $$t failed: its input is in fuzz/artifacts/$$t/"; exit 1; }; \
	  sed -n 's/^stat::number_of_executed_units: *//p' $$log | tr -d '\n'; echo " executions in $(FUZZ_PASS_SECONDS) s"; \
	done

traces:
	@$(PY) scripts/traces.py --from "$(TRACES_FROM)" --bin $(BIN)

# scripts/traces.py's download path against a fixture served on loopback,
# every link and repository path in README.md, DESIGN.md and docs/
# (scripts/tests/test_doc_links.py), scripts/copa-bbr3-table.py's counting
# on a synthetic merged report (scripts/tests/test_copa_bbr3_table.py), and
# scripts/sprout-table.py's rows on a synthetic bench (test_sprout_table.py).
test-traces:
	$(PY) -m unittest discover -s scripts/tests -p 'test_*.py'

build: deps $(WEBRTC_GCC)
	$(CARGO) build --release --workspace

$(WEBRTC_GCC): tools/webrtc-gcc/go.mod tools/webrtc-gcc/go.sum $(wildcard tools/webrtc-gcc/*.go)
	@mkdir -p $(dir $@)
	cd tools/webrtc-gcc && $(GO) build -trimpath -buildvcs=false -o $(abspath $@) .

# Host unit tests of the decision logic the BPF programs compile (bpf/*_logic.h).
LOGIC_TESTS := $(patsubst bpf/tests/%.c,target/logic/%,$(wildcard bpf/tests/*_test.c))

target/logic/%: bpf/tests/%.c bpf/*.h bpf/tests/*.h include/c2tcp.h
	@mkdir -p target/logic
	cc -O2 -Wall -Wextra -Werror $(LOGIC_SAN) -o $@ $< -lm

# C2TCP's property test (random ACK/RTT sequences) runs under UBSan: a signed
# overflow, bad shift or division by zero in c2tcp_logic.h aborts it.
target/logic/c2tcp_logic_prop_test: LOGIC_SAN := -fsanitize=undefined -fno-sanitize-recover=all

test-logic: $(LOGIC_TESTS)
	@for t in $(LOGIC_TESTS); do ./$$t || exit 1; done

test-rust: traces
	$(CARGO) test --release --workspace --no-fail-fast -- --test-threads=2

$(RAY_VENV)/.installed: python/c2tcp_ray/pyproject.toml
	rm -rf $(RAY_VENV)
	$(PY) -m venv $(RAY_VENV)
	$(RAY_VENV)/bin/pip install -q --upgrade pip
	$(RAY_VENV)/bin/pip install -q './python/c2tcp_ray[test]'
	touch $@

# The driver's end-to-end test on a local Ray cluster (needs root, like the
# Rust tests that run benches); the package is reinstalled from the tree.
test-python: build $(RAY_VENV)/.installed
	$(RAY_VENV)/bin/pip install -q --no-deps --force-reinstall ./python/c2tcp_ray
	C2TCP_BIN=$(abspath $(BIN)) $(RAY_VENV)/bin/python -m pytest -q python/c2tcp_ray/tests

# The kernel matrix (docs/kernel-matrix.md): the built c2tcp and its tests in
# QEMU guests booting Debian's kernels (6.1, 6.12, the newest in the archive,
# and 6.12 refusing tracing programs). KERNELS= picks some (`make
# test-kernels KERNELS="6.1 newest"`), KERNEL_JOBS= how many guests at once.
# Kernels are downloaded once into target/kernels/debs; results in
# target/kernels/results/matrix.json. Skips where QEMU or the archive is
# missing, fails there with CI=true.
KERNELS ?=
KERNEL_JOBS ?= 2
# The LSM that makes a guest refuse tracing programs is built with the
# clang the BPF build uses (crates/bpfload/build.rs's order).
CLANG ?= $(shell for c in clang-19 clang-18 clang-17 clang-16 clang; do command -v $$c >/dev/null && { echo $$c; break; }; done)
REFUSE_TRACING := target/kernels/tools/refuse-tracing target/kernels/tools/refuse_tracing.bpf.o

target/kernels/tools/refuse_tracing.bpf.o: tools/refuse-tracing/refuse_tracing.bpf.c
	@mkdir -p $(dir $@)
	$(CLANG) -target bpf -O2 -g -Wall -Werror -I/usr/include/$(shell gcc -print-multiarch) -c $< -o $@

target/kernels/tools/refuse-tracing: tools/refuse-tracing/loader.c
	@mkdir -p $(dir $@)
	cc -O2 -Wall -Wextra -Werror -static -o $@ $< -lbpf -lelf -lz

test-kernels: build $(REFUSE_TRACING)
	KERNELS="$(KERNELS)" KERNEL_JOBS=$(KERNEL_JOBS) $(PY) scripts/kernels/matrix.py

test: build traces test-traces test-logic test-rust test-python test-fuzz-and-kernels

# The tests check behaviour at cellular rates, not speed: `make test` builds
# without cross-crate LTO, which otherwise re-optimises every crate at each of
# the ~60 test binaries' links (about half of CI's build time). The binary
# `make build`, `demo`, `bench` and `install` make keeps Cargo.toml's thin LTO.
test: export CARGO_PROFILE_RELEASE_LTO := false

# The fuzz pass (one core) and the kernel matrix (archive lists, the KVM
# probe, then two TCG guests) overlap, for CI's 30 minutes; the matrix's
# output follows the fuzz targets'.
test-fuzz-and-kernels: build $(REFUSE_TRACING)
	@mkdir -p target; log=target/test-kernels.log; \
	$(MAKE) --no-print-directory test-kernels >$$log 2>&1 & kpid=$$!; \
	$(MAKE) --no-print-directory test-fuzz; frc=$$?; \
	wait $$kpid; krc=$$?; cat $$log; \
	[ $$frc = 0 ] || echo "make test: the fuzz targets failed (above)"; \
	[ $$krc = 0 ] || echo "make test: the kernel matrix failed (above)"; \
	[ $$frc = 0 ] && [ $$krc = 0 ]

demo: build traces
	./scripts/demo.sh

bench: build traces
	UCC_ZIP="$(UCC_ZIP)" ./scripts/bench.sh

bench-emulator: build
	./scripts/bench-emulator.sh

# Installs exactly: bin/c2tcp, bin/webrtc-gcc, include/c2tcp.h, share/c2tcp/{scenarios,schemes,claims,traces};
# `make uninstall` removes exactly that.
install: build traces $(WEBRTC_GCC)
	install -D -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/c2tcp
	install -D -m 755 $(WEBRTC_GCC) $(DESTDIR)$(PREFIX)/bin/webrtc-gcc
	install -D -m 644 include/c2tcp.h $(DESTDIR)$(PREFIX)/include/c2tcp.h
	install -d $(DATADIR)/scenarios
	install -m 644 scenarios/*.toml $(DATADIR)/scenarios/
	install -d $(DATADIR)/claims
	install -m 644 claims/*.toml claims/README.md $(DATADIR)/claims/
	install -d $(DATADIR)/schemes
	install -m 644 schemes/*.toml $(DATADIR)/schemes/
	for d in traces traces/*/; do install -d $(DATADIR)/$$d; done
	for f in traces/README.md traces/MANIFEST.tsv traces/*/*; do install -m 644 $$f $(DATADIR)/$$f; done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/c2tcp $(DESTDIR)$(PREFIX)/bin/webrtc-gcc $(DESTDIR)$(PREFIX)/include/c2tcp.h
	rm -rf $(DATADIR)

clean:
	$(CARGO) clean
