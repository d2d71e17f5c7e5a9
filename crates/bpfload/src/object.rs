// SPDX-License-Identifier: GPL-2.0-only
//! A user's own compiled struct_ops congestion control (a `.bpf.o` named by
//! a `bpf` scheme file), handled exactly as ours are: checked before anything
//! runs, loaded in the running kernel's form by the same conventions
//! (`kernel_form.rs`: without `BPF_F_LINK` before 6.4, ...), registered
//! through a struct_ops link pinned beside ours
//! (`/sys/fs/bpf/c2tcp/<cc>/ops`), unloaded by removing that pin, and
//! refcounted by `usage::BpfUse` like ours (auto-loaded, unloaded by the
//! last user).
//!
//! What we can check without root or the kernel ([`inspect`]): the file
//! exists, libbpf opens it as a BPF object, and it has exactly one
//! struct_ops map. The name the kernel will know it by lives inside the
//! struct's bytes at a kernel-dependent offset, so the scheme file names it
//! (`cc`) and [`load`] checks, once registered, that the kernel lists that
//! name — else it unloads what it registered and says so.
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use libbpf_rs::{MapType, ObjectBuilder};

use crate::cc::{self, LoadOutcome};
use crate::features::probe;
use crate::struct_ops::{self, register_created, release_pin_root, remove_pins};
use crate::sys::{self, ops_pin};

/// A user's struct_ops object and the congestion-control name it registers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UserObject {
    pub cc: String,
    pub path: PathBuf,
}

/// The struct_ops map of a BPF object file, checked without loading it:
/// refuses a missing file, a file that is not a BPF object, and an object
/// without exactly one struct_ops map. Returns that map's name.
pub fn inspect(path: &Path) -> Result<String> {
    if !path.is_file() {
        bail!("{}: no such file", path.display());
    }
    let open = ObjectBuilder::default().open_file(path).map_err(|e| {
        anyhow::anyhow!("{}: not a BPF object libbpf can open ({e})", path.display())
    })?;
    let ops: Vec<String> = open
        .maps()
        .filter(|m| m.map_type() == MapType::StructOps)
        .map(|m| m.name().to_string_lossy().into_owned())
        .collect();
    match ops.as_slice() {
        [one] => Ok(one.clone()),
        [] => bail!(
            "{}: has no struct_ops map (a congestion control is a `SEC(\".struct_ops.link\") struct tcp_congestion_ops`)",
            path.display()
        ),
        many => bail!(
            "{}: has {} struct_ops maps ({}); a bpf scheme registers one congestion control",
            path.display(),
            many.len(),
            many.join(", ")
        ),
    }
}

/// Whether `cc` is registered through our pin.
pub fn is_loaded(cc: &str) -> bool {
    ops_pin(&sys::pin_dir(cc)).exists() && sys::is_registered(cc)
}

/// Loads and registers `obj` (a no-op when it is loaded already). Callers
/// hold the exclusive [`BpfLock`](crate::lock::BpfLock).
pub fn load(obj: &UserObject) -> Result<LoadOutcome> {
    sys::require_root("loading a BPF congestion control")?;
    if cc::spec(&obj.cc).is_ok() {
        bail!(
            "`{}` is one of c2tcp's own congestion controls; give your object another name",
            obj.cc
        );
    }
    if is_loaded(&obj.cc) {
        return Ok(LoadOutcome::AlreadyLoaded {
            reconfigured: false,
        });
    }
    let dir = sys::pin_dir(&obj.cc);
    remove_pins(&dir)?; // half-loaded by a crashed run
    if sys::is_registered(&obj.cc) {
        bail!(
            "a congestion control named `{}` is already registered by something else (see `bpftool struct_ops show`); \
             refusing to load {} under that name",
            obj.cc,
            obj.path.display()
        );
    }
    inspect(&obj.path)?;
    sys::ensure_bpffs()?;
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    if let Err(e) = attach(obj, &dir) {
        let _ = struct_ops::unregister(&dir);
        let _ = remove_pins(&dir);
        release_pin_root();
        return Err(e.context(format!("loading {}", obj.path.display())));
    }
    if !sys::is_registered(&obj.cc) {
        let _ = struct_ops::unregister(&dir);
        let _ = remove_pins(&dir);
        bail!(
            "{} registered a congestion control, but not one named `{}`: give its tcp_congestion_ops .name as `cc`",
            obj.path.display(),
            obj.cc
        );
    }
    Ok(LoadOutcome::Loaded)
}

fn attach(obj: &UserObject, dir: &Path) -> Result<()> {
    let open = ObjectBuilder::default()
        .open_file(&obj.path)
        .context("opening the BPF object")?;
    let mut loaded = probe().form.load_object(&obj.cc, open)?;
    register_created(&mut loaded, dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inspect_refuses_what_is_not_a_struct_ops_object() {
        let tmp = tempfile::tempdir().unwrap();
        let e = inspect(&tmp.path().join("none.bpf.o"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no such file"), "{e}");
        let junk = tmp.path().join("junk.bpf.o");
        fs::write(&junk, "not an ELF file").unwrap();
        let e = inspect(&junk).unwrap_err().to_string();
        assert!(e.contains("not a BPF object"), "{e}");
        assert_eq!(
            inspect(Path::new(crate::EXAMPLE_OBJECT)).unwrap(),
            "c2t_example"
        );
    }
}
