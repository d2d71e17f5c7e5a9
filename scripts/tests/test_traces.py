# SPDX-License-Identifier: GPL-2.0-only
"""scripts/traces.py (`make traces`) against a fixture served over HTTP on
loopback, laid out as the raw-file host lays out repositories
(OWNER/REPO/COMMIT/PATH): a good download, a corrupted file, a missing file,
an interrupted transfer and an unreachable host are each checked, and no
refused transfer may leave a file behind. The fixture's traces are made here
(a few synthetic lines), not taken from any dataset."""
import contextlib
import gzip
import hashlib
import http.server
import io
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import traces  # noqa: E402

COMMIT = "0123456789abcdef0123456789abcdef01234567"
PLAIN = b"".join(b"%d\n" % t for t in range(1, 400, 3))
PACKED = b"".join(b"%d\n" % t for t in range(2, 900, 7))
HEADER = "file\toperator\tsource_repo\tsource_path\tcommit\tlicense\tgit_blob_sha1\n"


def blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def row(file: str, path: str, data: bytes, repo: str = "someone/traces") -> str:
    return f"{file}\tAn operator\t{repo}\t{path}\t{COMMIT}\tGPL-3.0\t{blob(data)}\n"


class Server:
    """A loopback HTTP server over `root`, with paths that break on purpose."""

    def __init__(self, root: Path):
        self.requests: list[str] = []
        server = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **k):
                super().__init__(*a, directory=str(root), **k)

            def do_GET(self):
                server.requests.append(self.path)
                if self.path.endswith("/cut-short.down"):
                    # Promises the whole file, sends half, hangs up.
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(PLAIN)))
                    self.end_headers()
                    self.wfile.write(PLAIN[: len(PLAIN) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                super().do_GET()

            def log_message(self, *_):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class MakeTraces(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="c2tcp-traces-test-"))
        self.served = self.tmp / "served"
        src = self.served / "someone/traces" / COMMIT
        (src / "traces").mkdir(parents=True)
        (src / "traces/a.down").write_bytes(PLAIN)
        (src / "traces/b.up").write_bytes(PACKED)
        (src / "traces/bad.down").write_bytes(PLAIN[:-2] + b"9\n")
        self.dest = self.tmp / "traces"
        self.dest.mkdir()
        self.server = Server(self.served)

    def tearDown(self):
        self.server.close()
        subprocess.run(["rm", "-rf", str(self.tmp)], check=True)

    def manifest(self, *rows: str) -> None:
        (self.dest / "MANIFEST.tsv").write_text(HEADER + "".join(rows))

    def make_traces(self, *extra: str, base: str | None = None) -> tuple[int, str]:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = traces.main(["--dest", str(self.dest), "--base-url", base or self.server.url, *extra])
        return rc, err.getvalue()

    def files_left(self) -> list[str]:
        return sorted(str(p.relative_to(self.dest)) for p in self.dest.rglob("*")
                      if p.is_file() and p.name != "MANIFEST.tsv")

    def test_a_good_download_is_verified_and_a_second_run_fetches_nothing(self):
        self.manifest(row("mahimahi/a.down", "traces/a.down", PLAIN),
                      row("orange/b.up.gz", "traces/b.up", PACKED))
        rc, err = self.make_traces()
        self.assertEqual(rc, 0, err)
        self.assertEqual((self.dest / "mahimahi/a.down").read_bytes(), PLAIN)
        packed = (self.dest / "orange/b.up.gz").read_bytes()
        self.assertEqual(gzip.decompress(packed), PACKED)
        # `gzip -9 -n`: no name, no time stamp, so the same bytes every time.
        self.assertEqual(packed, subprocess.run(["gzip", "-9", "-n", "-c"], input=PACKED,
                                                capture_output=True, check=True).stdout)
        self.assertEqual(len(self.server.requests), 2)
        rc, err = self.make_traces()
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(self.server.requests), 2, "a verified file is not fetched again")

    def test_a_corrupted_file_is_refused_naming_it_with_both_hashes(self):
        self.manifest(row("mahimahi/bad.down", "traces/bad.down", PLAIN))
        rc, err = self.make_traces()
        self.assertEqual(rc, 1)
        self.assertIn("mahimahi/bad.down", err)
        self.assertIn(f"expected {blob(PLAIN)}", err)
        self.assertIn(blob(PLAIN[:-2] + b"9\n"), err)
        self.assertEqual(self.files_left(), [])

    def test_a_file_changed_in_place_is_brought_again(self):
        self.manifest(row("mahimahi/a.down", "traces/a.down", PLAIN))
        (self.dest / "mahimahi").mkdir()
        (self.dest / "mahimahi/a.down").write_bytes(b"1\n2\n")
        rc, err = self.make_traces()
        self.assertEqual(rc, 0, err)
        self.assertEqual((self.dest / "mahimahi/a.down").read_bytes(), PLAIN)

    def test_a_missing_file_is_refused(self):
        self.manifest(row("mahimahi/a.down", "traces/a.down", PLAIN),
                      row("mahimahi/gone.down", "traces/gone.down", PLAIN))
        rc, err = self.make_traces()
        self.assertEqual(rc, 1)
        self.assertIn("traces/gone.down: HTTP 404", err)
        self.assertNotIn("mahimahi/gone.down", self.files_left())

    def test_an_interrupted_transfer_leaves_nothing_behind(self):
        self.manifest(row("mahimahi/cut-short.down", "traces/cut-short.down", PLAIN))
        rc, err = self.make_traces()
        self.assertEqual(rc, 1)
        self.assertIn("cut-short.down", err)
        self.assertEqual(self.files_left(), [])
        self.assertEqual(list(self.dest.iterdir()), [self.dest / "MANIFEST.tsv"])

    def test_no_copy_and_no_network_fails_within_seconds_saying_what_to_do(self):
        self.manifest(row("mahimahi/a.down", "traces/a.down", PLAIN),
                      row("mahimahi/b.down", "traces/b.down", PLAIN))
        empty = self.tmp / "empty"
        empty.mkdir()
        closed = Server(self.served)
        closed.close()  # its port now refuses connections
        start = time.monotonic()
        rc, err = self.make_traces("--from", str(empty), base=closed.url)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(rc, 1)
        self.assertIn(str(empty), err)
        self.assertIn("TRACES_FROM", err)
        self.assertIn(closed.url, err)
        self.assertEqual(self.files_left(), [])
        # No copy at all (a clone made where no shared folder sits beside
        # it): the message says there was none, and where it looked.
        rc, err = self.make_traces("--from", "", base=closed.url)
        self.assertEqual(rc, 1)
        self.assertIn("TRACES_FROM is empty", err)
        self.assertIn(str(Path(traces.ROOT).parent / "shared" / "traces"), err)
        self.assertIn("TRACES_FROM=/path/to/traces", err)
        self.assertEqual(self.files_left(), [])

    def test_a_local_copy_is_used_and_checked(self):
        self.manifest(row("mahimahi/a.down", "traces/a.down", PLAIN))
        local = self.tmp / "local"
        (local / "mahimahi").mkdir(parents=True)
        (local / "mahimahi/a.down").write_bytes(PLAIN)
        rc, err = self.make_traces("--from", str(local), base="http://127.0.0.1:9")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.server.requests, [])
        (self.dest / "mahimahi/a.down").unlink()
        (local / "mahimahi/a.down").write_bytes(PLAIN + b"999\n")
        rc, err = self.make_traces("--from", str(local))
        self.assertEqual(rc, 1)
        self.assertIn(f"expected {blob(PLAIN)}", err)
        self.assertEqual(self.files_left(), [])

    def test_a_dataset_zip_with_the_wrong_sha256_is_refused(self):
        zipped = self.served / "uccmisl/5Gdataset" / COMMIT
        zipped.mkdir(parents=True)
        (zipped / "5G-production-dataset.zip").write_bytes(b"PK\x05\x06" + bytes(18))
        self.manifest(row("5g/ucc-static-x.down.gz",
                          "5G-production-dataset.zip:5G-production-dataset/Download/Static/B_x.csv",
                          PLAIN, repo="uccmisl/5Gdataset"))
        rc, err = self.make_traces()
        self.assertEqual(rc, 1)
        self.assertIn("SHA-256", err)
        self.assertEqual(self.files_left(), [])


if __name__ == "__main__":
    unittest.main()
