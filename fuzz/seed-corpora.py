#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Seeds fuzz/corpus/<target>/ from the repository's real files (docs/fuzzing.md).

    fuzz/seed-corpora.py [--run RUN_DIR ...] [--reports DIR]
    fuzz/seed-corpora.py --trace-slices DIR

Scenarios, scheme and claims files, and the docs' examples come from the
repository. Slices of the real traces are other projects' data, so they are
never committed: `--trace-slices DIR` writes them into DIR (the fuzz pass's
own output corpus under target/, from the traces `make traces` brought). --run names run directories of a real `c2tcp run`/`bench`
(their run.json, metrics.json, job.json, the CSVs and the head of each log);
--reports a directory of the UDP endpoints' JSON reports
(`sprout-send.json`, `sprout-recv.json`, `verus-*.json`, `webrtc-*.json`,
as `c2tcp sprout-send --stats`, `webrtc-gcc send -stats`... write them).
Datagrams are built here, field by field, as the crates' writers lay them
out. Files are named by content (SHA-1), so seeding twice adds nothing; the
corpora the fuzzer grows are minimised with `cargo fuzz cmin` before
committing. Also writes fuzz/dict/*.dict, the TOML and JSON keys the real
files use.
"""
import argparse
import gzip
import hashlib
import hmac
import json
import pathlib
import re
import struct

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
DICT = ROOT / "fuzz" / "dict"
# The key fuzz_targets/netassist_wire.rs authenticates with.
NETASSIST_KEY = b"c2tcp fuzz key, 32 bytes long..!"


def put(target, data, corpus=CORPUS):
    if isinstance(data, str):
        data = data.encode()
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def head(path, lines):
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"\x1f\x8b"):
        data = gzip.decompress(data)
    return b"".join(data.splitlines(keepends=True)[:lines])


def trace_slices(out):
    """The heads of a few real traces (one gzip, one two-member gzip) into
    out/trace; the traces missing (no `make traces`), none."""
    traces = ROOT / "traces"
    names = ["mahimahi/ATT-LTE-driving.down", "mahimahi/TMobile-UMTS-driving.up",
             "mahimahi/Verizon-EVDO-driving.down", "observatory-synthetic/2.64mbps-poisson.trace"]
    for name in names:
        if (traces / name).is_file():
            put("trace", head(traces / name, 300), out)
    orange = traces / "orange/orange-4G-traces-A-up.pps.gz"
    if orange.is_file():
        text = head(orange, 300)
        put("trace", gzip.compress(text, mtime=0), out)
        # `cat a.gz b.gz`: two members, one trace
        put("trace", gzip.compress(text[:600], mtime=0) + gzip.compress(text[600:1200], mtime=0), out)


def udpflow(magic, version, kind, length, session):
    return magic + struct.pack(">BBHI", version, kind, length, session)


def sprout():
    out = []
    # data: time_to_next_ms, flags (1 heartbeat, 2 payload), seq, throwaway, pkt_no, send time
    for flags, payload in [(0, b""), (1, b""), (2, bytes(range(20)) * 3)]:
        n = 48 + (len(payload) if flags == 2 else 100)
        body = struct.pack(">HHQQQQ", 20, flags, 9000, 1500, 7, 123456789)
        pad = payload if flags == 2 else bytes(n - 48)
        out.append(udpflow(b"SPRT", 2, 1, n, 77) + body + pad)
    counts = [1500 * i for i in range(1, 9)]
    n = 36 + 8 * len(counts)
    out.append(udpflow(b"SPRT", 2, 2, n, 77) + struct.pack(">IQQB3x", 42, 10, 15000, len(counts))
               + b"".join(struct.pack(">Q", c) for c in counts))
    out.append(udpflow(b"SPRT", 2, 3, 32, 77) + bytes(4) + struct.pack(">QQ", 100, 150000))
    return out


def verus():
    stamp = struct.pack(">IQI4xQ", 3, 1234, 40, 987654321)
    return [
        udpflow(b"VRUS", 1, 1, 140, 5) + stamp + bytes(100),
        udpflow(b"VRUS", 1, 2, 56, 5) + stamp + struct.pack(">QQ", 150000, 100),
        udpflow(b"VRUS", 1, 3, 32, 5) + bytes(4) + struct.pack(">QQ", 100, 150000),
    ]


def saturator():
    data = udpflow(b"SATR", 1, 1, 1472, 9) + struct.pack(">QQB", 7, 123456, 1)
    return [data + bytes(1472 - len(data)),
            udpflow(b"SATR", 1, 2, 28, 9) + struct.pack(">QQ", 7, 123456)]


def netassist():
    out = []
    for kind, flags in [(1, 0), (2, 0), (1, 2)]:
        out.append(struct.pack(">HBBBBHIIQ4sQIH2x", 0x4E41, 1, kind, flags, 0, 100, 0xC2C2, 12,
                               1_700_000_000_000_000, bytes([100, 64, 0, 2]), 24_000_000, 20_000,
                               2 if kind == 2 else 0))
    body = struct.pack(">HBBBBHIIQ4sQIH2x", 0x4E41, 1, 1, 1, 0, 100, 0xC2C2, 13,
                       1_700_000_000_000_000, bytes([100, 64, 0, 2]), 24_000_000, 20_000, 0)
    out.append(body + hmac.new(NETASSIST_KEY, body, hashlib.sha256).digest())
    return out


def toml_blocks(md):
    return re.findall(r"```toml\n(.*?)```", md.read_text(), re.S)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", action="append", default=[], type=pathlib.Path)
    ap.add_argument("--reports", type=pathlib.Path)
    ap.add_argument("--trace-slices", type=pathlib.Path, metavar="DIR",
                    help="write only the real traces' slices, into DIR/trace")
    a = ap.parse_args()
    if a.trace_slices:
        trace_slices(a.trace_slices)
        return

    for p in sprout():
        put("sprout_wire", p)
    for p in verus():
        put("verus_wire", p)
    for p in saturator():
        put("saturator_wire", p)
    for p in netassist():
        put("netassist_wire", p)

    # Delay traces: mm-file-delay (one column) and intervals; byte 0 picks
    # the resolution (0: 1 ms, 2: 0.5 ms, 3: 10 ms).
    put("delay_trace", b"\x00" + b"".join(b"%d\n" % d for d in [20, 20, 25, 40, 80, 80, 35, 20]))
    put("delay_trace", b"\x03# mm-file-delay, 10 ms a line\n10\n12\n30\n")
    put("delay_trace", b"\x00# START_MS DELAY_MS\n0 20\n5000 80\n10000.5 20.25\n")
    put("delay_trace", b"\x02" + gzip.compress(b"0 10\n100 60000\n", mtime=0))

    # Link specs (emu::LinkSpec): rates, a file, CellReplay's pair.
    for spec in ["constant:12", "constant:100", "constant:0.5", "steps:0:24,10:6,20:0,21:12@30",
                 "steps:0:1000,0.5:10@1", "TMobile-LTE-short.down",
                 "cellreplay:light,constant:12,offsets=lo,idle=5"]:
        put("rate_spec", spec)

    # Throughput logs (synthetic; byte 0 picks: 0 plain, 1 G-NetTrack, 2 every State).
    put("throughput_log", b"\x00# iperf\ntime,mbps\n0,12\n1.0,354.7\n2,0\n3.5,0.5\n")
    gnt = (b"Timestamp,NetworkMode,DL_bitrate,UL_bitrate,State\n"
           b"2020.02.14_13.21.26,5G,63000,20,D\n2020.02.14_13.21.27,5G,2000,4,D\n"
           b"2020.02.14_13.21.27,LTE,0,0,I\n2020.02.14_13.21.30,5G,218000,900,D\n")
    put("throughput_log", b"\x01" + gnt)
    put("throughput_log", b"\x02" + gnt)
    # CellReplay: a light trace (byte 0 even) and size offsets (odd).
    put("cellreplay", b"\x00" + b"0 20 0 1 1 3\n50 22 0 2 4\n100 21 0\n")
    put("cellreplay", b"\x01" + b"100 0.5\n200 1.5\n300 1.0\n1400 2.25\n")

    queues = set()
    for sc in sorted((ROOT / "scenarios").glob("*.toml")):
        text = sc.read_text()
        put("scenario", text)
        queues.update(re.findall(r'"((?:droptail|drophead|codel|pie|fq_codel|abc|infinite)[^"]*)"', text))
    queues.update(["codel:target=5,interval=100,packets=1000", "pie:qdelay_ref=15,max_burst=150,ecn=1",
                   "fq_codel:target=5,interval=100,ecn=1", "codel:ecn=1", "drophead:bytes=150000",
                   "0.01", "ge:p=0.01,r=0.25", "ge:p=0.001,r=0.3,good=0,bad=0.5"])
    for q in sorted(queues):
        put("queue_spec", q)

    for f in sorted((ROOT / "schemes").glob("*.toml")):
        put("scheme_file", f.read_text())
    for block in toml_blocks(ROOT / "docs" / "schemes.md"):
        put("scheme_file", block)
    for f in sorted((ROOT / "claims").glob("*.toml")):
        put("claims", f.read_text())

    for v in ["jsac", "paper", "default", "paper+blind_window", "jsac-shared_growth-ack_interval",
              "50", "0.5", "10000", "variant=paper", "target_ms=50", "alpha=1.5", "2/4", "1/1"]:
        put("values", v)
    put("values", struct.pack("<Id", 2 | 0x1F << 8, 50.0))
    put("values", struct.pack("<Id", 1 | 0x04 << 16, 10000.0))

    for run in a.run:
        for name in ["run.json", "job.json"]:
            if (run / name).exists():
                put({"run.json": "run_json", "job.json": "job"}[name], (run / name).read_bytes())
        if (run / "metrics.json").exists():
            put("metrics_json", b"\x00" + (run / "metrics.json").read_bytes())
        if (run / "timeseries.csv").exists():
            put("metrics_json", b"\x01" + head(run / "timeseries.csv", 40))
        if (run / "delay_cdf.csv").exists():
            put("metrics_json", b"\x02" + (run / "delay_cdf.csv").read_bytes())
        for log in ["downlink.log", "uplink.log"]:
            if (run / log).exists():
                put("emu_log", head(run / log, 400))
    # A plain mm-link log (docs/log-format.md): ms since mm-link's start, no flows.
    put("emu_log", b"# base timestamp: 5000\n# init timestamp: 5000\n"
        b"5001 + 1504\n5001 # 1504\n5002 - 1504 1\n5003 # 1504\n5004 + 1504\n5010 - 1504 6\n")

    if a.reports:
        which = {"sprout": 0, "verus": 1, "webrtc": 2}
        for f in sorted(a.reports.glob("*.json")):
            program, role = f.stem.split("-")[0], f.stem.split("-")[-1]
            put("endpoint_reports", bytes([which[program] | (0x80 if role == "send" else 0)]) + f.read_bytes())

    # Dictionaries: the keys and words the real files use.
    DICT.mkdir(exist_ok=True)
    keys = set()
    for f in list((ROOT / "scenarios").glob("*.toml")) + list((ROOT / "schemes").glob("*.toml")) \
            + list((ROOT / "claims").glob("*.toml")):
        text = f.read_text()
        keys.update(re.findall(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=", text, re.M))
        keys.update(re.findall(r"^\s*\[\[?([A-Za-z_.]+)\]\]?", text, re.M))
    for block in toml_blocks(ROOT / "docs" / "schemes.md"):
        keys.update(re.findall(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=", block, re.M))
    words = sorted(keys) + ["[", "[[", "]]", " = ", "true", "false", "\"\"", "inf", "nan", "1e400",
                            "-0", "0x10", "{ }", "[ ]"]
    (DICT / "toml.dict").write_text("".join('"%s"\n' % w.replace("\\", "\\\\").replace('"', '\\"')
                                            for w in words))
    jkeys = set()

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                jkeys.add(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    for target in ["run_json", "job", "metrics_json", "endpoint_reports"]:
        for f in (CORPUS / target).glob("*") if (CORPUS / target).exists() else []:
            raw = f.read_bytes()
            for cand in (raw, raw[1:]):
                try:
                    walk(json.loads(cand))
                    break
                except ValueError:
                    pass
    jwords = ['"%s"' % k for k in sorted(jkeys)] + ["null", "true", "false", "{}", "[]", "1e400",
                                                    "-1", "18446744073709551616"]
    (DICT / "json.dict").write_text("".join('"%s"\n' % w.replace("\\", "\\\\").replace('"', '\\"')
                                            for w in jwords))


if __name__ == "__main__":
    main()
