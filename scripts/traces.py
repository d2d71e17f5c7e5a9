#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""`make traces`: fill traces/ with the files traces/MANIFEST.tsv describes, verified.

The traces are other projects' data under their own licences, so the repository
carries only their manifest (source repository, path, commit, licence, git blob
SHA-1) and this script brings them:

1. from a local copy with the same layout (--from, `make traces`' TRACES_FROM,
   by default ../shared/traces where it exists), else
2. from each row's source repository at its pinned commit, over the public
   raw-file address (--base-url, default https://raw.githubusercontent.com):
   the file itself; for a `.gz` row the source file, then `gzip -9 -n`; for a
   row whose source path is `ARCHIVE.zip:MEMBER` (the UCC 5G traces) the
   dataset's zip, once, then scripts/import-ucc-5g.sh, which checks the zip's
   SHA-256 and makes every 5G trace from it.

Every file, wherever it came from, is checked against its row's git blob SHA-1
(of the decompressed text for a `.gz` row, as `git hash-object` of the original
file gives it). A file is written under a temporary name in its folder and
renamed into place only once verified, so a refused, interrupted or corrupted
transfer leaves nothing behind. A file already present and verified is left as
it is: a second run reads and hashes, nothing more.

The first failure to reach the source host ends the run at once (no waiting
out a timeout per row), saying what was tried and how to point TRACES_FROM at a
copy. Exit status: 0 all verified, 1 a file refused or unreachable, 2 usage.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import http.client
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BASE_URL = "https://raw.githubusercontent.com"
# Seconds to wait for the source host to answer: short, because the first
# failure ends the run (`make traces` must fail within seconds offline).
CONNECT_TIMEOUT_S = 5
HINT = ("point TRACES_FROM at a folder with the traces' layout (make traces "
        "TRACES_FROM=/path/to/traces), for example a checkout's ../shared/traces")


class Refused(Exception):
    """A file that could not be brought or did not verify; the message names it."""


class Unreachable(Exception):
    """The source host could not be reached: no point trying the other rows."""


@dataclass(frozen=True)
class Row:
    file: str          # path under traces/
    source_repo: str   # owner/name
    source_path: str   # path in the repository, or ARCHIVE.zip:MEMBER
    commit: str
    blob_sha1: str     # git blob SHA-1 of the (decompressed) text
    line: int          # its line in MANIFEST.tsv, for messages

    @property
    def gzipped(self) -> bool:
        return self.file.endswith(".gz")

    @property
    def archive(self) -> str | None:
        """The archive the file is made from (`5G-production-dataset.zip`), if any."""
        head, sep, _ = self.source_path.partition(":")
        return head if sep and head.endswith(".zip") else None


def read_manifest(path: Path) -> list[Row]:
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        raise Refused(f"{path}: cannot read the manifest: {e.strerror}") from e
    if not lines:
        raise Refused(f"{path}: empty, expected a header line")
    header = lines[0].split("\t")
    need = ["file", "source_repo", "source_path", "commit", "git_blob_sha1"]
    missing = [c for c in need if c not in header]
    if missing:
        raise Refused(f"{path}:1: no column {', '.join(missing)}")
    col = {c: header.index(c) for c in need}
    rows = []
    for n, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        f = text.split("\t")
        if len(f) != len(header):
            raise Refused(f"{path}:{n}: {len(f)} fields, the header has {len(header)}")
        row = Row(*(f[col[c]] for c in need), line=n)
        if ".." in Path(row.file).parts or row.file.startswith("/"):
            raise Refused(f"{path}:{n}: file `{row.file}` is not a path inside traces/")
        rows.append(row)
    return rows


def git_blob_sha1(data: bytes) -> str:
    """What `git hash-object` prints for a file with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def text_of(path: Path, gzipped: bool) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if gzipped else data


def check(row: Row, path: Path, origin: str) -> None:
    """Raises Refused unless `path` holds the row's file."""
    try:
        got = git_blob_sha1(text_of(path, row.gzipped))
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise Refused(f"{row.file} (from {origin}): unreadable: {e}") from e
    if got != row.blob_sha1:
        raise Refused(f"{row.file} (from {origin}): git blob SHA-1 {got}, "
                      f"expected {row.blob_sha1} (MANIFEST.tsv:{row.line})")


def install(row: Row, dest: Path, fill, origin: str) -> None:
    """Makes dest/row.file: `fill(tmp)` writes a temporary file beside it,
    which is checked and renamed into place, or removed."""
    target = dest / row.file
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        fill(tmp)
        check(row, tmp, origin)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def fetch_url(url: str, out: Path) -> None:
    """Downloads `url` into `out`. An unreachable host raises Unreachable; an
    HTTP error, or a body that stops short of its Content-Length, Refused."""
    host = urllib.parse.urlparse(url).netloc
    try:
        response = urllib.request.urlopen(url, timeout=CONNECT_TIMEOUT_S)
    except urllib.error.HTTPError as e:
        raise Refused(f"{url}: HTTP {e.code} {e.reason}") from e
    except urllib.error.URLError as e:
        raise Unreachable(f"could not reach {host}: {e.reason}") from e
    except OSError as e:  # a timeout or reset before any answer
        raise Unreachable(f"could not reach {host}: {e}") from e
    with response, open(out, "wb") as f:
        expected = response.headers.get("Content-Length")
        got = 0
        try:
            while chunk := response.read(1 << 16):
                f.write(chunk)
                got += len(chunk)
        except (http.client.HTTPException, OSError) as e:
            raise Refused(f"{url}: transfer broken after {got} bytes: {type(e).__name__}") from e
        if expected is not None and got != int(expected):
            raise Refused(f"{url}: transfer ended after {got} of {expected} bytes")


def raw_url(base: str, repo: str, commit: str, path: str) -> str:
    return f"{base.rstrip('/')}/{repo}/{commit}/{path}"


class Fetcher:
    def __init__(self, dest: Path, local: Path | None, base_url: str, bin_path: Path, log):
        self.dest, self.local, self.base_url, self.bin, self.log = dest, local, base_url, bin_path, log
        self.counts = {"present": 0, "copied": 0, "downloaded": 0}

    def bring(self, rows: list[Row]) -> None:
        pending = []
        for row in rows:
            have = self.dest / row.file
            if have.is_file():
                try:
                    check(row, have, "traces/")
                    self.counts["present"] += 1
                    continue
                except Refused as e:
                    self.log(f"traces: {e}; bringing it again")
            if self.local is not None and (self.local / row.file).is_file():
                install(row, self.dest, lambda tmp, r=row: shutil.copyfile(self.local / r.file, tmp),
                        str(self.local / row.file))
                self.counts["copied"] += 1
                continue
            pending.append(row)
        plain = [r for r in pending if r.archive is None]
        archived = [r for r in pending if r.archive is not None]
        for i, row in enumerate(plain, 1):
            self.download(row, i, len(plain))
        by_archive: dict[tuple[str, str, str], list[Row]] = {}
        for row in archived:
            by_archive.setdefault((row.source_repo, row.commit, row.archive), []).append(row)
        for (repo, commit, archive), group in by_archive.items():
            self.from_archive(repo, commit, archive, group)

    def download(self, row: Row, i: int, n: int) -> None:
        url = raw_url(self.base_url, row.source_repo, row.commit, row.source_path)
        self.log(f"traces: [{i}/{n}] {row.file} <- {url}")

        def fill(tmp: Path) -> None:
            if not row.gzipped:
                fetch_url(url, tmp)
                return
            src = tmp.with_name(tmp.name + ".src")
            try:
                fetch_url(url, src)
                with open(tmp, "wb") as out:
                    subprocess.run(["gzip", "-9", "-n", "-c", str(src)], stdout=out, check=True)
            finally:
                src.unlink(missing_ok=True)

        install(row, self.dest, fill, url)
        self.counts["downloaded"] += 1

    def from_archive(self, repo: str, commit: str, archive: str, rows: list[Row]) -> None:
        """The UCC 5G traces: the dataset's zip, then scripts/import-ucc-5g.sh
        into a scratch traces folder; each file made is checked and moved in."""
        url = raw_url(self.base_url, repo, commit, archive)
        self.log(f"traces: {len(rows)} files from {archive} <- {url}")
        with tempfile.TemporaryDirectory(prefix="c2tcp-traces-") as work:
            work = Path(work)
            zip_path = work / archive
            fetch_url(url, zip_path)
            scratch = work / "traces"
            scratch.mkdir()
            shutil.copyfile(self.dest / "MANIFEST.tsv", scratch / "MANIFEST.tsv")
            importer = ROOT / "scripts" / "import-ucc-5g.sh"
            done = subprocess.run([str(importer), str(zip_path), str(scratch)],
                                  env={**os.environ, "BIN": str(self.bin)},
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if done.returncode != 0:
                raise Refused(f"{archive} (from {url}): {importer.name} failed:\n{done.stdout.strip()}")
            for row in rows:
                made = scratch / row.file
                if not made.is_file():
                    raise Refused(f"{row.file}: {importer.name} did not make it from {archive}")
                install(row, self.dest, lambda tmp, m=made: shutil.copyfile(m, tmp),
                        f"{archive} via {importer.name}")
                self.counts["downloaded"] += 1


def parse(argv):
    p = argparse.ArgumentParser(
        description="Fill traces/ from a local copy or the traces' sources, every file "
                    "checked against traces/MANIFEST.tsv's git blob SHA-1.")
    p.add_argument("--from", dest="local", metavar="DIR", default="",
                   help="a folder with the traces' layout to copy from (empty: none)")
    p.add_argument("--dest", metavar="DIR", default=str(ROOT / "traces"),
                   help="the traces folder to fill, holding MANIFEST.tsv (default: the repository's traces/)")
    p.add_argument("--base-url", default=os.environ.get("TRACES_URL", DEFAULT_BASE_URL),
                   help="where raw files are served as BASE/OWNER/REPO/COMMIT/PATH "
                        f"(default: $TRACES_URL or {DEFAULT_BASE_URL})")
    p.add_argument("--bin", default=str(ROOT / "target" / "release" / "c2tcp"),
                   help="the c2tcp binary scripts/import-ucc-5g.sh runs (only to make the 5G traces from their zip)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the summary and errors")
    a = p.parse_args(argv)

    dest = Path(a.dest)
    local = Path(a.local) if a.local else None
    if local is not None and not local.is_dir():
        print(f"traces: TRACES_FROM={local} is not a folder", file=sys.stderr)
        return None, None, None, None
    log = (lambda _m: None) if a.quiet else (lambda m: print(m, flush=True))
    return a, dest, local, log


def run(a, dest: Path, local: Path | None, log):
    fetcher = Fetcher(dest, local, a.base_url, Path(a.bin), log)
    try:
        rows = read_manifest(dest / "MANIFEST.tsv")
        fetcher.bring(rows)
    except (Unreachable, Refused, KeyboardInterrupt):
        remove_empty_folders(dest)
        raise
    return fetcher, rows


def remove_empty_folders(dest: Path) -> None:
    """A failed run leaves no folder it made empty (temporary files are gone already)."""
    for d in sorted((p for p in dest.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        try:
            d.rmdir()
        except OSError:
            pass


def main(argv: list[str] | None = None) -> int:
    a, dest, local, log = parse(argv)
    if a is None:
        return 2
    try:
        fetcher, rows = run(a, dest, local, log)
    except Unreachable as e:
        shared = ROOT.parent / "shared" / "traces"
        tried = (f"{local} (files missing there), then " if local else
                 f"no local copy (TRACES_FROM is empty: there is no {shared} beside this "
                 f"checkout, as in a clone made elsewhere), then ")
        print(f"traces: cannot bring the traces: tried {tried}their sources at {a.base_url}, "
              f"and {e}.\ntraces: {HINT}.", file=sys.stderr)
        return 1
    except Refused as e:
        print(f"traces: refused: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("traces: interrupted; nothing partial was left", file=sys.stderr)
        return 130
    c = fetcher.counts
    print(f"traces: {len(rows)} files verified in {dest} ({c['present']} already there, "
          f"{c['copied']} copied from {local}, {c['downloaded']} downloaded)"
          if local else
          f"traces: {len(rows)} files verified in {dest} ({c['present']} already there, "
          f"{c['downloaded']} downloaded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
