// SPDX-License-Identifier: GPL-2.0-only
//! Registrations a previous run left behind without our pins: a plain
//! (non-link) struct_ops map stays registered after its loader exits, until
//! someone deletes its one element. Our objects name the struct_ops variable
//! after the congestion control, so the map carries that name.
use anyhow::{bail, Result};
use libbpf_rs::query::MapInfoIter;
use libbpf_rs::{MapCore, MapHandle, MapType};

use crate::kernel_form::PRE_610;

/// The names our struct_ops maps for `cc` may carry: its own, and its
/// pre-6.10 form (`<cc>_pre610`, `kernel_form.rs`), cut at
/// BPF_OBJ_NAME_LEN - 1.
fn map_names(cc: &str) -> [String; 2] {
    let cut = |s: String| s.chars().take(15).collect::<String>();
    [cut(cc.to_string()), cut(format!("{cc}{PRE_610}"))]
}

/// Unregisters every plain struct_ops map named like the congestion control.
pub fn unregister(cc: &str) -> Result<()> {
    let names = map_names(cc);
    let mut seen = 0;
    let mut failed = Vec::new();
    for info in MapInfoIter::default() {
        let name = info.name.to_string_lossy();
        if info.ty != MapType::StructOps || !names.iter().any(|n| *n == name) {
            continue;
        }
        seen += 1;
        match MapHandle::from_map_id(info.id).and_then(|m| m.delete(&0u32.to_ne_bytes())) {
            Ok(()) => {}
            Err(e) => failed.push(format!("map id {}: {e}", info.id)),
        }
    }
    if seen == 0 && crate::sys::is_registered(cc) {
        bail!("`{cc}` is registered by something that is not a c2tcp BPF object (a kernel module?); refusing to touch it");
    }
    if !failed.is_empty() && crate::sys::is_registered(cc) {
        bail!(
            "could not unregister a leftover `{cc}`: {}",
            failed.join("; ")
        );
    }
    Ok(())
}
