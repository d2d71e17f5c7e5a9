// SPDX-License-Identifier: GPL-2.0-only
//! Registering a struct_ops congestion control so that it outlives the
//! command that registered it, on kernels with and without struct_ops links,
//! and unregistering it again.
//!
//! Since Linux 6.4 a struct_ops map created with `BPF_F_LINK` is registered
//! through a BPF link: we pin the link, and removing the pin unregisters it.
//! Before 6.4 the map itself is registered (a map update of its one
//! element) and stays registered, with no process holding it, until that
//! element is deleted. libbpf hands both back as a `Link`, but dropping the
//! map-based one deletes the element, so that one is disconnected after its
//! map is pinned in the link's place; [`unregister`] deletes the element
//! when the pin is a map. Our objects declare `SEC(".struct_ops.link")`;
//! `KernelForm::apply` clears `BPF_F_LINK` where the kernel does not know it.
//!
//! Everything a congestion control keeps is pinned in its directory
//! (`sys::pin_dir`); [`unload`] removes the pins, waits for the kernel to
//! drop the registration, and unregisters what a crashed run left without
//! pins (`leftovers.rs`).
use std::fs;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use libbpf_rs::{MapCore, MapHandle, MapMut, MapType, Object};

use crate::leftovers;
use crate::sys::{self, ops_pin};

const BPF_F_LINK: u32 = libbpf_rs::libbpf_sys::BPF_F_LINK;

/// Registers the object's struct_ops map that was created (the one the
/// kernel's form chose: `KernelForm::apply`) and pins it as
/// [`register_pinned`] does.
pub fn register_created(obj: &mut Object, dir: &Path) -> Result<()> {
    let mut created = obj
        .maps_mut()
        .filter(|m| m.map_type() == MapType::StructOps && m.autocreate());
    let mut map = created
        .next()
        .context("the object has no struct_ops map to register")?;
    if let Some(other) = created.next() {
        bail!(
            "the object creates more than one struct_ops map ({} and {})",
            map.name().to_string_lossy(),
            other.name().to_string_lossy()
        );
    }
    register_pinned(&mut map, dir)
}

/// Registers the loaded struct_ops `map` and pins what keeps it registered
/// as `ops` in `dir`: the link, or (without links) the map itself.
pub fn register_pinned(map: &mut MapMut<'_>, dir: &Path) -> Result<()> {
    let is_link = map
        .info()
        .map(|i| i.info.map_flags & BPF_F_LINK != 0)
        .unwrap_or(true);
    let mut link = map
        .attach_struct_ops()
        .context("registering the congestion control")?;
    // A map-based "link" pins the map's own descriptor.
    link.pin(ops_pin(dir)).context(if is_link {
        "pinning the struct_ops link"
    } else {
        "pinning the registered struct_ops map"
    })?;
    if !is_link {
        // Dropping it would delete the element and so unregister.
        link.disconnect();
    }
    Ok(())
}

/// Unregisters what `ops` pins when it is a registered struct_ops map (a
/// link pin unregisters when removed). True when it was a map.
pub fn unregister(dir: &Path) -> Result<bool> {
    let pin = ops_pin(dir);
    let Ok(map) = MapHandle::from_pinned_path(&pin) else {
        return Ok(false); // a link, or nothing
    };
    if map.map_type() != MapType::StructOps {
        return Ok(false);
    }
    // ENOENT: registered no more (a previous unload got this far).
    match map.delete(&0u32.to_ne_bytes()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == libbpf_rs::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(anyhow::Error::new(e)).with_context(|| {
            format!(
                "unregistering the struct_ops map pinned at {}",
                pin.display()
            )
        }),
    }
}

/// Unregisters the congestion control `name` by removing its pins; true
/// when it was there.
pub fn unload(name: &str) -> Result<bool> {
    let dir = sys::pin_dir(name);
    let was_there = dir.exists() || sys::is_registered(name);
    // The default congestion control holds a reference that would keep
    // new sockets on the old programs: hand the default back to Cubic.
    if sys::default_cc() == name {
        sys::set_default_cc("cubic")?;
    }
    // A registered map (kernels before 6.4) stays registered without its pin.
    unregister(&dir)?;
    remove_pins(&dir)?;
    if !wait_unregistered(name, Duration::from_secs(2)) {
        leftovers::unregister(name)?;
    }
    if !wait_unregistered(name, Duration::from_secs(2)) {
        bail!(
            "{name} is still registered: something outside c2tcp holds it (see `bpftool struct_ops show`)"
        );
    }
    Ok(was_there)
}

/// Leaves no empty pin root, and no bpffs we mounted, behind.
pub fn release_pin_root() {
    if fs::remove_dir(sys::PIN_ROOT).is_ok() || !Path::new(sys::PIN_ROOT).exists() {
        sys::release_bpffs();
    }
}

fn wait_unregistered(name: &str, limit: Duration) -> bool {
    let start = Instant::now();
    while sys::is_registered(name) {
        if start.elapsed() > limit {
            return false;
        }
        thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Removes a directory of pins: removing a pin drops the kernel object it
/// kept alive.
pub fn remove_pins(dir: &Path) -> Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        fs::remove_file(&path).with_context(|| format!("removing pin {}", path.display()))?;
    }
    fs::remove_dir(dir).with_context(|| format!("removing {}", dir.display()))
}
