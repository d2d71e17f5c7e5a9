// SPDX-License-Identifier: GPL-2.0-only
//! The scheme code's modules (`scheme/`, `plan/` and every module they
//! reach) import no module that imports them, directly or through others:
//! each can be read, and changed, knowing only what it imports (issue 40).
use std::collections::BTreeSet;
use std::path::Path;

use testkit::modules::ModuleGraph;

fn graph() -> ModuleGraph {
    ModuleGraph::of_crate(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")))
}

#[test]
fn no_module_of_the_scheme_code_imports_one_that_imports_it() {
    let g = graph();
    let mut scope: BTreeSet<String> = g
        .under("scheme")
        .chain(g.under("plan"))
        .map(str::to_string)
        .collect();
    assert!(
        scope.contains("scheme::kind") && scope.contains("plan::checked"),
        "{scope:?}"
    );
    let reached: Vec<String> = scope.iter().flat_map(|m| g.reach(m)).collect();
    scope.extend(reached);
    let circles = g.circles(scope.iter().map(String::as_str));
    assert!(
        circles.is_empty(),
        "circles through the scheme code:\n{}",
        circles
            .iter()
            .map(|c| c.join(" -> "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
