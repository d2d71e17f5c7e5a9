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
# DEBIAN_FRONTEND=noninteractive).
DEB_PACKAGES := clang-19 llvm-19 bpftool libelf-dev zlib1g-dev pkg-config make gcc \
                iproute2 iputils-ping iperf3 fonts-dejavu-core python3 python3-venv tshark

# The Ray driver (python/c2tcp_ray) is tested in a virtualenv under target/,
# made once and kept (Ray is ~80 MB): rebuilt only when its pyproject changes.
PY ?= python3
RAY_VENV := target/ray-venv

.PHONY: all deps build test test-logic test-rust test-python demo bench bench-emulator install uninstall clean

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

test-rust:
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

test: build test-logic test-rust test-python

demo: build
	./scripts/demo.sh

bench: build
	./scripts/bench.sh

bench-emulator: build
	./scripts/bench-emulator.sh

# Installs exactly: bin/c2tcp, bin/webrtc-gcc, include/c2tcp.h, share/c2tcp/{scenarios,schemes,claims,traces};
# `make uninstall` removes exactly that.
install: build $(WEBRTC_GCC)
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
