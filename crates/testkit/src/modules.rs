// SPDX-License-Identifier: GPL-2.0-only
//! A crate's module graph read from its sources, for tests that hold its
//! modules to "none imports, directly or through others, a module that
//! imports it".
//!
//! Each module is a file (`lib.rs` the crate, `a.rs` or `a/mod.rs` the
//! module `a`, `a/b.rs` the module `a::b`), found from `lib.rs` through its
//! `mod` declarations; whatever is under `#[cfg(test)]` is left out (a
//! module's tests may import anything). An edge A → B is any path in A
//! that names B or an item of B: `use crate::b::X`, `super::X` (the parent
//! module), a child module by its name (`use kind::Scheme` in `scheme`'s
//! `mod.rs`), and the same paths in expressions, types and macro
//! arguments. A path names the longest module it starts with, so a
//! re-export counts as an import of the module that re-exports it: a
//! child that takes an item from its parent's re-exports imports its
//! parent. The sources are parsed with `syn`, so comments, strings and
//! doc text never count.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// Modules by their path (`""` the crate root, `"scheme::kind"`), each with
/// the modules it imports.
#[derive(Debug, Default)]
pub struct ModuleGraph {
    pub imports: BTreeMap<String, BTreeSet<String>>,
}

impl ModuleGraph {
    /// Reads the crate whose `lib.rs` is in `src`. Panics on a file it
    /// cannot read or parse (a test's input is the repository's own code).
    pub fn of_crate(src: &Path) -> ModuleGraph {
        let mut files = BTreeMap::new();
        collect(&src.join("lib.rs"), String::new(), &mut files);
        let modules: BTreeSet<String> = files.keys().cloned().collect();
        let mut imports = BTreeMap::new();
        for (module, file) in &files {
            let mut v = Paths {
                module,
                modules: &modules,
                found: BTreeSet::new(),
            };
            v.visit_file(file);
            v.found.remove(module);
            imports.insert(module.clone(), v.found);
        }
        ModuleGraph { imports }
    }

    /// Every module `from` imports, directly or through others.
    pub fn reach(&self, from: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&str> = vec![from];
        while let Some(m) = todo.pop() {
            for next in self.imports.get(m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next);
                }
            }
        }
        seen
    }

    /// Each module among `modules` that imports, directly or through
    /// others, a module that imports it: (module, one such circle as
    /// module names, starting and ending at it).
    pub fn circles<'a>(&self, modules: impl IntoIterator<Item = &'a str>) -> Vec<Vec<String>> {
        modules
            .into_iter()
            .filter_map(|m| self.circle_through(m))
            .collect()
    }

    /// A shortest circle from `m` back to `m`, if any.
    fn circle_through(&self, m: &str) -> Option<Vec<String>> {
        let mut previous: BTreeMap<String, String> = BTreeMap::new();
        let mut frontier = vec![m.to_string()];
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for at in frontier {
                for to in self.imports.get(&at).into_iter().flatten() {
                    if to == m {
                        // at, its predecessors back to m; then reversed.
                        let mut path = vec![at.clone()];
                        while let Some(p) = previous.get(path.last().unwrap()) {
                            path.push(p.clone());
                        }
                        path.reverse();
                        path.push(m.to_string());
                        return Some(path);
                    }
                    if to != m && !previous.contains_key(to) {
                        previous.insert(to.clone(), at.clone());
                        next.push(to.clone());
                    }
                }
            }
            frontier = next;
        }
        None
    }

    /// The modules under `prefix` (`"scheme"`: `scheme` and `scheme::*`).
    pub fn under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.imports.keys().map(String::as_str).filter(move |m| {
            *m == prefix || m.strip_prefix(prefix).is_some_and(|r| r.starts_with("::"))
        })
    }
}

/// Reads `file` as module `module` and the files of the modules it
/// declares (not under `#[cfg(test)]`).
fn collect(file: &Path, module: String, out: &mut BTreeMap<String, syn::File>) {
    let text =
        std::fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
    let parsed =
        syn::parse_file(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", file.display()));
    // A module's children live in its folder: `a/mod.rs`'s and `lib.rs`'s
    // beside them, `a.rs`'s in `a/`.
    let dir: PathBuf = match file.file_name().and_then(|n| n.to_str()) {
        Some("mod.rs" | "lib.rs" | "main.rs") => file.parent().unwrap().to_path_buf(),
        _ => file.with_extension(""),
    };
    let children: Vec<String> = parsed
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) if m.content.is_none() && !for_tests(&m.attrs) => {
                Some(m.ident.to_string())
            }
            _ => None,
        })
        .collect();
    out.insert(module.clone(), parsed);
    for child in children {
        let path = [
            dir.join(format!("{child}.rs")),
            dir.join(&child).join("mod.rs"),
        ]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("module {child} of {}: no file", file.display()));
        let name = if module.is_empty() {
            child
        } else {
            format!("{module}::{child}")
        };
        collect(&path, name, out);
    }
}

/// Whether attributes put an item under `#[cfg(test)]`.
fn for_tests(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// The modules a file's paths name.
struct Paths<'a> {
    module: &'a str,
    modules: &'a BTreeSet<String>,
    found: BTreeSet<String>,
}

impl Paths<'_> {
    /// The module a path (its segments) names from this module, if it
    /// names one of the crate's.
    fn name(&mut self, segments: &[String]) {
        let Some(first) = segments.first() else {
            return;
        };
        let mut base: Vec<&str> = match first.as_str() {
            "crate" => Vec::new(),
            "self" | "super" => self.module.split("::").filter(|s| !s.is_empty()).collect(),
            // A child module by its name.
            child if self.modules.contains(&join(self.module, child)) => {
                self.module.split("::").filter(|s| !s.is_empty()).collect()
            }
            _ => return,
        };
        let mut rest = &segments[..];
        if first == "crate" || first == "self" {
            rest = &rest[1..];
        }
        while rest.first().map(String::as_str) == Some("super") {
            base.pop();
            rest = &rest[1..];
        }
        let mut named = base.join("::");
        for s in rest {
            let longer = join(&named, s);
            if !self.modules.contains(&longer) {
                break;
            }
            named = longer;
        }
        self.found.insert(named);
    }

    /// Paths in a macro's arguments (`bail!`, `vec![crate::x::y()]`): each
    /// `crate`/`super`/`self` followed by `::ident`s.
    fn scan(&mut self, tokens: proc_macro2::TokenStream) {
        let flat: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < flat.len() {
            match &flat[i] {
                proc_macro2::TokenTree::Group(g) => self.scan(g.stream()),
                proc_macro2::TokenTree::Ident(id)
                    if matches!(id.to_string().as_str(), "crate" | "super" | "self") =>
                {
                    let mut segments = vec![id.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(proc_macro2::TokenTree::Punct(a)),
                        Some(proc_macro2::TokenTree::Punct(b)),
                        Some(proc_macro2::TokenTree::Ident(next)),
                    ) = (flat.get(j), flat.get(j + 1), flat.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        segments.push(next.to_string());
                        j += 3;
                    }
                    if segments.len() > 1 {
                        self.name(&segments);
                    }
                    i = j.max(i + 1);
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}::{b}")
    }
}

/// Every path a `use` tree spells out.
fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut p = prefix.clone();
            if n.ident != "self" {
                p.push(n.ident.to_string());
            }
            out.push(p);
        }
        syn::UseTree::Rename(r) => {
            let mut p = prefix.clone();
            p.push(r.ident.to_string());
            out.push(p);
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_paths(t, prefix, out);
            }
        }
    }
}

/// The attributes of an item, for `#[cfg(test)]`.
fn attrs_of(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !for_tests(attrs_of(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !for_tests(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut out = Vec::new();
        use_paths(&u.tree, &mut Vec::new(), &mut out);
        for p in out {
            self.name(&p);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        // A lone name is a local or an item of this module; only a path
        // through a module (`crate::`, `super::`, `child::`) names one.
        if segments.len() > 1 {
            self.name(&segments);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        self.scan(m.tokens.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate written to a folder: `files` as (path under src/, text).
    fn graph(files: &[(&str, &str)]) -> ModuleGraph {
        let dir = std::env::temp_dir().join(format!(
            "testkit-modules-{}-{}",
            std::process::id(),
            files.len()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let g = ModuleGraph::of_crate(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        g
    }

    #[test]
    fn a_child_taking_from_its_parent_closes_a_circle_and_tests_do_not() {
        let g = graph(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            (
                "a/mod.rs",
                "mod kind;\npub use kind::Kind;\n/// crate::b in a comment\npub struct Top;\n",
            ),
            (
                "a/kind.rs",
                "use super::Top;\npub struct Kind;\n#[cfg(test)]\nmod tests { use crate::b::X; }\n",
            ),
            (
                "b.rs",
                "pub struct X;\nfn f() { let _ = vec![crate::a::Top]; }\n",
            ),
        ]);
        assert_eq!(g.imports["a"], BTreeSet::from(["a::kind".to_string()]));
        assert_eq!(g.imports["a::kind"], BTreeSet::from(["a".to_string()]));
        assert_eq!(g.imports["b"], BTreeSet::from(["a".to_string()]));
        assert_eq!(
            g.circles(g.under("a")),
            vec![
                vec!["a".to_string(), "a::kind".into(), "a".into()],
                vec!["a::kind".to_string(), "a".into(), "a::kind".into()],
            ]
        );
        assert!(g.circles(["b"]).is_empty());
        assert!(g.reach("b").contains("a::kind"));
    }
}
