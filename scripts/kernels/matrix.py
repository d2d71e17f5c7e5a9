#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""`make test-kernels`: the built c2tcp on Debian's kernels, under QEMU.

How it works (docs/kernel-matrix.md has the why):

1. Kernels. A private apt state under target/kernels/apt (its own
   sources.list: bookworm, trixie and sid from deb.debian.org) answers which
   kernel is the newest of each kind: Debian 12's 6.1 (newest ABI), Debian
   13's 6.12 (newest point release), and the newest kernel in the archive.
   `apt-get download` fetches its packages into target/kernels/debs (kept;
   never installed on this machine). Newer Debian kernels are split: the
   `linux-image-R` meta package depends on `linux-binary-R` (the image),
   `linux-modules-R` and `linux-base-R` (the config, under
   /usr/lib/modules/R), which are what we fetch then.
2. Guest root. Each package unpacked as dpkg would (`dpkg-deb -x`), then
   depmod, as its postinst runs it. The guest gets the package's config and
   module metadata where the package puts them, the modules the tests need
   with their dependencies (from modules.dep; Debian's compressed modules
   stay compressed, the kernel decompresses them), Debian's busybox-static,
   iproute2, the built c2tcp and its integration tests at the paths cargo
   baked into them, and their shared libraries: one initramfs (cpio).
3. Boot. qemu-system-x86_64 -kernel (the package's image) -initrd, KVM when
   a probe boot works, else TCG. The guest's /init (guest-init.sh) runs the
   checks and writes one line per check to its second serial port, a file
   here; then it powers off.
4. Verdicts. scripts/kernels/expectations.py says which checks must pass on
   which configuration; a table and target/kernels/results/matrix.json.

Skips (exit 0, the reason printed) where QEMU is missing or the kernels
cannot be downloaded; with CI=true those fail.
"""
import argparse
import base64
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import expectations  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
WORK = REPO / "target" / "kernels"
APT_DIR = WORK / "apt"
DEBS = WORK / "debs"
UNPACKED = WORK / "unpacked"
GUESTS = WORK / "guests"
RESULTS = WORK / "results"
MIRROR = "http://deb.debian.org/debian"
SUITES = ["bookworm", "trixie", "sid"]
# Package lists older than this are refreshed (the archive moves daily).
LISTS_MAX_AGE_S = 24 * 3600

# Modules the checks need, loaded at boot with their dependencies: TUN for
# the emulator, veth for the tests' namespaces, tcp_bbr for the bench's BBR
# (a module on Debian), inet_diag/tcp_diag for `ss` (the emulator's
# teardown), nothing else.
# sch_ingress (clsact) and cls_bpf for the tc program that sets ECT(1) on
# Prague's flows (the l4s test's `c2tcp run`).
MODULES = ["tun", "veth", "tcp_bbr", "inet_diag", "tcp_diag", "sch_ingress", "cls_bpf"]

# The project's integration tests that run inside each guest (test binary ->
# tests): the socket option with its Target read back, a real transfer,
# cgroup Targets, `top`. Not the 200- and 1000-connection ones (minutes
# under TCG, nothing kernel-specific they add).
GUEST_TESTS = {
    "c2tcp_cc": [
        "load_is_idempotent_and_unload_leaves_nothing",
        "socket_option_validates_its_input",
        "unprivileged_programs_can_select_c2tcp",
        "real_transfer_between_namespaces_uses_c2tcp",
        "drain_variant_paces_and_measures_what_the_path_delivers",
    ],
    "cgroup_targets": [
        "cgroup_targets_reach_sockets_and_leave_with_unload",
        "top_shows_a_live_transfer_and_an_empty_list_without_one",
    ],
    # Prague's CE feedback: AccECN where the kernel takes
    # TCP_CONG_NEEDS_ACCECN (newest), classic ECN with the per-packet echo
    # elsewhere (6.1, 6.12); the test says which it found.
    "l4s": [
        "prague_negotiates_accecn_where_the_kernel_has_it_and_counts_each_mark",
    ],
}

# The `c2tcp run` that must show C2TCP backing off: a slow constant link
# (TCG is slow) with a deep droptail buffer, so the only queue is its own.
RUN = {"RUN_MBPS": "4", "RUN_QUEUE_PACKETS": "500", "RUN_TARGET_MS": "40", "RUN_SECONDS": "10"}
BENCH_SECONDS = "8"
GUEST_MEMORY = "2048M"
GUEST_TIMEOUT_S = 600


@dataclass
class Config:
    """One guest configuration of the matrix."""
    id: str
    what: str
    # Picks the kernel: (suite or None for any, regex over linux-image-* names
    # whose group 1 is the release, sort key of a match).
    suite: str | None
    pattern: str
    refuse_tracing: bool = False
    bench: bool = False


def _abi(m):
    return tuple(int(x) for x in re.findall(r"\d+", m.group(1)))


CONFIGS = [
    Config("6.1", "Debian 12 (bookworm), newest ABI", "bookworm",
           r"^linux-image-(6\.1\.0-\d+-amd64)$"),
    Config("6.12", "Debian 13 (trixie), newest 6.12", "trixie",
           r"^linux-image-(6\.12\.\d+\+deb13-amd64)$"),
    Config("newest", "the newest kernel in Debian's archive", None,
           r"^linux-image-(\d+\.\d+(?:\.\d+)?(?:-\d+|\+deb\d+)-amd64)$"),
    Config("no-tracing", "Debian 13's 6.12 refusing tracing programs (a BPF LSM), "
           "like the virtualised 6.18 hosts", "trixie",
           r"^linux-image-(6\.12\.\d+\+deb13-amd64)$", refuse_tracing=True, bench=True),
]


class Skip(Exception):
    """The matrix cannot run here: skip (or, with CI=true, fail)."""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(args, **kw):
    return subprocess.run(args, check=True, text=True, capture_output=True, **kw).stdout


# ---------------------------------------------------------------- kernels

def apt_options():
    return [
        "-o", f"Dir::Etc::sourcelist={APT_DIR / 'sources.list'}",
        "-o", "Dir::Etc::sourceparts=/dev/null",
        "-o", f"Dir::State::Lists={APT_DIR / 'lists'}",
        "-o", "Dir::State::status=/dev/null",
        "-o", f"Dir::Cache={APT_DIR / 'cache'}",
        "-o", "Acquire::Languages=none",
        "-o", "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false",
        "-o", "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false",
        "-o", "Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false",
        "-o", "Acquire::IndexTargets::deb::CNF::DefaultEnabled=false",
    ] + (["-o", "APT::Sandbox::User=root"] if os.geteuid() == 0 else [])


def update_lists():
    """The private apt state's package lists, refreshed when a day old."""
    lists = APT_DIR / "lists"
    for d in (lists / "partial", APT_DIR / "cache" / "archives" / "partial"):
        d.mkdir(parents=True, exist_ok=True)
    (APT_DIR / "sources.list").write_text("".join(
        f"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] {MIRROR} {s} main\n"
        for s in SUITES))
    have = list(lists.glob("*_Packages*"))
    if have and time.time() - min(p.stat().st_mtime for p in have) < LISTS_MAX_AGE_S:
        return
    log(f"apt-get update (private state in {APT_DIR.relative_to(REPO)}: {', '.join(SUITES)})")
    r = subprocess.run(["apt-get", *apt_options(), "update", "-q"], text=True, capture_output=True)
    if r.returncode != 0 or not list(lists.glob("*_Packages*")):
        if have:
            log(f"apt-get update failed, using the lists of {time.ctime(min(p.stat().st_mtime for p in have))}")
            return
        raise Skip("Debian's archive is unreachable (apt-get update: "
                   + (r.stderr.strip().splitlines() or ["?"])[-1] + ")")


def archive_kernels() -> dict:
    """{suite codename: {package: (version, depends)}} of every linux-image,
    -binary, -modules and -base package in the private state's lists, read
    directly (apt-cache would rebuild its cache from them on every call)."""
    targets = sh(["apt-get", *apt_options(), "indextargets",
                  "--format", "$(FILENAME) $(CODENAME)", "Identifier: Packages"])
    out = {}
    for line in targets.splitlines():
        path, codename = line.split()
        pkgs = out.setdefault(codename, {})
        text = sh(["/usr/lib/apt/apt-helper", "cat-file", path])
        for stanza in text.split("\n\n"):
            fields = dict(re.findall(r"^([\w-]+): (.*)$", stanza, re.M))
            name = fields.get("Package", "")
            if re.match(r"linux-(image|binary|modules|base)-", name):
                old = pkgs.get(name)
                if not old or sh_version_gt(fields["Version"], old[0]):
                    pkgs[name] = (fields["Version"], fields.get("Depends", ""))
    return out


def sh_version_gt(a, b):
    return subprocess.run(["dpkg", "--compare-versions", a, "gt", b]).returncode == 0


@dataclass
class Kernel:
    release: str
    image_package: str
    packages: list  # [(name, version, suite)]

    @property
    def versions(self):
        return ", ".join(f"{n} {v} ({s})" for n, v, s in self.packages)


def resolve(config: Config, archive: dict) -> Kernel:
    """The newest kernel of config's kind in the private apt state's lists."""
    found = []
    for suite, pkgs in archive.items():
        if config.suite not in (None, suite):
            continue
        for n in pkgs:
            m = re.match(config.pattern, n)
            if m:
                found.append((_abi(m), m.group(1), n, suite))
    if not found:
        raise Skip(f"no kernel package matching {config.pattern} in "
                   f"{config.suite or 'the archive'}")
    _, release, image, suite = max(found)
    version, depends = archive[suite][image]
    # A meta package (Debian 14 on): its image, modules and base packages.
    parts = []
    for dep in depends.split(", "):
        name = dep.split(" ")[0]
        if name in (f"linux-binary-{release}", f"linux-modules-{release}", f"linux-base-{release}"):
            parts.append(name)
    packages = [(p, archive[suite][p][0], suite) for p in parts] or [(image, version, suite)]
    return Kernel(release, image, packages)


def deb_path(name, version):
    return DEBS / f"{name}_{version.replace(':', '%3a')}_amd64.deb"


def download(kernel: Kernel):
    DEBS.mkdir(parents=True, exist_ok=True)
    want = [f"{n}={v}" for n, v, _ in kernel.packages if not deb_path(n, v).exists()]
    if not want:
        return 0.0
    log(f"downloading {' '.join(want)}")
    t0 = time.monotonic()
    r = subprocess.run(["apt-get", *apt_options(), "download", "-q", *want], cwd=DEBS,
                       text=True, capture_output=True)
    if r.returncode != 0:
        raise Skip(f"cannot download {' '.join(want)}: {r.stderr.strip()[-300:]}")
    return time.monotonic() - t0


_unpack_locks: dict = {}
_unpack_locks_guard = threading.Lock()


def unpack(kernel: Kernel) -> Path:
    """The kernel's packages unpacked as dpkg lays them out, depmod run."""
    root = UNPACKED / kernel.release
    stamp = root / ".unpacked"
    with _unpack_locks_guard:
        lock = _unpack_locks.setdefault(kernel.release, threading.Lock())
    with lock:
        if stamp.exists() and stamp.read_text() == kernel.versions:
            return root
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        for n, v, _ in kernel.packages:
            sh(["dpkg-deb", "-x", str(deb_path(n, v)), str(root)])
        # Debian 12 and later are merged-/usr: /lib is /usr/lib.
        if (root / "lib").is_dir() and not (root / "lib").is_symlink():
            (root / "usr" / "lib").mkdir(parents=True, exist_ok=True)
            for p in (root / "lib").iterdir():
                shutil.move(str(p), str(root / "usr" / "lib" / p.name))
            (root / "lib").rmdir()
        (root / "lib").symlink_to("usr/lib")
        sh(["depmod", "-b", str(root), kernel.release])
        stamp.write_text(kernel.versions)
    return root


def image_of(root: Path, release: str) -> Path:
    for p in (root / "boot" / f"vmlinuz-{release}", root / "usr/lib/modules" / release / "vmlinuz"):
        if p.exists():
            return p
    raise RuntimeError(f"no kernel image for {release} in {root}")


def module_files(root: Path, release: str, wanted) -> list[str]:
    """The modules wanted and their dependencies, paths relative to the
    modules directory, from modules.dep."""
    moddir = root / "usr/lib/modules" / release
    deps = {}
    for line in (moddir / "modules.dep").read_text().splitlines():
        path, _, rest = line.partition(":")
        deps[path] = rest.split()
    by_name = {re.sub(r"\.ko(\.\w+)?$", "", Path(p).name).replace("-", "_"): p for p in deps}
    builtin = (moddir / "modules.builtin").read_text()
    out = []
    for name in wanted:
        if name not in by_name:
            if f"/{name}.ko" in builtin:
                continue  # built in
            raise RuntimeError(f"{release} has no module {name}")
        for p in [by_name[name], *deps[by_name[name]]]:
            if p not in out:
                out.append(p)
    return out


# ---------------------------------------------------------------- guest root

def shared_libs(binary: Path) -> list[Path]:
    out = sh(["ldd", str(binary)])
    if "not a dynamic executable" in out or "statically linked" in out:
        return []
    libs = []
    for line in out.splitlines():
        m = re.search(r"(/\S+) \(0x", line)
        if m:
            libs.append(Path(m.group(1)))
    return libs


def copy_into(root: Path, src: Path, dest: str | None = None):
    """src (followed if a link) at dest (default its own path) in root; a
    path under /lib, /bin or /sbin goes to /usr, as on a merged-/usr system."""
    d = dest or str(src)
    for old in ("/lib64/", "/lib/", "/bin/", "/sbin/"):
        if d.startswith(old):
            d = "/usr" + d
    target = root / d.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(os.path.realpath(src), target)


@dataclass
class GuestFiles:
    """What every guest carries besides its kernel's files."""
    c2tcp: Path
    tests: list  # [(binary path, test name)]
    ccs: list
    tools: dict = field(default_factory=dict)  # name -> path (refuse-tracing, its object)


def build_initramfs(config: Config, kernel: Kernel, kroot: Path, g: GuestFiles) -> Path:
    gdir = GUESTS / config.id
    root = gdir / "root"
    shutil.rmtree(root, ignore_errors=True)
    for d in ("usr/bin", "usr/sbin", "usr/lib", "usr/lib64", "usr/local/bin", "proc", "sys", "dev",
              "tmp", "run", "root", "etc", "matrix", "sys/fs/cgroup", "sys/fs/bpf"):
        (root / d).mkdir(parents=True, exist_ok=True)
    # The guest mounts nothing over /tmp or /run (guest-init.sh), so files at
    # their build paths stay visible wherever the checkout is; /tmp is
    # everyone's, as on a host (a test drops to nobody).
    (root / "tmp").chmod(0o1777)
    for link in ("bin", "sbin", "lib", "lib64"):
        (root / link).symlink_to(f"usr/{link}")
    # The kernel's files where its packages put them: /boot/config-R (up to
    # Debian 13), /usr/lib/modules/R/{config,modules.*} (Debian 14), and
    # the modules the checks load. The image itself is what QEMU boots.
    rel = kernel.release
    if (kroot / "boot" / f"config-{rel}").exists():
        copy_into(root, kroot / "boot" / f"config-{rel}", f"/boot/config-{rel}")
    moddir = kroot / "usr/lib/modules" / rel
    for p in moddir.iterdir():
        if p.is_file() and (p.name.startswith("modules.") or p.name == "config"):
            copy_into(root, p, f"/usr/lib/modules/{rel}/{p.name}")
    for m in module_files(kroot, rel, MODULES):
        copy_into(root, moddir / m, f"/usr/lib/modules/{rel}/{m}")
    # Userland: busybox (Debian's busybox-static), iproute2, c2tcp, its tests.
    copy_into(root, Path("/bin/busybox"), "/usr/bin/busybox")
    (root / "usr/bin/sh").symlink_to("busybox")
    ours = [g.c2tcp] + sorted({b for b, _ in g.tests})
    for b in ours:  # where cargo built them: the tests name c2tcp by that path
        copy_into(root, b)
    binaries = list(ours)
    for tool in ("ip", "ss", "tc"):
        p = shutil.which(tool, path="/usr/sbin:/usr/bin:/sbin:/bin")
        if not p:
            raise Skip(f"no `{tool}` here: install iproute2 (make deps)")
        copy_into(root, Path(p), f"/usr/bin/{tool}")
        binaries.append(Path(p))
    (root / "usr/local/bin/c2tcp").symlink_to(g.c2tcp)
    for lib in sorted({lib for b in binaries for lib in shared_libs(b)}):
        copy_into(root, lib)
    # The repository's data where the binary looks for it (the folder it was
    # built in; the bench needs the `cubic` and `bbr` scheme files).
    for d in ("schemes", "scenarios", "traces"):
        shutil.copytree(REPO / d, root / str(REPO / d).lstrip("/"), dirs_exist_ok=True)
    # The baked path is crates/harness/../..: the kernel walks through it.
    (root / str(REPO / "crates/harness").lstrip("/")).mkdir(parents=True, exist_ok=True)
    font = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    if font.exists():  # the bench's report draws text
        copy_into(root, font)
    for name, path in g.tools.items():
        copy_into(root, path, f"/matrix/{name}")
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n")
    (root / "etc/group").write_text("root:x:0:\nnogroup:x:65534:\n")
    shutil.copy2(Path(__file__).parent / "guest-init.sh", root / "init")
    (root / "init").chmod(0o755)
    conf = {
        "MATRIX_ID": config.id,
        "REFUSE_TRACING": "1" if config.refuse_tracing else "0",
        "BENCH": "1" if config.bench else "0",
        "BENCH_SECONDS": BENCH_SECONDS,
        "MODULES": " ".join(MODULES),
        "CCS": " ".join(g.ccs),
        "TESTS": " ".join(f"{b}:{t}" for b, t in g.tests),
        **RUN,
    }
    (root / "matrix/config").write_text("".join(f"{k}='{v}'\n" for k, v in conf.items()))
    cpio = gdir / "initramfs.cpio"
    files = sh(["find", "."], cwd=root)
    with open(cpio, "wb") as f:
        subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"], cwd=root,
                       input=files.encode(), stdout=f, check=True)
    return cpio


# ---------------------------------------------------------------- QEMU

def qemu_cmd(accel, image, initrd, append, console, results, memory=GUEST_MEMORY):
    return ["qemu-system-x86_64", "-accel", accel, "-cpu", "host" if accel == "kvm" else "max",
            "-smp", "1", "-m", memory, "-kernel", str(image), "-initrd", str(initrd),
            "-append", append, "-display", "none", "-monitor", "none", "-nic", "none",
            "-no-reboot", "-serial", f"file:{console}", "-serial", f"file:{results}"]


def probe_kvm(image: Path) -> tuple[str, str]:
    """('kvm'|'tcg', why): boots a busybox-only initramfs under KVM once."""
    if os.environ.get("KERNEL_ACCEL") in ("kvm", "tcg"):
        return os.environ["KERNEL_ACCEL"], "KERNEL_ACCEL"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg", "no usable /dev/kvm"
    pdir = GUESTS / "kvm-probe"
    shutil.rmtree(pdir, ignore_errors=True)
    (pdir / "root/usr/bin").mkdir(parents=True)
    shutil.copy2("/bin/busybox", pdir / "root/usr/bin/busybox")
    (pdir / "root/init").write_text("#!/usr/bin/busybox sh\n/usr/bin/busybox echo KVM-PROBE-OK >/dev/ttyS1\n"
                                    "/usr/bin/busybox poweroff -f\n")
    (pdir / "root/init").chmod(0o755)
    for d in ("proc", "sys", "dev"):
        (pdir / "root" / d).mkdir()
    with open(pdir / "probe.cpio", "wb") as f:
        subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"], cwd=pdir / "root",
                       input=sh(["find", "."], cwd=pdir / "root").encode(), stdout=f, check=True)
    cmd = qemu_cmd("kvm", image, pdir / "probe.cpio", "console=ttyS0 panic=-1",
                   pdir / "console.log", pdir / "results.log", "256M")
    # A KVM that cannot run the guest says so and hangs: stop at its word.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(p.stdout), daemon=True)
    reader.start()
    deadline = time.monotonic() + 30
    while p.poll() is None and time.monotonic() < deadline \
            and not any("KVM internal error" in ln for ln in lines):
        time.sleep(0.2)
    if p.poll() is None:
        p.kill()
    p.wait()
    reader.join(5)
    out = "".join(lines)
    ok = "KVM-PROBE-OK" in (pdir / "results.log").read_text(errors="replace") \
        if (pdir / "results.log").exists() else False
    if ok:
        return "kvm", "a probe boot under KVM worked"
    first = next((ln for ln in out.splitlines() if ln.strip()), "no output, no boot in 30 s")
    return "tcg", f"KVM probe failed: {first.strip()}"


@dataclass
class GuestResult:
    config: Config
    kernel: Kernel | None = None
    accel: str = ""
    checks: dict = field(default_factory=dict)  # name -> {status, seconds, detail}
    order: list = field(default_factory=list)
    files: dict = field(default_factory=dict)  # name -> bytes
    boot_s: float | None = None
    build_s: float = 0.0
    guest_s: float = 0.0
    download_s: float = 0.0
    error: str | None = None
    verdicts: list = field(default_factory=list)


def parse_results(text: str, r: GuestResult):
    current, buf = None, []
    for line in text.splitlines():
        if current:
            if line == f"EOF {current}":
                try:
                    r.files[current] = base64.b64decode("".join(buf))
                except ValueError:
                    r.files[current] = b""
                current, buf = None, []
            else:
                buf.append(line.strip())
        elif line.startswith("FILE "):
            current = line[5:].strip()
        elif line.startswith("CHECK "):
            parts = line[6:].split("\t", 3) + ["", "", ""]
            name, status, secs, detail = parts[:4]
            r.checks[name] = {"status": status, "seconds": float(secs or 0), "detail": detail}
            if name not in r.order:
                r.order.append(name)


def run_guest(config: Config, kernel: Kernel, kroot: Path, g: GuestFiles, accel: str) -> GuestResult:
    r = GuestResult(config, kernel, accel)
    t0 = time.monotonic()
    initrd = build_initramfs(config, kernel, kroot, g)
    r.build_s = time.monotonic() - t0
    gdir = GUESTS / config.id
    console, results = gdir / "console.log", gdir / "results.log"
    for f in (console, results):
        f.unlink(missing_ok=True)
    cmd = qemu_cmd(accel, image_of(kroot, kernel.release), initrd,
                   "console=ttyS0 panic=-1 loglevel=4", console, results)
    t0 = time.monotonic()
    log(f"[{config.id}] booting {kernel.release} ({accel}, initramfs {initrd.stat().st_size >> 20} MiB)")
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = p.communicate(timeout=GUEST_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        r.error = f"guest still running after {GUEST_TIMEOUT_S} s: killed"
    r.guest_s = time.monotonic() - t0
    (gdir / "qemu.log").write_text(out)
    parse_results(results.read_text(errors="replace") if results.exists() else "", r)
    if "boot" in r.checks:
        r.boot_s = r.checks["boot"]["seconds"]
    elif not r.error:
        r.error = "the guest never reached its init: " + " | ".join(
            (console.read_text(errors="replace") if console.exists() else out).splitlines()[-5:])
    if r.checks and "END" not in (results.read_text(errors="replace") if results.exists() else "") \
            and not r.error:
        r.error = "the guest stopped before its last check (see " + str(console.relative_to(REPO)) + ")"
    log(f"[{config.id}] done in {r.guest_s:.0f} s")
    return r


# ---------------------------------------------------------------- host side

def c2tcp_tests(binary: Path) -> list:
    """(test binary, test name) of GUEST_TESTS, built by cargo (release).
    The whole workspace's tests, as `make test`'s test-rust builds them: a
    narrower build unifies the dependencies' features differently and
    rebuilds (and replaces) target/release/c2tcp."""
    cmd = ["cargo", "test", "--release", "--workspace", "--no-run", "--message-format=json"]
    r = subprocess.run(cmd, cwd=REPO, text=True, capture_output=True)
    if r.returncode != 0:
        raise RuntimeError("building the integration tests failed:\n" + r.stderr[-2000:])
    bins = {}
    for line in r.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") \
                and msg["target"]["name"] in GUEST_TESTS and "test" in msg["target"]["kind"]:
            bins[msg["target"]["name"]] = Path(msg["executable"])
    listed = {}
    for name, b in bins.items():
        out = sh([str(b), "--list", "--format", "terse"])
        listed[name] = {ln.split(":")[0] for ln in out.splitlines() if ln.endswith(": test")}
    tests = []
    for name, wanted in GUEST_TESTS.items():
        for t in wanted:
            if name not in bins or t not in listed[name]:
                raise RuntimeError(f"no test {t} in {name}: update GUEST_TESTS in {__file__}")
            tests.append((bins[name], t))
    return tests


def known_ccs(c2tcp: Path) -> list:
    return [c["name"] for c in json.loads(sh([str(c2tcp), "status", "--json"]))["ccs"]]


def print_table(results: list, accel_why: str):
    ids = [r.config.id for r in results]
    print(f"\nkernel matrix: {results[0].accel.upper() if results else '?'} ({accel_why})")
    for r in results:
        k = r.kernel
        meta = f"{k.image_package} (meta) -> " if k and k.image_package not in k.versions else ""
        print(f"  {r.config.id:<11} {k.release if k else '?':<24} {meta}{k.versions if k else ''}")
        extra = f", refusing tracing programs" if r.config.refuse_tracing else ""
        print(f"  {'':<11} boot {r.boot_s or 0:.1f} s, guest {r.guest_s:.0f} s, initramfs {r.build_s:.0f} s{extra}")
    names = []
    for r in results:
        for v in r.verdicts:
            if v.check not in names:
                names.append(v.check)
    w = max([len(n) for n in names] + [10])
    print(f"\n{'check':<{w}}  " + "  ".join(f"{i:<11}" for i in ids))
    for n in names:
        cells = []
        for r in results:
            v = next((v for v in r.verdicts if v.check == n), None)
            if v is None:
                cells.append("-")
            elif v.status == "ok":
                cells.append("ok")
            elif v.required:
                cells.append("FAIL")
            else:
                cells.append(f"({v.status})")
        print(f"{n:<{w}}  " + "  ".join(f"{c:<11}" for c in cells))
    print("\nok: passed; FAIL: required and failed; (fail)/(skip): recorded, not required "
          "(scripts/kernels/expectations.py)")
    for r in results:
        if r.error:
            print(f"\n{r.config.id}: {r.error}")
        for v in r.verdicts:
            if v.status != "ok":
                mark = "FAIL" if v.required else "note"
                print(f"{r.config.id} {mark} {v.check}: {v.detail[:700]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", default=os.environ.get("KERNELS", ""),
                    help=f"configurations to run, space or comma separated: "
                    f"{', '.join(c.id for c in CONFIGS)} (default: all)")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("KERNEL_JOBS", "2")),
                    help="guests at once (default 2)")
    ap.add_argument("--bin", default=str(REPO / "target/release/c2tcp"))
    ap.add_argument("--refuse-tracing", nargs=2, metavar=("LOADER", "OBJECT"),
                    default=[str(WORK / "tools/refuse-tracing"), str(WORK / "tools/refuse_tracing.bpf.o")])
    args = ap.parse_args()
    wanted = [k for k in re.split(r"[,\s]+", args.kernels) if k] or [c.id for c in CONFIGS]
    unknown = set(wanted) - {c.id for c in CONFIGS}
    if unknown:
        ap.error(f"unknown kernel configuration(s) {', '.join(sorted(unknown))}: "
                 f"choose from {', '.join(c.id for c in CONFIGS)}")
    configs = [c for c in CONFIGS if c.id in wanted]
    ci = os.environ.get("CI") == "true"
    t_all = time.monotonic()
    try:
        if not shutil.which("qemu-system-x86_64"):
            raise Skip("no qemu-system-x86_64 (make deps installs qemu-system-x86)")
        for tool in ("apt-get", "dpkg-deb", "depmod", "cpio", "ldd"):
            if not shutil.which(tool):
                raise Skip(f"no `{tool}` (make deps)")
        c2tcp = Path(args.bin).resolve()
        if not c2tcp.exists():
            raise Skip(f"no {c2tcp}: make build first")
        update_lists()
        archive = archive_kernels()
        kernels, download_s = {}, 0.0
        for c in configs:
            kernels[c.id] = resolve(c, archive)
            download_s += download(kernels[c.id])
    except Skip as e:
        if ci:
            print(f"CI: the kernel matrix cannot run: {e}")
            return 1
        print(f"skipping the kernel matrix: {e}")
        return 0
    log("building the integration tests the guests run")
    g = GuestFiles(c2tcp, c2tcp_tests(c2tcp), known_ccs(c2tcp))
    if any(c.refuse_tracing for c in configs):
        g.tools = {"refuse-tracing": Path(args.refuse_tracing[0]),
                   "refuse_tracing.bpf.o": Path(args.refuse_tracing[1])}
        for p in g.tools.values():
            if not p.exists():
                print(f"no {p}: build it with `make test-kernels` (the Makefile's refuse-tracing rule)")
                return 1
    # Each kernel unpacked once (6.12 serves two guests), the kernels at once:
    # xz and depmod on a fresh clone take ~30 s a kernel.
    unique = {kernels[c.id].release: kernels[c.id] for c in configs}
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(unique)) as pool:
        unpacked = dict(zip(unique, pool.map(unpack, unique.values())))
    roots = {c.id: unpacked[kernels[c.id].release] for c in configs}
    accel, accel_why = probe_kvm(image_of(roots[configs[0].id], kernels[configs[0].id].release))
    log(f"accelerator: {accel} ({accel_why})")
    t_guests = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        # Longest first (the refusing guest also runs a bench), so that two
        # at a time end together.
        order = sorted(configs, key=lambda c: not c.refuse_tracing)
        futures = {c.id: pool.submit(run_guest, c, kernels[c.id], roots[c.id], g, accel) for c in order}
        results = [futures[c.id].result() for c in configs]
    guests_wall = time.monotonic() - t_guests
    failed = False
    RESULTS.mkdir(parents=True, exist_ok=True)
    for r in results:
        r.verdicts = expectations.judge(r.config, r.checks, r.files)
        if r.error:
            r.verdicts.insert(0, expectations.Verdict("guest", "fail", True, "the guest ran to its end", r.error))
        failed |= any(v.failed for v in r.verdicts)
        d = RESULTS / r.config.id
        d.mkdir(exist_ok=True)
        for name, data in r.files.items():
            (d / name).write_bytes(data)
    print_table(results, accel_why)
    total = time.monotonic() - t_all
    doc = {
        "accelerator": accel, "accelerator_why": accel_why, "jobs": args.jobs,
        "wall_s": {"total": round(total, 1), "guests": round(guests_wall, 1), "download": round(download_s, 1)},
        "ok": not failed,
        "guests": [{
            "id": r.config.id, "what": r.config.what, "refuse_tracing": r.config.refuse_tracing,
            "release": r.kernel.release if r.kernel else None,
            "image_package": r.kernel.image_package if r.kernel else None,
            "packages": [{"name": n, "version": v, "suite": s} for n, v, s in (r.kernel.packages if r.kernel else [])],
            "boot_s": r.boot_s, "guest_s": round(r.guest_s, 1), "initramfs_s": round(r.build_s, 1),
            "error": r.error,
            "checks": [{"name": v.check, "status": v.status, "required": v.required, "why": v.why,
                        "seconds": r.checks.get(v.check, {}).get("seconds"), "detail": v.detail}
                       for v in r.verdicts],
        } for r in results],
    }
    (RESULTS / "matrix.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(f"\nwall time: {total:.0f} s in all ({guests_wall:.0f} s of guests, {args.jobs} at once; "
          f"{download_s:.0f} s downloading); per guest: "
          + ", ".join(f"{r.config.id} {r.guest_s:.0f} s" for r in results))
    print(f"results: {(RESULTS / 'matrix.json').relative_to(REPO)}, guest logs: "
          f"{GUESTS.relative_to(REPO)}/<kernel>/console.log")
    if failed:
        print("kernel matrix: FAILED (a required check failed; see above)")
        return 1
    print("kernel matrix: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
