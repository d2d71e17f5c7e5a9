# SPDX-License-Identifier: GPL-2.0-only
"""The kernel matrix's pass/fail rule, in one place (docs/kernel-matrix.md).

A guest only records what happened (scripts/kernels/guest-init.sh); this file
decides which of those outcomes `make test-kernels` requires, per guest
configuration. Adjust it here, nowhere else.

`judge` gets one guest's configuration, its recorded checks (name -> status
and detail) and its files (doctor.json, doctor.txt, ...), and returns each
check's verdict: `required` (a failure fails the matrix) or not, and why.

Per congestion control, the source of truth is `c2tcp doctor --json`'s `ccs`
list (`loadable`, `missing`): a CC it calls loadable must load, one it does
not must be refused with a reason naming what the kernel lacks. A doctor
without that list (the JSON is a plain list of checks) leaves the other CCs
recorded only; C2TCP itself is always required.
"""
import json
import re
from dataclasses import dataclass

# What a refusing host's doctor must say about tracing programs (EPERM, the
# kernel refused), and must not (the verifier never ran there).
REFUSAL_WORDS = re.compile(r"EPERM|refus", re.IGNORECASE)
WRONG_BLAME = re.compile(r"verifier rejected", re.IGNORECASE)


@dataclass
class Verdict:
    check: str
    status: str  # ok | fail | skip, as recorded; `missing` when never recorded
    required: bool
    why: str  # one line: why it is required or not
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.required and self.status != "ok"


def doctor_ccs(files: dict) -> dict | None:
    """`c2tcp doctor --json`'s per-CC verdicts, or None when it has none."""
    try:
        doc = json.loads(files.get("doctor.json", b"").decode() or "null")
    except ValueError:
        return None
    if isinstance(doc, dict) and isinstance(doc.get("ccs"), list):
        return {c["name"]: c for c in doc["ccs"] if isinstance(c, dict) and "name" in c}
    return None


def judge(config, checks: dict, files: dict) -> list[Verdict]:
    """Every check of one guest with its verdict, required ones first seen."""
    ccs = doctor_ccs(files)
    out = []

    def add(name, required, why, status=None, detail=None):
        rec = checks.get(name, {})
        out.append(Verdict(name, status or rec.get("status", "missing"), required, why,
                           detail if detail is not None else rec.get("detail", "")))

    for name in ["boot", "modules"] + (["refuse-tracing"] if config.refuse_tracing else []):
        add(name, True, "the guest itself")
    add("doctor", False, "its exit status reflects the kernel; recorded")
    # Its exit status says whether the kernel passed doctor's checks; what
    # is required is the answer, JSON, on every kernel.
    try:
        json.loads(files.get("doctor.json", b"").decode() or "")
        answered = "ok"
    except ValueError:
        answered = "fail"
    add("doctor-json", True, "doctor --json must answer (valid JSON) on every kernel", status=answered)
    if config.refuse_tracing:
        text = files.get("doctor.txt", b"").decode(errors="replace")  # its stdout alone
        named = bool(REFUSAL_WORDS.search(text)) and not WRONG_BLAME.search(text)
        add("doctor-names-refusal", True, "issue 33: doctor names what the kernel refuses, "
            "and does not blame the verifier",
            status="ok" if named else "fail",
            detail="doctor's text names the refusal" if named else
            "doctor's text has no EPERM/refused, or says the verifier rejected: "
            + " | ".join(ln for ln in text.splitlines() if "PASS" not in ln)[:600])

    for name in sorted(k for k in checks if k.startswith("load:")):
        cc = name.split(":", 1)[1]
        rec = checks[name]
        if ccs is not None and cc in ccs:
            if ccs[cc].get("loadable"):
                add(name, True, "doctor: loadable")
            else:
                missing = ccs[cc].get("missing") or []
                refused_by_name = rec["status"] != "ok" and all(m in rec["detail"] for m in missing)
                add(name, True, f"doctor: not loadable (missing {', '.join(missing) or '?'}): "
                    "must be refused naming it",
                    status="ok" if refused_by_name else "fail",
                    detail=("refused: " if rec["status"] != "ok" else "loaded although doctor said not loadable: ")
                    + rec["detail"])
        elif cc == "c2tcp":
            add(name, True, "C2TCP must load on every kernel of the matrix")
        else:
            add(name, False, "recorded (doctor --json has no per-CC verdict yet)")
    for name in sorted(k for k in checks if k.startswith("unload:")):
        add(name, True, "unload after a load must work")
    for name in sorted(k for k in checks if k.startswith("leftovers:")):
        add(name, True, "issue 33: a failed load leaves nothing behind")

    for name in sorted(k for k in checks if k.startswith("test:")):
        if config.refuse_tracing and "top" in name:
            add(name, False, "top's iterator is a tracing program, refused here; recorded")
        else:
            add(name, True, "the project's own test, on this kernel")
    add("backoff", True, "C2TCP_INFO must show C2TCP backing off (bad_events > 0)")
    add("backoff:drain", True, "the drain variant (issue 44) must back off at its Target too (bad_events > 0)")
    if config.refuse_tracing:
        add("top", False, "top's iterator is refused here; recorded")
    else:
        add("top", True, "top --once must list the running c2tcp connection")
    if config.bench:
        add("bench", True, "make demo's bench must complete with cubic, bbr and c2tcp")
    add("unload", True, "unload must leave nothing registered or pinned")
    if config.refuse_tracing:
        add("refused-loads", False, "how many loads the LSM refused; information")
    # Anything recorded that no rule above named is shown, not required.
    named = {v.check for v in out}
    for name in sorted(set(checks) - named):
        add(name, False, "no rule; recorded")
    return out
