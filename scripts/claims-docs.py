#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Print the claims tally sentences and docs/results.md's claims table from a
claims.json (`c2tcp claims ROOT --out DIR` writes DIR/claims.json).

  scripts/claims-docs.py docs/claims.json
  scripts/claims-docs.py BENCH/claims.json --copy docs/claims.json
  scripts/claims-docs.py BENCH/claims.json --merge docs/claims.json

--copy writes the claims.json docs/results.md describes (without each
check's per-trace values, which stay in the bench's own claims.json), then
prints from it. --merge does the same for the claims BENCH evaluated (every
claim whose verdict there is not "not run") and keeps docs/claims.json's
evaluation of the others, each claim naming the bench root it was evaluated
over (`bench_root`, and the file's `bench_roots` lists them all): a bench root
holding only the parts re-run since adds their verdicts without the earlier
parts' runs, which need not be on this machine. A claim reading several parts
is taken only where every part was in BENCH (else it is "not run" there). --apply (after the file) rewrites, in README.md and
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


def tallies(j):
    """claims.json's three tallies, as `c2tcp claims` counts them
    (crates/report/src/claims/render.rs): verdict keys sorted, zero counts
    left out, papers sorted."""
    def count(cs):
        t = {}
        for c in cs:
            t[c["verdict"]] = t.get(c["verdict"], 0) + 1
        return dict(sorted(t.items()))
    papers = [c for c in j["claims"] if not c.get("ours")]
    j["tally"] = count(papers)
    j["tally_by_paper"] = {p: count([c for c in papers if c["paper"] == p])
                           for p in sorted({c["paper"] for c in papers})}
    j["tally_ours"] = count([c for c in j["claims"] if c.get("ours")])


def merge(new, old):
    """new's claims (the claims files' now, in their order), each not run in
    new taking old's evaluation where old has one."""
    old_roots = old.get("bench_roots") or [old["bench_root"]]
    kept = {(c["paper"], c["id"]): c for c in old["claims"]}
    claims = []
    for c in new["claims"]:
        o = kept.get((c["paper"], c["id"]))
        if c["verdict"] == "not-run" and o is not None:
            c = dict(o)
            c.setdefault("bench_root", old_roots[0] if len(old_roots) == 1 else None)
        else:
            c = dict(c, bench_root=new["bench_root"])
        claims.append(c)
    roots = sorted({c["bench_root"] for c in claims if c.get("bench_root")})
    j = {"bench_root": new["bench_root"], "bench_roots": roots, "claims": claims}
    tallies(j)
    return {k: j[k] for k in ["bench_root", "bench_roots", "tally", "tally_by_paper", "tally_ours", "claims"]}


def strip_per_trace(j):
    for c in j["claims"]:
        for k in c["checks"]:
            k.pop("per_trace", None)


def main():
    j = json.load(open(sys.argv[1]))
    if len(sys.argv) == 3 and sys.argv[2] == "--apply":
        apply(j, ["README.md", "docs/results.md"])
        return
    if len(sys.argv) == 4 and sys.argv[2] in ("--copy", "--merge"):
        strip_per_trace(j)
        if sys.argv[2] == "--merge":
            j = merge(j, json.load(open(sys.argv[3])))
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
