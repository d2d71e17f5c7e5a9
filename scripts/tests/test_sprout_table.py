# SPDX-License-Identifier: GPL-2.0-only
"""scripts/sprout-table.py on a synthetic bench directory: two traces, Sprout
and Sprout-EWMA with the authors' sender, Cubic unlabelled. Checked: every
row of both tables is found (the reference row of the Sprout-EWMA table
once read "not run" because a row's label overwrote the sender's), the
speedup is the mean of per-trace ratios and the delay reduction the ratio
of the mean delays. The figures are made up here, not taken from any bench."""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "sprout-table.py"


def write_run(root, trace, scheme, label, thr, delay_ms):
    where = root / "runs" / trace / scheme / (label or "default") / "rep1"
    where.mkdir(parents=True)
    (where / "run.json").write_text(json.dumps(
        {"status": "done", "scheme": scheme, "trace": trace, "label": label}))
    (where / "metrics.json").write_text(json.dumps(
        {"aggregate": {"throughput_mbps": thr, "self_inflicted_delay_ms": delay_ms}}))


class Table(unittest.TestCase):
    def test_rows_of_both_tables(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            for trace, k in (("a.down", 1.0), ("b.down", 2.0)):
                write_run(root, trace, "sprout", "sender=authors", 2.0 * k, 200)
                write_run(root, trace, "sprout-ewma", "sender=authors", 4.0 * k, 400)
                write_run(root, trace, "cubic", "", 4.0 * k, 10000)
            out = subprocess.run([sys.executable, str(SCRIPT), d], check=True,
                                 capture_output=True, text=True).stdout
        ewma = out.split("### vs. Sprout-EWMA")[1]
        # Sprout-EWMA's own row is its reference: 1.00x, 0.40 s.
        self.assertIn("| sprout-ewma (sprout-ewma [sender=authors]) | 1.00x | 1.00x | 1.00x (0.40 s)", ewma)
        # vs. Sprout: Cubic carries 2x Sprout's throughput on both traces -> speedup 0.50x;
        # 10 s over 0.2 s -> 50x.
        sprout = out.split("### vs. Sprout [")[1].split("###")[0]
        self.assertIn("| cubic | 0.50x | 0.91x | 50.00x (10.00 s)", sprout)


if __name__ == "__main__":
    unittest.main()
