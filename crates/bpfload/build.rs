// SPDX-License-Identifier: GPL-2.0-only
//! Compiles every `bpf/*.bpf.c` with clang and generates a libbpf-rs skeleton
//! for it, each a module of `skels.rs` (the crate's `skel`). `vmlinux.h` is dumped from the running kernel's BTF by bpftool, so
//! struct_ops and CO-RE types match the kernel the programs will load into.
use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use libbpf_cargo::SkeletonBuilder;

fn find_clang() -> PathBuf {
    if let Ok(c) = env::var("CLANG") {
        return PathBuf::from(c);
    }
    for c in ["clang-19", "clang-18", "clang-17", "clang-16", "clang"] {
        if Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return PathBuf::from(c);
        }
    }
    panic!("no clang found: run `make deps` (installs clang-19) or set CLANG=/path/to/clang");
}

fn dump_vmlinux_h(out: &Path) {
    let btf = env::var("C2TCP_VMLINUX_BTF").unwrap_or_else(|_| "/sys/kernel/btf/vmlinux".into());
    let output = Command::new("bpftool")
        .args(["btf", "dump", "file", &btf, "format", "c"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run bpftool ({e}): run `make deps` to install it"));
    assert!(
        output.status.success(),
        "bpftool could not dump {btf}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    fs::write(out.join("vmlinux.h"), output.stdout).expect("write vmlinux.h");
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let bpf_dir = manifest
        .join("../../bpf")
        .canonicalize()
        .expect("bpf/ directory");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    dump_vmlinux_h(&out);
    let clang = find_clang();

    let mut sources: Vec<PathBuf> = fs::read_dir(&bpf_dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".bpf.c"))
        .collect();
    sources.sort();
    // One module per skeleton, which the crate's `skel` includes: an
    // object added to bpf/ is a skeleton without a line of Rust.
    let mut modules = String::new();
    for src in &sources {
        let stem = src
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".bpf.c")
            .to_string();
        let skel = out.join(format!("{stem}.skel.rs"));
        let args: Vec<OsString> = vec![
            "-I".into(),
            out.clone().into(),
            "-I".into(),
            bpf_dir.clone().into(),
            "-Wall".into(),
            "-Werror".into(),
        ];
        SkeletonBuilder::new()
            .source(src)
            .obj(out.join(format!("{stem}.bpf.o")))
            .clang(&clang)
            .clang_args(args)
            .build_and_generate(&skel)
            .unwrap_or_else(|e| panic!("building {}: {e:#}", src.display()));
        println!("cargo:rerun-if-changed={}", src.display());
        modules.push_str(&format!(
            "pub mod {stem} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{stem}.skel.rs\")); }}\n"
        ));
    }
    fs::write(out.join("skels.rs"), modules).expect("write skels.rs");
    // Example objects (no skeleton): what a user's own `bpf` scheme file
    // names, for the tests and docs/schemes.md.
    let examples = bpf_dir.join("examples");
    let examples_out = out.join("examples");
    fs::create_dir_all(&examples_out).expect("creating OUT_DIR/examples");
    for entry in fs::read_dir(&examples).unwrap().flatten() {
        let src = entry.path();
        let Some(stem) = src
            .file_name()
            .unwrap()
            .to_string_lossy()
            .strip_suffix(".bpf.c")
            .map(str::to_string)
        else {
            continue;
        };
        SkeletonBuilder::new()
            .source(&src)
            .obj(examples_out.join(format!("{stem}.bpf.o")))
            .clang(&clang)
            .clang_args(vec![
                OsString::from("-I"),
                out.clone().into(),
                "-Wall".into(),
                "-Werror".into(),
            ])
            .build()
            .unwrap_or_else(|e| panic!("building {}: {e:#}", src.display()));
        println!("cargo:rerun-if-changed={}", src.display());
    }
    println!("cargo:rerun-if-changed={}", examples.display());
    for entry in fs::read_dir(&bpf_dir).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "h") {
            println!("cargo:rerun-if-changed={}", entry.path().display());
        }
    }
    println!("cargo:rerun-if-changed={}", bpf_dir.display());
    // The socket option's ABI, which bpf/c2tcp_logic.h includes.
    println!(
        "cargo:rerun-if-changed={}",
        bpf_dir.join("../include/c2tcp.h").display()
    );
    println!("cargo:rerun-if-env-changed=CLANG");
}
