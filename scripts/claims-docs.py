#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Print the claims tally sentences and docs/results.md's claims table from a
claims.json (`c2tcp claims ROOT --out DIR` writes DIR/claims.json).

  scripts/claims-docs.py docs/claims.json
  scripts/claims-docs.py BENCH/claims.json --copy docs/claims.json

--copy writes the claims.json docs/results.md describes (without each
check's per-trace values, which stay in the bench's own claims.json), then
prints from it. --apply (after the file) rewrites, in README.md and
docs/results.md, what lies between the markers <!-- tally:papers -->,
<!-- tally:by-paper -->, <!-- tally:ours --> (each closed by <!-- /tally -->)
and <!-- claims-table --> ... <!-- /claims-table -->.

The tally sentence ("N claims: A holds; B holds, magnitude differs; ...") is
the one README.md and docs/results.md print; the table goes between
docs/results.md's <!-- claims-table --> markers, one row per claim in
claims.json's order. crates/report/tests/claims_docs.rs keeps the three
equal, so after a new claims.json: copy it to docs/claims.json, run this, and
paste its output in place.
"""
import json
import sys

ORDER = ["holds", "holds-magnitude-differs", "differs", "unsettled", "not-run", "error"]


def key_text(k):
    return "holds, magnitude differs" if k == "holds-magnitude-differs" else k.replace("-", " ")


def tally_sentence(t):
    n = sum(t.values())
    parts = [f"{t[k]} {key_text(k)}" for k in ORDER if k in t]
    return f"{n} claims: " + "; ".join(parts)


def num(v):
    if v is None:
        return "–"
    a = abs(v)
    if v == round(v) and a < 1e9:
        return f"{v:.0f}"
    return f"{v:.1f}" if a >= 100 else f"{v:.2f}" if a >= 1 else f"{v:.3g}"


def cell(s):
    return str(s).replace("|", "/").replace("\n", " ")


def check_text(c):
    s = f"{num(c['value'])} ({c['bound']})" if c.get("value") is not None else "–"
    if c.get("magnitude") is not None:
        s += f", ×{num(c['magnitude'])} the paper's {num(c['paper'])}"
    if c.get("components"):
        a, b = c["components"]
        s += f" [{num(a)} ÷ {num(b)}]"
    if c.get("from"):
        s += " †"  # carried from an earlier evaluation (`c2tcp claims --prior`)
    return s


def table(j):
    out = ["<!-- claims-table -->",
           "| paper | claim | where | paper's figure | ours (bound), ours ÷ the paper's figure [a ratio's two components] | reps | verdict |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for c in j["claims"]:
        checks = "; ".join(check_text(k) for k in c["checks"])
        reps = sorted({k["reps"] for k in c["checks"] if k.get("value") is not None})
        reps = "–" if not reps else str(reps[0]) if len(reps) == 1 else f"{reps[0]}–{reps[-1]}"
        verdict = key_text(c["verdict"]) + (" (close)" if c.get("close") else "")
        claim = f"`{c['id']}`" + (" (our question)" if c.get("ours") else "")
        out.append(f"| {c['paper']} | {claim} | {cell(c['section'])} | {cell(c.get('paper_figure') or '–')} | {cell(checks)} | {reps} | **{verdict}** |")
    out.append("<!-- /claims-table -->")
    return "\n".join(out)


def apply(j, paths):
    import re
    marks = {
        "papers": tally_sentence(j["tally"]),
        "ours": tally_sentence(j["tally_ours"]),
        "by-paper": "; ".join(f"{p}: {tally_sentence(t)}" for p, t in j["tally_by_paper"].items()),
    }
    for path in paths:
        text = open(path).read()
        for k, v in marks.items():
            text = re.sub(rf"(<!-- tally:{k} -->).*?(<!-- /tally -->)",
                          lambda m: m.group(1) + v + m.group(2), text, flags=re.S)
        text = re.sub(r"<!-- claims-table -->.*?<!-- /claims-table -->",
                      lambda m: table(j), text, flags=re.S)
        open(path, "w").write(text)


def main():
    j = json.load(open(sys.argv[1]))
    if len(sys.argv) == 3 and sys.argv[2] == "--apply":
        apply(j, ["README.md", "docs/results.md"])
        return
    if len(sys.argv) == 4 and sys.argv[2] == "--copy":
        for c in j["claims"]:
            for k in c["checks"]:
                k.pop("per_trace", None)
        with open(sys.argv[3], "w") as f:
            json.dump(j, f, indent=1, ensure_ascii=False)
            f.write("\n")
    elif len(sys.argv) != 2:
        sys.exit(__doc__)
    print("papers:", tally_sentence(j["tally"]))
    for p, t in j["tally_by_paper"].items():
        print(f"  {p}:", tally_sentence(t))
    print("ours:", tally_sentence(j["tally_ours"]))
    print()
    print(table(j))


if __name__ == "__main__":
    main()
