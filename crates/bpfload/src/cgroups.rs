// SPDX-License-Identifier: GPL-2.0-only
//! A Target per cgroup: `c2tcp target set|get|list|clear`.
//!
//! The settings live in the pinned hash map `/sys/fs/bpf/c2tcp/c2tcp/cgroups`
//! (cgroup-v2 id -> `struct c2tcp_cgroup_setting`, bpf/c2tcp_sockopt.h), so
//! they outlive the command and vanish with `c2tcp unload`. The kernel side
//! (`c2tcp_sock_create` in bpf/c2tcp.bpf.c) gives each new TCP socket the
//! setting of the nearest cgroup, from its creator's up to the root, that
//! has one; an application's own C2TCP_TARGET overrides it, and a change
//! applies to sockets created after it.
//!
//! A cgroup is named by its cgroup-v2 path: relative to the cgroup-v2 mount
//! (`system.slice/video.slice`), as `/proc/PID/cgroup` prints it
//! (`/system.slice/video.slice`), or as an absolute path under the mount.
//! Its id is the inode number of its directory, which is what the kernel's
//! `bpf_get_current_ancestor_cgroup_id` returns.
use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use libbpf_rs::{MapCore, MapFlags, MapHandle};
use serde::Serialize;

use crate::map_bytes::{map_bytes, MapBytes};
use crate::skel::c2tcp::types::c2tcp_cgroup_setting;
use crate::sys;

// The map's value is the skeleton's `struct c2tcp_cgroup_setting`, laid out
// from the object's BTF, every field listed (a test checks they cover it);
// its key is the cgroup id, a `__u64`. How many cgroups it holds is the
// loaded map's `max_entries` (`C2TCP_CGROUP_MAX_ENTRIES`), read from it.
map_bytes!(c2tcp_cgroup_setting { target_us, variant });

/// The pinned map's file name in c2tcp's pin directory.
pub const MAP_PIN: &str = "cgroups";

/// A cgroup-v2 directory and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cgroup {
    /// Path relative to the cgroup-v2 mount, with a leading `/` (`/` is the root).
    pub name: String,
    pub id: u64,
}

/// One cgroup's setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    pub target_us: u32,
    /// C2TCP_VARIANT for the cgroup's sockets; `Base::Default` with no
    /// bits means the load-time default.
    pub variant: sockopt::Variant,
}

/// A setting as `list` and `status` show it.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The cgroup's path, or None when the cgroup was removed since.
    pub cgroup: Option<String>,
    pub cgroup_id: u64,
    pub target_us: u32,
    pub variant: String,
}

/// Resolves a CGROUP argument to an existing cgroup-v2 directory.
pub fn resolve(arg: &str) -> Result<Cgroup> {
    let root = sys::cgroup2_root()?;
    resolve_under(&root, arg)
}

fn resolve_under(root: &Path, arg: &str) -> Result<Cgroup> {
    let given = Path::new(arg);
    let dir: PathBuf = if given.starts_with(root) {
        given.to_path_buf()
    } else {
        root.join(arg.trim_start_matches('/'))
    };
    if dir
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        bail!("cgroup `{arg}`: `..` is not allowed in a cgroup path");
    }
    let meta = fs::metadata(&dir).map_err(|e| {
        anyhow::anyhow!(
            "cgroup `{arg}` does not exist: {} ({e}); cgroup paths are relative to the cgroup-v2 mount {}",
            dir.display(),
            root.display()
        )
    })?;
    if !meta.is_dir() || !dir.join("cgroup.procs").exists() {
        bail!(
            "`{arg}` is not a cgroup: {} is not a directory of the cgroup-v2 hierarchy mounted at {}",
            dir.display(),
            root.display()
        );
    }
    let rel = dir.strip_prefix(root).unwrap_or(&dir);
    Ok(Cgroup {
        name: format!("/{}", rel.display()).replace("//", "/"),
        id: meta.ino(),
    })
}

/// The Target range of include/c2tcp.h, in milliseconds for messages.
pub fn check_target_us(target_us: u32) -> Result<()> {
    if !(sockopt::C2TCP_TARGET_MIN_US..=sockopt::C2TCP_TARGET_MAX_US).contains(&target_us) {
        bail!(
            "Target {} ms is out of range: it must be between {} and {} ms",
            target_us as f64 / 1000.0,
            sockopt::C2TCP_TARGET_MIN_US / 1000,
            sockopt::C2TCP_TARGET_MAX_US / 1000
        );
    }
    Ok(())
}

fn open_map() -> Result<MapHandle> {
    let dir = sys::pin_dir("c2tcp");
    let pin = dir.join(MAP_PIN);
    if !dir.join("ops").exists() {
        bail!("c2tcp is not loaded: run `sudo c2tcp load` first (cgroup Targets live in its pinned map)");
    }
    if !pin.exists() {
        bail!(
            "the loaded c2tcp has no cgroup Target map ({}): it was loaded by an older c2tcp; run `sudo c2tcp unload c2tcp && sudo c2tcp load c2tcp`",
            pin.display()
        );
    }
    MapHandle::from_pinned_path(&pin).with_context(|| format!("opening {}", pin.display()))
}

fn encode(s: &Setting) -> Vec<u8> {
    c2tcp_cgroup_setting {
        target_us: s.target_us,
        variant: s.variant.to_raw(),
    }
    .to_bytes()
}

/// None when `v` is short or its variant is not one this c2tcp knows.
fn decode(v: &[u8]) -> Option<Setting> {
    let raw = c2tcp_cgroup_setting::from_bytes(v)?;
    Some(Setting {
        target_us: raw.target_us,
        variant: sockopt::Variant::from_raw(raw.variant)?,
    })
}

/// Sets (or replaces) a cgroup's setting.
pub fn set(cg: &Cgroup, setting: &Setting) -> Result<()> {
    check_target_us(setting.target_us)?;
    let map = open_map()?;
    map.update(&cg.id.to_ne_bytes(), &encode(setting), MapFlags::ANY)
        .with_context(|| {
            format!(
                "storing the Target of cgroup {} (at most {} cgroups can have one)",
                cg.name,
                map.max_entries()
            )
        })
}

/// The cgroup's own setting (not an ancestor's), if any.
pub fn get(cg: &Cgroup) -> Result<Option<Setting>> {
    let map = open_map()?;
    Ok(map
        .lookup(&cg.id.to_ne_bytes(), MapFlags::ANY)?
        .and_then(|v| decode(&v)))
}

/// The setting a socket created in `cg` now gets: the nearest cgroup with
/// one, from `cg` up to the root.
pub fn effective(cg: &Cgroup) -> Result<Option<(Cgroup, Setting)>> {
    let root = sys::cgroup2_root()?;
    let mut name = cg.name.clone();
    loop {
        let here = resolve_under(&root, &name)?;
        if let Some(s) = get(&here)? {
            return Ok(Some((here, s)));
        }
        if name == "/" {
            return Ok(None);
        }
        name = Path::new(&name)
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "/".into());
    }
}

/// Removes a cgroup's setting; returns whether there was one.
pub fn clear(cg: &Cgroup) -> Result<bool> {
    let map = open_map()?;
    let key = cg.id.to_ne_bytes();
    if map.lookup(&key, MapFlags::ANY)?.is_none() {
        return Ok(false);
    }
    map.delete(&key)
        .with_context(|| format!("clearing the Target of cgroup {}", cg.name))?;
    Ok(true)
}

/// Removes the setting of a cgroup that no longer exists, by id.
pub fn clear_id(id: u64) -> Result<bool> {
    let map = open_map()?;
    let key = id.to_ne_bytes();
    if map.lookup(&key, MapFlags::ANY)?.is_none() {
        return Ok(false);
    }
    map.delete(&key)?;
    Ok(true)
}

/// Every setting, with its cgroup's path when the cgroup still exists;
/// None when c2tcp (or its cgroup map) is not loaded.
pub fn list() -> Result<Option<Vec<Entry>>> {
    let pin = sys::pin_dir("c2tcp").join(MAP_PIN);
    if !pin.exists() {
        return Ok(None);
    }
    let map =
        MapHandle::from_pinned_path(&pin).with_context(|| format!("opening {}", pin.display()))?;
    let mut raw = Vec::new();
    for key in map.keys() {
        let Ok(k) = <[u8; 8]>::try_from(key.as_slice()) else {
            continue;
        };
        if let Some(s) = map.lookup(&key, MapFlags::ANY)?.and_then(|v| decode(&v)) {
            raw.push((u64::from_ne_bytes(k), s));
        }
    }
    let names = if raw.is_empty() {
        HashMap::new()
    } else {
        names_by_id(&sys::cgroup2_root()?)
    };
    let mut entries: Vec<Entry> = raw
        .into_iter()
        .map(|(id, s)| Entry {
            cgroup: names.get(&id).cloned(),
            cgroup_id: id,
            target_us: s.target_us,
            variant: s.variant.to_string(),
        })
        .collect();
    entries.sort_by(|a, b| a.cgroup.cmp(&b.cgroup).then(a.cgroup_id.cmp(&b.cgroup_id)));
    Ok(Some(entries))
}

/// `c2tcp cleanup`: drops the settings of cgroups that no longer exist and
/// removes the empty cgroups killed test runs left (`c2tcp-test-PID` under
/// the mount, PID no longer running). Returns what it removed.
pub fn cleanup() -> Result<Vec<String>> {
    let mut removed = Vec::new();
    if let Some(entries) = list()? {
        for e in entries.iter().filter(|e| e.cgroup.is_none()) {
            if clear_id(e.cgroup_id)? {
                removed.push(format!("Target of removed cgroup id {}", e.cgroup_id));
            }
        }
    }
    let Ok(root) = sys::cgroup2_root() else {
        return Ok(removed);
    };
    for e in fs::read_dir(&root).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("c2tcp-test-")
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        if remove_empty_tree(&e.path()) {
            removed.push(format!("test cgroup {}", e.path().display()));
        }
    }
    Ok(removed)
}

/// rmdir of a cgroup and its descendants, deepest first; false if any has processes.
fn remove_empty_tree(dir: &Path) -> bool {
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_type().is_ok_and(|t| t.is_dir()) && !remove_empty_tree(&e.path()) {
            return false;
        }
    }
    fs::remove_dir(dir).is_ok()
}

/// Every cgroup's id -> path (relative to the mount, leading `/`).
pub fn names_by_id(root: &Path) -> HashMap<u64, String> {
    let mut out = HashMap::new();
    let mut stack = vec![(root.to_path_buf(), "/".to_string())];
    while let Some((dir, name)) = stack.pop() {
        if let Ok(meta) = fs::metadata(&dir) {
            out.insert(meta.ino(), name.clone());
        }
        let Ok(rd) = fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                let child = e.file_name().to_string_lossy().into_owned();
                let child_name = if name == "/" {
                    format!("/{child}")
                } else {
                    format!("{name}/{child}")
                };
                stack.push((e.path(), child_name));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_relative_absolute_and_as_proc_prints_them() {
        let root = tempfile_root();
        fs::create_dir_all(root.join("a.slice/b.service")).unwrap();
        fs::write(root.join("cgroup.procs"), "").unwrap();
        fs::write(root.join("a.slice/cgroup.procs"), "").unwrap();
        fs::write(root.join("a.slice/b.service/cgroup.procs"), "").unwrap();
        let abs = root.join("a.slice/b.service");
        let want = resolve_under(&root, abs.to_str().unwrap()).unwrap();
        assert_eq!(want.name, "/a.slice/b.service");
        assert_eq!(resolve_under(&root, "a.slice/b.service").unwrap(), want);
        assert_eq!(resolve_under(&root, "/a.slice/b.service").unwrap(), want);
        assert_eq!(resolve_under(&root, "/").unwrap().name, "/");
        let err = resolve_under(&root, "a.slice/nope")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`a.slice/nope` does not exist") && err.contains("nope"),
            "{err}"
        );
        let err = resolve_under(&root, "a.slice/../a.slice")
            .unwrap_err()
            .to_string();
        assert!(err.contains(".."), "{err}");
        fs::write(root.join("a.slice/file"), "").unwrap();
        let err = resolve_under(&root, "a.slice/file")
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a cgroup"), "{err}");
        fs::remove_dir_all(&root).unwrap();
    }

    /// The map as the object declares it: a cgroup id for key, the
    /// skeleton's struct for value with every byte a listed field, and
    /// room for the entries bpf/c2tcp_sockopt.h asks for.
    #[test]
    fn the_map_value_is_the_skeletons_struct_field_by_field() {
        use libbpf_rs::skel::SkelBuilder;
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<c2tcp_cgroup_setting>(), 8);
        assert_eq!(c2tcp_cgroup_setting::listed_bytes(), 8);
        let setting = Setting {
            target_us: 50_000,
            variant: sockopt::Variant::PAPER,
        };
        let b = encode(&setting);
        let at = |off: usize| &b[off..off + 4];
        assert_eq!(
            at(offset_of!(c2tcp_cgroup_setting, target_us)),
            50_000u32.to_ne_bytes()
        );
        assert_eq!(
            at(offset_of!(c2tcp_cgroup_setting, variant)),
            sockopt::Variant::PAPER.to_raw().to_ne_bytes()
        );
        assert_eq!(decode(&b), Some(setting));
        assert_eq!(decode(&b[..7]), None, "short");
        let mut storage = std::mem::MaybeUninit::uninit();
        let open = crate::skel::c2tcp::C2tcpSkelBuilder::default()
            .open(&mut storage)
            .expect("opening the c2tcp object (no kernel needed)");
        let map = &open.maps.c2tcp_cgroups;
        assert_eq!(map.key_size() as usize, size_of::<u64>());
        assert_eq!(map.value_size() as usize, size_of::<c2tcp_cgroup_setting>());
        // The object's count is the header's define (BTF does not carry it).
        let header = include_str!("../../../bpf/c2tcp_sockopt.h");
        let define = header
            .lines()
            .find_map(|l| l.strip_prefix("#define C2TCP_CGROUP_MAX_ENTRIES"))
            .expect("C2TCP_CGROUP_MAX_ENTRIES in bpf/c2tcp_sockopt.h");
        assert_eq!(map.max_entries(), define.trim().parse::<u32>().unwrap());
    }

    #[test]
    fn targets_outside_the_header_range_are_refused() {
        assert!(check_target_us(1_000).is_ok());
        assert!(check_target_us(10_000_000).is_ok());
        let err = check_target_us(999).unwrap_err().to_string();
        assert!(err.contains("between 1 and 10000 ms"), "{err}");
        assert!(check_target_us(10_000_001).is_err());
    }

    fn tempfile_root() -> PathBuf {
        let p = std::env::temp_dir().join(format!("c2tcp-cgroups-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        p
    }
}
