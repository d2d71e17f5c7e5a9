# SPDX-License-Identifier: GPL-2.0-only
"""scripts/copa-bbr3-table.py (issue 43's tables) on a synthetic merged report:
two traces, Cubic, Cubic over CoDel, C2TCP at Target 50 and one scheme with
three repetitions whose mean reaches CoDel's power on one trace although one
repetition does not. Checked: the ratio of the means, the per-repetition
spread, the `reached`, `every rep` and `reps` columns, --only and
--per-trace. The figures are made up here, not taken from any bench."""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "copa-bbr3-table.py"
METRICS = ("throughput_mbps", "avg_queue_delay_ms", "p95_queue_delay_ms", "power")


def config(trace, scheme, label, reps):
    """reps: [(throughput, mean q)] per repetition; power = thr / q."""
    per_rep = []
    for k, (thr, q) in enumerate(reps, 1):
        per_rep.append({"rep": k, "values": {"throughput_mbps": thr, "avg_queue_delay_ms": q,
                                             "p95_queue_delay_ms": 2 * q, "power": thr / q}})
    means = {m: sum(p["values"][m] for p in per_rep) / len(per_rep) for m in METRICS}
    return {"trace": trace, "scheme": scheme, "label": label, "params": {},
            "reps": len(reps), "means": means, "per_rep": per_rep}


def summary():
    c = []
    for t in ("a.down", "b.down"):
        c.append(config(t, "cubic", "", [(10, 100)] * 3))
        c.append(config(t, "cubic-codel", "", [(8, 8)] * 3))  # power 1.0
        c.append(config(t, "c2tcp", "target_ms=50", [(9, 18)] * 3))
        c.append(config(t, "bbr", "", [(10, 50)] * 3))
    # copa on a: reps' powers 1.2, 1.2, 0.9 -> mean power 1.1 (reached), not every rep.
    c.append(config("a.down", "copa", "", [(6, 5), (6, 5), (9, 10)]))
    # copa on b: 0.5 each rep.
    c.append(config("b.down", "copa", "", [(4, 8)] * 3))
    return {"configs": c}


class Table(unittest.TestCase):
    def run_script(self, *args):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "summary.json").write_text(json.dumps(summary()))
            out = subprocess.run([sys.executable, str(SCRIPT), *args, f"P={d}"],
                                 check=True, capture_output=True, text=True).stdout
        return out

    def power_row(self, out, scheme):
        rows = [l for l in out.splitlines() if l.startswith(f"| {scheme} |") and "reached" not in l]
        return [c.strip() for c in rows[-1].strip("|").split("|")]

    def test_power_table(self):
        out = self.run_script()
        row = self.power_row(out, "copa")
        # scheme, trace a, trace b, reached, every rep, reps
        self.assertEqual(row[1], "1.10 (0.90–1.20)")
        self.assertEqual(row[2], "0.50 (0.50–0.50)")
        self.assertEqual(row[3:], ["1/2", "0/2", "3"])
        self.assertEqual(self.power_row(out, "c2tcp [target_ms=50]")[3:], ["0/2", "0/2", "3"])
        self.assertIn("C2TCP reference: c2tcp [target_ms=50]", out)

    def test_only_keeps_references(self):
        out = self.run_script("--only", "copa")
        self.assertNotIn("| bbr |", out)
        for kept in ("| copa |", "| cubic |", "| cubic-codel |", "| c2tcp [target_ms=50] |"):
            self.assertIn(kept, out)

    def test_per_trace(self):
        out = self.run_script("--per-trace", "copa")
        lines = [l for l in out.splitlines() if l.startswith("| a | copa |")]
        self.assertEqual(len(lines), 1)
        cells = [c.strip() for c in lines[0].strip("|").split("|")]
        # trace, scheme, throughput, mean q (min–max), p95 q, power, reps
        self.assertEqual(cells[2], "7.00")
        self.assertEqual(cells[3], "6.7 (5.0–10.0)")
        self.assertEqual(cells[6], "3")
        self.assertNotIn("| a | bbr |", out)


if __name__ == "__main__":
    unittest.main()
