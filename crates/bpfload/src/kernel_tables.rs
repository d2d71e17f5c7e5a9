// SPDX-License-Identifier: GPL-2.0-only
//! The two tables `docs/kernels.md` carries, made from the code's own lists
//! so that each fact has one owner: every kernel feature, its first kernel,
//! who uses it and what c2tcp does without it (`features::FEATURES`, its
//! users derived from `cc::CCS`), and what each congestion control needs
//! and works without (its `CcSpec`). Tests keep the page equal to them;
//! their failure message is the table to paste.
use crate::cc::{CcSpec, CCS};
use crate::features::{info, Feature, Release, FEATURES};

/// Who uses `f`: the congestion controls whose `CcSpec` requires or adapts
/// to it (or "every congestion control"), then what for.
pub fn used_by(f: Feature) -> String {
    let users: Vec<&str> = CCS
        .iter()
        .filter(|c| c.requires.contains(&f) || c.adapts.contains(&f))
        .map(|c| c.name)
        .collect();
    let who = if users.len() == CCS.len() {
        "every congestion control".to_string()
    } else {
        users.join(", ")
    };
    match (who.is_empty(), info(f).used_for) {
        (true, what_for) => what_for.to_string(),
        (false, "") => who,
        (false, what_for) => format!("{who} ({what_for})"),
    }
}

/// The features table.
pub fn features_table() -> String {
    let mut s = String::from(
        "| feature | first kernel | used by | without it |\n| --- | --- | --- | --- |\n",
    );
    for f in FEATURES {
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            f.what,
            f.first_kernel,
            used_by(f.feature),
            f.without
        ));
    }
    s
}

/// The table of what each congestion control needs, those with the same
/// needs on one row, in `CCS`'s order.
pub fn needs_table() -> String {
    let mut rows: Vec<(Vec<&str>, &CcSpec)> = Vec::new();
    for cc in CCS {
        match rows
            .iter_mut()
            .find(|(_, c)| c.requires == cc.requires && c.adapts == cc.adapts)
        {
            Some((names, _)) => names.push(cc.name),
            None => rows.push((vec![cc.name], cc)),
        }
    }
    let shorts = |fs: &[Feature]| -> String {
        fs.iter()
            .map(|f| info(*f).short)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = String::from(
        "| congestion control | needs | works without (see the table) |\n| --- | --- | --- |\n",
    );
    for (names, cc) in rows {
        let first = cc
            .requires
            .iter()
            .map(|f| info(*f).first_kernel)
            .max()
            .unwrap_or(Release(0, 0));
        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        s.push_str(&format!(
            "| {} | {} ({first}) | {} |\n",
            names.join(", "),
            shorts(cc.requires),
            shorts(cc.adapts)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernels_md() -> String {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/kernels.md"
        ))
        .expect("docs/kernels.md")
    }

    /// docs/kernels.md carries both tables exactly as the code knows them.
    #[test]
    fn docs_kernels_md_holds_the_tables() {
        let doc = kernels_md();
        for (what, table) in [
            ("feature", features_table()),
            ("congestion-control", needs_table()),
        ] {
            assert!(
                doc.contains(&table),
                "docs/kernels.md's {what} table differs from the code (features.rs, cc.rs); put this in it:\n{table}"
            );
        }
    }

    #[test]
    fn users_come_from_the_cc_list() {
        assert_eq!(used_by(Feature::StructOps), "every congestion control");
        assert_eq!(used_by(Feature::BpfStats), "`c2tcp cost`");
        assert_eq!(
            used_by(Feature::CongControlAckFlag),
            "copa, copafixed, bbr3, natcp, nacubic, tg"
        );
        assert!(used_by(Feature::CgroupSockopt).starts_with("c2tcp ("));
    }
}
