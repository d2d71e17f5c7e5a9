// SPDX-License-Identifier: GPL-2.0-only
//! Stamps the git commit the binary is built from into `c2tcp --version`
//! (`C2TCP_GIT_COMMIT` in the environment wins, for builds outside a clone).
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=C2TCP_GIT_COMMIT");
    let commit = std::env::var("C2TCP_GIT_COMMIT")
        .ok()
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    // Rebuild when HEAD moves: HEAD itself, the branch it names, packed refs.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/packed-refs");
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
    }
    println!("cargo:rustc-env=C2TCP_GIT_COMMIT={commit}");
}
