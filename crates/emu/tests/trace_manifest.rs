// SPDX-License-Identifier: GPL-2.0-only
//! The repository's `traces/MANIFEST.tsv` stays true (the files are not in
//! git: `make traces` brings them, this checks them as brought): every trace file is
//! listed, its size and line count match, it parses, and the manifest's
//! duration and mean rate are the file's. A `.gz` file is checked as the
//! text it decompresses to (lines, bytes and the source's blob SHA-1 are
//! the original file's), read the way every trace reader reads it.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use emu::trace::Trace;

fn traces_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces")
}

/// Every file under `traces/` except the folder's own README and manifest.
fn trace_files(root: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for dir in std::fs::read_dir(root).expect("reading traces/").flatten() {
        if !dir.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let rel = f
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.insert(rel);
        }
    }
    out
}

/// `git hash-object`: SHA-1 of "blob <len>\0" and the content.
fn git_blob_sha1(data: &[u8]) -> String {
    let out = std::process::Command::new("git")
        .args(["hash-object", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(data)?;
            c.wait_with_output()
        })
        .expect("running git hash-object");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn every_trace_is_listed_and_matches_its_manifest_row() {
    let root = traces_root();
    let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).expect("traces/MANIFEST.tsv");
    let mut lines = manifest.lines();
    let header: Vec<&str> = lines.next().expect("a header line").split('\t').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("MANIFEST.tsv has no `{name}` column"))
    };
    let (file, lic, src, commit) = (
        col("file"),
        col("license"),
        col("source_repo"),
        col("commit"),
    );
    let (nlines, bytes, dur, rate) = (
        col("lines"),
        col("bytes"),
        col("duration_s"),
        col("mean_mbps"),
    );
    let mut listed = BTreeSet::new();
    for (i, line) in lines.enumerate() {
        let at = format!("MANIFEST.tsv:{}", i + 2);
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            f.len(),
            header.len(),
            "{at}: {} fields, header has {}",
            f.len(),
            header.len()
        );
        for c in [lic, src, commit] {
            assert!(!f[c].trim().is_empty(), "{at}: empty `{}`", header[c]);
        }
        let path = root.join(f[file]);
        let text = emu::trace::read_text(&path)
            .unwrap_or_else(|e| panic!("{at}: {e} (`make traces` brings the files)"));
        if f[file].ends_with(".gz") {
            // The blob SHA-1 names the upstream file: check it against the text.
            let blob = git_blob_sha1(text.as_bytes());
            assert_eq!(
                blob,
                f[col("git_blob_sha1")],
                "{at}: {} decompresses to another file",
                f[file]
            );
        }
        let trace = Trace::parse(&path, &text).unwrap_or_else(|e| panic!("{at}: {e}"));
        let summary = trace.summary();
        let want = |c: usize| {
            f[c].parse::<f64>()
                .unwrap_or_else(|_| panic!("{at}: `{}` is not a number", header[c]))
        };
        assert_eq!(
            text.len() as f64,
            want(bytes),
            "{at}: {} has {} bytes",
            f[file],
            text.len()
        );
        assert_eq!(
            text.lines().count() as f64,
            want(nlines),
            "{at}: {} has {} lines",
            f[file],
            text.lines().count()
        );
        let duration_s = summary.duration_ms as f64 / 1000.0;
        assert!(
            (duration_s - want(dur)).abs() < 0.0015,
            "{at}: {} lasts {duration_s:.3} s",
            f[file]
        );
        assert!(
            (summary.mean_mbps - want(rate)).abs() < 0.0015,
            "{at}: {} averages {:.3} Mbit/s",
            f[file],
            summary.mean_mbps
        );
        assert!(
            listed.insert(f[file].to_string()),
            "{at}: {} listed twice",
            f[file]
        );
    }
    let present = trace_files(&root);
    let unlisted: Vec<_> = present.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "traces not in MANIFEST.tsv: {unlisted:?}"
    );
    assert!(
        present.len() >= 15,
        "traces/ holds only {} files",
        present.len()
    );
}
