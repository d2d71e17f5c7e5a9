# SPDX-License-Identifier: GPL-2.0-only
"""scripts/claims-docs.py --merge on two synthetic claims.json: a bench root
holding only the re-run parts adds their verdicts and keeps the earlier
evaluation of every claim it did not run, each claim naming its bench root,
the claims in the newer file's order (a claim gone from the claims files is
gone), the tallies counted again as `c2tcp claims` counts them. The claims
are made up here."""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "claims-docs.py"


def claim(paper, cid, verdict, ours=False, value=None):
    return {"paper": paper, "id": cid, "section": "§1", "statement": "s", "paper_figure": "2×",
            "bench": "part", "note": None, "ours": ours, "plot": None, "verdict": verdict,
            "close": False,
            "checks": [{"value": value, "bound": "≥ 1", "reps": 3,
                        "per_trace": [{"trace": "t", "value": value}]}]}


def doc(root, claims):
    return {"bench_root": root, "tally": {}, "tally_by_paper": {}, "tally_ours": {}, "claims": claims}


class Merge(unittest.TestCase):
    def merged(self, new, old):
        with tempfile.TemporaryDirectory() as d:
            n, o = Path(d, "new.json"), Path(d, "old.json")
            n.write_text(json.dumps(new))
            o.write_text(json.dumps(old))
            subprocess.run([sys.executable, SCRIPT, n, "--merge", o], check=True,
                           stdout=subprocess.DEVNULL)
            return json.loads(o.read_text())

    def test_rerun_parts_replace_and_the_rest_is_kept(self):
        old = doc("/old", [claim("a", "x", "holds", value=2.0), claim("a", "y", "differs", value=0.5),
                           claim("b", "z", "not-run"), claim("a", "gone", "holds")])
        new = doc("/new", [claim("a", "y", "holds", value=1.5), claim("a", "x", "not-run"),
                           claim("b", "z", "unsettled", value=1.1), claim("b", "q", "not-run", ours=True)])
        j = self.merged(new, old)
        got = [(c["id"], c["verdict"], c["bench_root"]) for c in j["claims"]]
        self.assertEqual(got, [("y", "holds", "/new"), ("x", "holds", "/old"),
                               ("z", "unsettled", "/new"), ("q", "not-run", "/new")])
        self.assertEqual(j["bench_roots"], ["/new", "/old"])
        self.assertEqual(j["tally"], {"holds": 2, "unsettled": 1})
        self.assertEqual(j["tally_by_paper"], {"a": {"holds": 2}, "b": {"unsettled": 1}})
        self.assertEqual(j["tally_ours"], {"not-run": 1})
        self.assertNotIn("per_trace", j["claims"][0]["checks"][0])

    def test_a_merged_file_merges_again(self):
        first = self.merged(doc("/b", [claim("a", "x", "holds", value=2.0), claim("a", "y", "not-run")]),
                            doc("/a", [claim("a", "x", "differs", value=0.1), claim("a", "y", "differs", value=0.2)]))
        j = self.merged(doc("/c", [claim("a", "x", "not-run"), claim("a", "y", "not-run")]), first)
        self.assertEqual([(c["verdict"], c["bench_root"]) for c in j["claims"]],
                         [("holds", "/b"), ("differs", "/a")])
        self.assertEqual(j["bench_roots"], ["/a", "/b"])


if __name__ == "__main__":
    unittest.main()
