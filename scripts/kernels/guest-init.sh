#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# PID 1 of a kernel-matrix guest (docs/kernel-matrix.md), busybox sh. The host
# (scripts/kernels/matrix.py) built this initramfs around one Debian kernel's
# files, the built c2tcp and its tests; /matrix/config says what to run.
#
# It records, never judges: every check's outcome goes to the second serial
# port (/dev/ttyS1, a file on the host) as one line
#     CHECK <name>\t<ok|fail|skip>\t<seconds>\t<detail on one line>
# and whole files as base64 between "FILE <name>" and "EOF <name>". The host
# decides what had to pass (scripts/kernels/expectations.py). The console
# (ttyS0) gets the same lines and every command's output, for reading.
/bin/busybox --install -s /usr/bin
export PATH=/usr/local/bin:/usr/bin:/usr/sbin
export HOME=/root TMPDIR=/tmp LC_ALL=C.UTF-8 RUST_BACKTRACE=0

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# Nothing here reads the console: a command that would is given nothing.
exec </dev/null
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts
# /tmp and /run stay the initramfs's own directories, on its RAM filesystem
# (the kernel's rootfs, writable): a tmpfs mounted over them would hide what
# the host put there, the binaries and data at the paths they were built at,
# which are under /tmp when the checkout is (matrix.py, build_initramfs).
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t bpf bpf /sys/fs/bpf
mount -t securityfs securityfs /sys/kernel/security
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ip link set lo up
. /matrix/config

OUT=/dev/ttyS1
# One line, tabs and newlines flattened, at most 1500 characters.
oneline() { tr '\t\n' '  ' | sed 's/  */ /g; s/^ //; s/ $//' | cut -c1-1500; }
check() { # name status seconds detail
	printf 'CHECK %s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(printf '%s' "$4" | oneline)" | tee -a $OUT
}
send_file() { # name path
	[ -f "$2" ] || return 0
	{ echo "FILE $1"; base64 "$2"; echo "EOF $1"; } >>$OUT
}
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# run NAME TIMEOUT_S CMD...: runs CMD, its output in /tmp/out/NAME, and
# records ok/fail with the output's last lines as the detail.
mkdir -p /tmp/out
run() {
	name=$1 limit=$2; shift 2
	t0=$(now)
	timeout "$limit" "$@" >/tmp/out/"$name" 2>&1
	rc=$?
	cat /tmp/out/"$name"
	[ $rc = 143 ] && echo "timed out after ${limit} s" >>/tmp/out/"$name"
	if [ $rc = 0 ]; then st=ok; else st=fail; fi
	check "$name" $st "$(since "$t0")" "exit $rc: $(tail -n 12 /tmp/out/"$name")"
	return $rc
}

echo "MATRIX $MATRIX_ID $(uname -r)" >>$OUT
check boot ok "$(now)" "$(uname -r); lsm: $(cat /sys/kernel/security/lsm); cpus: $(nproc)"

# The kernel's own modules, as a Debian system would load them on demand.
t0=$(now)
if modprobe -a $MODULES >/tmp/out/modules 2>&1; then st=ok; else st=fail; fi
check modules $st "$(since "$t0")" "$MODULES: $(cat /tmp/out/modules) loaded: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
KERNEL_CCS=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)

# A host whose kernel refuses tracing programs (EPERM before the verifier).
LSM_PID=
if [ "$REFUSE_TRACING" = 1 ]; then
	t0=$(now)
	/matrix/refuse-tracing /matrix/refuse_tracing.bpf.o >/tmp/out/lsm 2>&1 &
	LSM_PID=$!
	for _ in $(seq 50); do grep -q attached /tmp/out/lsm && break; sleep 0.2; done
	if grep -q attached /tmp/out/lsm; then st=ok; else st=fail; fi
	check refuse-tracing $st "$(since "$t0")" "$(cat /tmp/out/lsm)"
fi

# doctor, as text and as JSON; its own words (stdout) apart from libbpf's
# log (stderr), so the host judges what doctor itself says.
t0=$(now)
timeout 300 c2tcp doctor >/tmp/doctor.txt 2>/tmp/doctor.err
rc=$?
cat /tmp/doctor.txt /tmp/doctor.err
if [ $rc = 0 ]; then st=ok; else st=fail; fi
check doctor $st "$(since "$t0")" "exit $rc: $(grep -v '^PASS' /tmp/doctor.txt | tail -n 8)"
send_file doctor.txt /tmp/doctor.txt
send_file doctor.err /tmp/doctor.err
t0=$(now)
timeout 300 c2tcp doctor --json >/tmp/doctor.json 2>/tmp/out/doctor-json-err
rc=$?
if [ $rc = 0 ]; then st=ok; else st=fail; fi
check doctor-json $st "$(since "$t0")" "exit $rc $(cat /tmp/out/doctor-json-err)"
send_file doctor.json /tmp/doctor.json

# Every congestion control, one at a time: loaded, then unloaded.
for cc in $CCS; do
	if run "load:$cc" 300 c2tcp load "$cc"; then
		timeout 120 c2tcp unload "$cc" >/tmp/out/unload-"$cc" 2>&1 ||
			check "unload:$cc" fail 0 "$(cat /tmp/out/unload-"$cc")"
	else
		# A failed load must leave nothing: no pin, no registration.
		left="$(find /sys/fs/bpf -mindepth 1 | tr '\n' ' ')$(grep -ow "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control)"
		if [ -z "$left" ]; then st=ok; else st=fail; fi
		check "leftovers:$cc" $st 0 "after the failed load: ${left:-nothing}"
		[ -n "$left" ] && c2tcp unload "$cc" >/dev/null 2>&1
	fi
done

# The project's own tests of the socket option, cgroup Targets and `top`,
# built on the host, at the paths cargo baked into them.
for t in $TESTS; do
	bin=${t%%:*} name=${t#*:}
	t0=$(now)
	timeout 600 "$bin" --exact "$name" --test-threads=1 --nocapture >/tmp/out/test 2>&1
	rc=$?
	cat /tmp/out/test
	# A test that did not run whole (it says `skipped NAME: why`, e.g. what
	# it needs was registered before it: testkit::Registrations) is a skip.
	if [ $rc = 0 ] && grep -q '1 passed' /tmp/out/test && ! grep -q "^skipped $name:" /tmp/out/test; then st=ok
	elif [ $rc = 0 ]; then st=skip
	else st=fail; fi
	check "test:$name" $st "$(since "$t0")" "exit $rc: $(grep -E -A8 'panicked|skipped|^test ' /tmp/out/test | grep -v '^note:' | head -n 14)"
done

# C2TCP at work: one c2tcp flow (Target set) through the emulator over a
# slow constant link with a deep droptail buffer, so the only queue is its
# own; tcpinfo.csv holds C2TCP_INFO sampled through SOL_C2TCP. `top`
# lists the connection while it runs.
t0=$(now)
c2tcp run --scheme c2tcp --target "$RUN_TARGET_MS" --downlink "constant:$RUN_MBPS" \
	--uplink "constant:$RUN_MBPS" --delay 10 --queue "droptail:packets=$RUN_QUEUE_PACKETS" \
	--duration "$RUN_SECONDS" --out /tmp/run -q >/tmp/out/run 2>&1 &
RUN_PID=$!
# top once the flow is sending: up to RUN_SECONDS for a row to appear.
TOP_ROWS=0
for _ in $(seq "$RUN_SECONDS"); do
	sleep 1
	kill -0 $RUN_PID 2>/dev/null || break
	timeout 60 c2tcp top --once --json >/tmp/top.json 2>/tmp/out/top-err
	TOP_RC=$?
	TOP_ROWS=$(grep -o '"cc":"c2tcp"' /tmp/top.json | wc -l)
	[ "$TOP_ROWS" -gt 0 ] && break
done
timeout 60 c2tcp top --once >/tmp/out/top 2>&1
if [ "$TOP_ROWS" -gt 0 ]; then st=ok; else st=fail; fi
check top $st "$(since "$t0")" "exit ${TOP_RC:-none}, $TOP_ROWS c2tcp row(s) while the run sent: $(cat /tmp/top.json /tmp/out/top-err | head -c 600) | table: $(head -n 3 /tmp/out/top)"
send_file top.json /tmp/top.json
wait $RUN_PID
rc=$?
cat /tmp/out/run
# Did C2TCP back off (bad_events > 0 in its C2TCP_INFO, sampled into
# tcpinfo.csv)? backoff CHECK-NAME RUN-DIR EXIT-STATUS
backoff() {
	csv=$2/tcpinfo.csv
	if [ "$3" = 0 ] && [ -f $csv ]; then
		# Columns by name: C2TCP_INFO's bad_events and alpha, the RTTs.
		summary=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
			{ n++; b = $col["c2tcp_bad_events"]; if (b + 0 > bad) bad = b + 0
			  s += $col["srtt_ms"]; a = $col["c2tcp_alpha"]; sp = $col["c2tcp_setpoint_ms"]; m = $col["min_rtt_ms"] }
			END { printf "%d samples, bad_events %d, mean srtt %.1f ms, min rtt %s ms, last alpha %s, setpoint %s ms", n, bad, n ? s / n : 0, m, a, sp }' $csv)
		bad=$(echo "$summary" | sed -n 's/.*bad_events \([0-9]*\).*/\1/p')
		if [ "${bad:-0}" -gt 0 ]; then st=ok; else st=fail; fi
		check "$1" $st "$(since "$t0")" "$summary"
	else
		check "$1" fail "$(since "$t0")" "c2tcp run exit $3: $(tail -n 12 /tmp/out/run)"
	fi
}
backoff backoff /tmp/run $rc
[ -f /tmp/run/tcpinfo.csv ] && send_file tcpinfo.csv /tmp/run/tcpinfo.csv

# The same run with issue 44's drain variant: it backs off at its Target too.
t0=$(now)
c2tcp run --scheme c2tcp --set variant=drain --target "$RUN_TARGET_MS" --downlink "constant:$RUN_MBPS" \
	--uplink "constant:$RUN_MBPS" --delay 10 --queue "droptail:packets=$RUN_QUEUE_PACKETS" \
	--duration "$RUN_SECONDS" --out /tmp/run-drain -q >/tmp/out/run 2>&1
rc=$?
cat /tmp/out/run
backoff backoff:drain /tmp/run-drain $rc

# A bench of Cubic, BBR and C2TCP (make demo's, shortened): on a host that
# refuses tracing programs it must still run all three and report.
if [ "$BENCH" = 1 ]; then
	t0=$(now)
	mkdir -p /tmp/demo
	c2tcp trace synth --seed 7 --mean 8 --duration 30 --output /tmp/demo/synthetic-lte.down >/dev/null 2>&1
	cat >/tmp/demo/demo.toml <<-TOML
	name = "demo"
	description = "make demo, shortened for the kernel matrix"
	[link]
	downlink = "/tmp/demo/synthetic-lte.down"
	uplink = "constant:48"
	delay_ms = 10
	queue = "droptail:packets=100"
	duration_s = $BENCH_SECONDS
	warmup_s = 1
	[[flows]]
	scheme = "c2tcp"
	target_ms = 50
	TOML
	timeout 900 c2tcp bench /tmp/demo/demo.toml --schemes cubic,bbr,c2tcp --jobs 1 --out /tmp/demo/bench >/tmp/out/bench 2>&1
	rc=$?
	cat /tmp/out/bench
	runs=""
	for s in cubic bbr c2tcp; do
		# runs/<trace>/<scheme>/<params>/rep<N>/run.json (docs/results-layout.md)
		f=$(find /tmp/demo/bench -path "*/$s/*" -name run.json 2>/dev/null | head -n 1)
		if [ -z "$f" ]; then runs="$runs $s:none"
		else runs="$runs $s:$(sed -n 's/^ *"status": *"\([a-z]*\)".*/\1/p' "$f" | head -n 1)"; fi
	done
	st=ok
	case "$rc:$runs" in 0:*) ;; *) st=fail ;; esac
	case "$runs" in *none* | *failed* | *interrupted*) st=fail ;; esac
	check bench $st "$(since "$t0")" "exit $rc; runs:$runs; $(tail -n 8 /tmp/out/bench)"
fi

# Everything loaded, then `unload`: nothing registered, selectable or pinned.
t0=$(now)
c2tcp load >/tmp/out/unload 2>&1
c2tcp unload >>/tmp/out/unload 2>&1
rc=$?
left_ccs=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)
pins=$(find /sys/fs/bpf -mindepth 1 | tr '\n' ' ')
if [ $rc = 0 ] && [ "$left_ccs" = "$KERNEL_CCS" ] && [ -z "$pins" ]; then st=ok; else st=fail; fi
check unload $st "$(since "$t0")" "unload exit $rc; available CCs '$left_ccs' (at boot '$KERNEL_CCS'); pinned: '${pins:-nothing}'; $(tail -n 6 /tmp/out/unload)"

if [ -n "$LSM_PID" ]; then
	kill $LSM_PID && wait $LSM_PID
	check refused-loads ok 0 "$(tail -n 1 /tmp/out/lsm)"
fi
echo "END $(now)" >>$OUT
sync
poweroff -f
