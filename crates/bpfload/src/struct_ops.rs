// SPDX-License-Identifier: GPL-2.0-only
//! Registering a struct_ops congestion control so that it outlives the
//! command that registered it, on kernels with and without struct_ops links.
//!
//! Since Linux 6.4 a struct_ops map created with `BPF_F_LINK` is registered
//! through a BPF link: we pin the link, and removing the pin unregisters it.
//! Before 6.4 the map itself is registered (a map update of its one
//! element) and stays registered, with no process holding it, until that
//! element is deleted. libbpf hands both back as a `Link`, but dropping the
//! map-based one deletes the element, so that one is disconnected after its
//! map is pinned in the link's place; [`unregister`] deletes the element
//! when the pin is a map. Our objects declare `SEC(".struct_ops.link")`;
//! [`prepare`] clears `BPF_F_LINK` where the kernel does not know it.
use std::path::Path;

use anyhow::{Context, Result};
use libbpf_rs::{MapCore, MapHandle, MapMut, MapType, OpenMapMut};

use crate::features::{probe, Feature};
use crate::sys::ops_pin;

const BPF_F_LINK: u32 = libbpf_rs::libbpf_sys::BPF_F_LINK;

/// Before loading: every struct_ops map of the object in the form the
/// running kernel creates.
pub fn prepare(map: &mut OpenMapMut<'_>) -> Result<()> {
    if map.map_type() == MapType::StructOps
        && !probe().has(Feature::StructOpsLink)
        && map.map_flags() & BPF_F_LINK != 0
    {
        map.set_map_flags(map.map_flags() & !BPF_F_LINK)
            .context("clearing BPF_F_LINK (this kernel has no struct_ops links)")?;
    }
    Ok(())
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
