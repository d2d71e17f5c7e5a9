# SPDX-License-Identifier: GPL-2.0-only
"""Every link of the README, DESIGN.md and docs/ leads somewhere.

Checked in each Markdown file, code blocks left out:
- a relative link `[text](path)` or `[text](path#anchor)` names a file or
  directory of the repository, and the anchor a heading of that file (GitHub's
  rule: lower case, punctuation but `-` and `_` dropped, spaces to `-`,
  repeats suffixed `-1`, `-2`, ...);
- a path in backticks that names a document or directory of the repository
  (`docs/x.md`, `crates/emu`, `scripts/kernels/matrix.py`, ...) exists.
  Paths under `target/` or the traces (made by the build or `make traces`,
  not in git) are not checked, nor anything with a placeholder (`<trace>`,
  `N`, `*`).

The README is also held to its page length (issue 40: a newcomer's page)."""
import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 250

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
BACKTICK = re.compile(r"`([^`\s]+)`")
# The repository's top-level entries a backticked path may start with.
CHECKED_ROOTS = ("docs/", "crates/", "scripts/", "bpf/", "include/", "tools/", "claims/",
                 "scenarios/", "schemes/", "python/", "fuzz/", ".ci/")
CHECKED_FILES = ("traces/README.md", "traces/MANIFEST.tsv", "Makefile", "DESIGN.md",
                 "README.md", "LICENSE", "Cargo.toml")
PLACEHOLDER = re.compile(r"[<>*{}]|\.\.\.|…|/N/|\bN\b|PATH|FILE|DIR")


def documents():
    yield ROOT / "README.md"
    yield ROOT / "DESIGN.md"
    yield from sorted((ROOT / "docs").rglob("*.md"))
    yield ROOT / "claims" / "README.md"
    yield ROOT / "traces" / "README.md"


def prose(text):
    """The lines outside fenced code blocks, with their numbers."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    seen = {}
    out = set()
    for _, line in prose(path.read_text()):
        m = re.match(r"#{1,6}\s+(.*)", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


class DocLinks(unittest.TestCase):
    def test_relative_links_and_anchors_resolve(self):
        bad = []
        for doc in documents():
            for number, line in prose(doc.read_text()):
                for target in LINK.findall(line):
                    if re.match(r"[a-z]+:", target):  # https:, mailto:
                        continue
                    path, _, anchor = target.partition("#")
                    dest = (doc.parent / path).resolve() if path else doc
                    where = f"{doc.relative_to(ROOT)}:{number}: {target}"
                    if not dest.exists():
                        bad.append(f"{where}: no such file")
                    elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                        bad.append(f"{where}: no heading with anchor #{anchor}")
        self.assertEqual(bad, [], "broken links:\n" + "\n".join(bad))

    def test_backticked_repository_paths_exist(self):
        bad = []
        for doc in documents():
            for number, line in prose(doc.read_text()):
                for text in BACKTICK.findall(line):
                    path = text.rstrip(".,;:)")
                    if not (path.startswith(CHECKED_ROOTS) or path in CHECKED_FILES) \
                            or PLACEHOLDER.search(path):
                        continue
                    # a path with a line number or a Rust item after it
                    path = re.split(r"[:#]", path)[0]
                    if not (ROOT / path).exists():
                        bad.append(f"{doc.relative_to(ROOT)}:{number}: `{text}`")
        self.assertEqual(bad, [], "paths that do not exist:\n" + "\n".join(bad))

    def test_readme_is_one_page(self):
        lines = (ROOT / "README.md").read_text().count("\n")
        self.assertLessEqual(lines, README_MAX_LINES,
                             "README.md is a newcomer's page: move detail to docs/")


if __name__ == "__main__":
    unittest.main()
