// SPDX-License-Identifier: GPL-2.0-only
//! Schemes as files: one small TOML file declares a scheme, and no Rust
//! changes to add one (docs/schemes.md). Three kinds:
//!
//! - `kernel`: a congestion control the kernel has (`cc`), run by our own
//!   traffic generator like the built-in TCP schemes;
//! - `bpf`: a user's compiled struct_ops object (`object`, relative to the
//!   file) registering the congestion control `cc`; loaded for the run and
//!   unloaded after (`bpfload::object`, refcounted as ours are);
//! - `command`: a `receiver` and a `sender` command line, Pantheon-style,
//!   run in the receiver's and the sender's namespaces (`flows/command.rs`)
//!   and measured from the emulator's logs like every other scheme.
//!
//! Command lines are split like a shell would (no shell runs them) and take
//! placeholders: `{addr}` (the receiver's address), `{sender_addr}`,
//! `{port}`, `{duration}` (whole seconds), `{out}` (the flow's own output
//! folder), `{dir}` (the scheme file's folder) and `{NAME}` for each knob
//! the file declares under `[knobs.NAME]` (its value, else its `default`).
//! `{{` and `}}` are literal braces.
//!
//! Where they come from, in order: the data root's `schemes/` (the
//! repository's, or `PREFIX/share/c2tcp/schemes` when installed), the folder
//! `$C2TCP_SCHEMES`, and each `--scheme-file`. A name may be declared once
//! (a built-in name not at all); a bad file is refused before anything
//! starts, naming the file, the line and the field. A bench hands the files
//! its jobs use to its `c2tcp run --job` children inside each job
//! ([`Carried`]), so a child sees the same definitions as its bench.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::builtin;
use super::kind::{cc_name_ok, CommandSpec, Kind, Scheme};
use super::knob::Knob;

/// The placeholders every command line may use, besides the knobs.
pub const PLACEHOLDERS: &[&str] = &["addr", "sender_addr", "port", "duration", "out", "dir"];

/// A scheme file as read from disk (or carried in a bench's job): enough to
/// parse it again anywhere, with the same errors.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Carried {
    pub path: PathBuf,
    pub text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Model {
    name: Option<Spanned<String>>,
    summary: Option<String>,
    kind: Spanned<String>,
    cc: Option<Spanned<String>>,
    object: Option<Spanned<String>>,
    sender: Option<Spanned<String>>,
    receiver: Option<Spanned<String>>,
    #[serde(default)]
    knobs: BTreeMap<String, Spanned<KnobModel>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KnobModel {
    about: String,
    min: f64,
    max: f64,
    default: Option<f64>,
    /// A `kernel` or `bpf` scheme's knob: the per-namespace sysctl it sets.
    sysctl: Option<String>,
}

/// One scheme read from a file.
#[derive(Debug, Clone)]
pub struct FileScheme {
    pub carried: Carried,
    pub scheme: Scheme,
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Parses a scheme file's text; `path` names it in errors and anchors
/// `object` and `{dir}`. Checks everything that needs neither root nor the
/// kernel: the kind and its fields, the placeholders, the knobs, the BPF
/// object (exists, is one, has one struct_ops map).
pub fn parse(c: &Carried) -> Result<FileScheme> {
    let file = c.path.display();
    let m: Model = toml::from_str(&c.text).map_err(|e| anyhow!("{file}: {e}"))?;
    let at = |span: std::ops::Range<usize>, field: &str| {
        format!("{file}:{}: {field}", line_of(&c.text, span.start))
    };
    let dir = c.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = match &m.name {
        Some(n) => {
            if !name_ok(n.get_ref()) {
                bail!(
                    "{}: `{}` is not a scheme name (letters, digits, - _ .)",
                    at(n.span(), "name"),
                    n.get_ref()
                );
            }
            n.get_ref().clone()
        }
        None => c
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| name_ok(s))
            .with_context(|| {
                format!("{file}: name: give the scheme a name (the file's stem is not one)")
            })?,
    };
    if builtin::find(&name).is_some() || builtin::is_parametric(&name) {
        let at = m
            .name
            .as_ref()
            .map(|n| at(n.span(), "name"))
            .unwrap_or_else(|| format!("{file}: name"));
        bail!("{at}: `{name}` is a built-in scheme; give yours another name");
    }
    let mut knobs = Vec::new();
    for (k, spec) in &m.knobs {
        let field = format!("knobs.{k}");
        let v = spec.get_ref();
        if !name_ok(k) || PLACEHOLDERS.contains(&k.as_str()) {
            bail!("{}: `{k}` cannot name a knob", at(spec.span(), &field));
        }
        if !(v.min.is_finite() && v.max.is_finite() && v.min <= v.max) {
            bail!("{}: need finite min <= max", at(spec.span(), &field));
        }
        if let Some(d) = v.default {
            if !(v.min..=v.max).contains(&d) {
                bail!(
                    "{}: default {d} is outside [{}, {}]",
                    at(spec.span(), &field),
                    v.min,
                    v.max
                );
            }
        }
        let sysctl = match &v.sysctl {
            None => None,
            Some(name) => {
                check_sysctl(name, v)
                    .map_err(|e| anyhow!("{}.sysctl: {e}", at(spec.span(), &field)))?;
                Some(leak(name))
            }
        };
        // Read once per process and kept for its life, as the built-in
        // knobs' static strings are.
        knobs.push(Knob {
            name: leak(k),
            about: leak(&v.about),
            min: v.min,
            max: v.max,
            word: None,
            default: v.default,
            sysctl,
        });
    }
    // A knob of a TCP scheme sets a sysctl; a command's fills a placeholder.
    let takes_sysctls = matches!(m.kind.get_ref().as_str(), "kernel" | "bpf");
    for (k, spec) in &m.knobs {
        let field = format!("knobs.{k}");
        match (&spec.get_ref().sysctl, takes_sysctls) {
            (None, true) => bail!(
                "{}: a `{}` scheme's knob sets a per-namespace sysctl: give `sysctl` (e.g. \"net.ipv4.tcp_ecn\")",
                at(spec.span(), &field),
                m.kind.get_ref()
            ),
            (Some(_), false) => bail!(
                "{}: a `{}` scheme's knob is a placeholder, not a sysctl (`sysctl` is for kernel and bpf schemes)",
                at(spec.span(), &field),
                m.kind.get_ref()
            ),
            _ => {}
        }
    }
    let need = |f: &Option<Spanned<String>>, field: &str| -> Result<Spanned<String>> {
        f.clone().ok_or_else(|| {
            anyhow!(
                "{file}: {field}: a `{}` scheme needs `{field}`",
                m.kind.get_ref()
            )
        })
    };
    let refuse = |f: &Option<Spanned<String>>, field: &str| -> Result<()> {
        match f {
            Some(v) => bail!(
                "{}: a `{}` scheme takes no `{field}`",
                at(v.span(), field),
                m.kind.get_ref()
            ),
            None => Ok(()),
        }
    };
    let kind = match m.kind.get_ref().as_str() {
        "kernel" => {
            for (f, n) in [
                (&m.object, "object"),
                (&m.sender, "sender"),
                (&m.receiver, "receiver"),
            ] {
                refuse(f, n)?;
            }
            let cc = need(&m.cc, "cc")?;
            check_cc(cc.get_ref()).map_err(|e| anyhow!("{}: {e}", at(cc.span(), "cc")))?;
            Kind::Kernel {
                cc: leak(cc.get_ref()),
            }
        }
        "bpf" => {
            for (f, n) in [(&m.sender, "sender"), (&m.receiver, "receiver")] {
                refuse(f, n)?;
            }
            let cc = need(&m.cc, "cc")?;
            check_cc(cc.get_ref()).map_err(|e| anyhow!("{}: {e}", at(cc.span(), "cc")))?;
            if bpfload::cc::spec(cc.get_ref()).is_ok() {
                bail!(
                    "{}: `{}` is one of c2tcp's own BPF congestion controls",
                    at(cc.span(), "cc"),
                    cc.get_ref()
                );
            }
            let obj = need(&m.object, "object")?;
            let path = dir.join(obj.get_ref());
            bpfload::object::inspect(&path)
                .map_err(|e| anyhow!("{}: {e:#}", at(obj.span(), "object")))?;
            let path = path.canonicalize().unwrap_or(path);
            Kind::BpfObject {
                cc: leak(cc.get_ref()),
                object: path,
            }
        }
        "command" => {
            for (f, n) in [(&m.cc, "cc"), (&m.object, "object")] {
                refuse(f, n)?;
            }
            let known: Vec<&str> = PLACEHOLDERS
                .iter()
                .copied()
                .chain(knobs.iter().map(|k| k.name))
                .collect();
            let words = |f: &Option<Spanned<String>>, field: &str| -> Result<Vec<String>> {
                let line = need(f, field)?;
                let w = shlex::split(line.get_ref())
                    .filter(|w| !w.is_empty())
                    .ok_or_else(|| {
                        anyhow!(
                            "{}: not a command line (unbalanced quotes?)",
                            at(line.span(), field)
                        )
                    })?;
                for word in &w {
                    check_placeholders(word, &known)
                        .map_err(|e| anyhow!("{}: {e}", at(line.span(), field)))?;
                }
                Ok(w)
            };
            let receiver = words(&m.receiver, "receiver")?;
            let sender = words(&m.sender, "sender")?;
            Kind::Command(CommandSpec {
                receiver,
                sender,
                dir: dir.clone(),
            })
        }
        other => bail!(
            "{}: unknown kind `{other}`; a scheme file's kind is kernel, bpf or command",
            at(m.kind.span(), "kind")
        ),
    };
    let summary = m
        .summary
        .clone()
        .unwrap_or_else(|| format!("{} (from {file})", m.kind.get_ref()));
    Ok(FileScheme {
        carried: c.clone(),
        scheme: Scheme {
            name,
            summary: leak(&summary),
            kind,
            knobs,
        },
    })
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn name_ok(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// A knob's sysctl: a per-namespace one under `net.` that this kernel has,
/// taking whole numbers. Whatever the name, it is only ever written inside
/// the run's namespaces (a sysctl that is not per-namespace is not there).
fn check_sysctl(name: &str, k: &KnobModel) -> Result<(), String> {
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c));
    if !name.starts_with("net.") || !ok_chars || name.contains("..") || name.ends_with('.') {
        return Err(format!(
            "`{name}` is not a network sysctl (net.ipv4.tcp_ecn, net.ipv4.tcp_notsent_lowat, ...): \
             only the run's network namespaces are ever changed"
        ));
    }
    let path = Path::new("/proc/sys").join(name.replace('.', "/"));
    if !path.is_file() {
        return Err(format!(
            "`{name}`: this kernel has no such sysctl ({} is absent)",
            path.display()
        ));
    }
    let whole = |v: f64| v.fract() == 0.0;
    if !(whole(k.min) && whole(k.max) && k.default.is_none_or(whole)) {
        return Err(format!(
            "`{name}` takes whole numbers: give min, max and default as integers"
        ));
    }
    Ok(())
}

fn check_cc(cc: &str) -> Result<(), String> {
    if cc_name_ok(cc) {
        Ok(())
    } else {
        Err(format!(
            "`{cc}` is not a congestion-control name (1-15 letters, digits, - _)"
        ))
    }
}

/// Every `{name}` in `word` must be known; `{{`/`}}` are literal braces.
fn check_placeholders(word: &str, known: &[&str]) -> Result<(), String> {
    substitute(word, &|name| known.contains(&name).then(String::new)).map(drop)
}

/// `word` with each `{name}` replaced by `value(name)`; an unknown name or
/// an unclosed brace is an error naming it.
pub fn substitute(word: &str, value: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = word;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push(tail.as_bytes()[0] as char);
            rest = &tail[2..];
            continue;
        }
        if tail.starts_with('}') {
            return Err(format!("`{word}`: a lone `}}` (write `}}}}` for a brace)"));
        }
        let Some(end) = tail.find('}') else {
            return Err(format!(
                "`{word}`: `{{` is not closed (write `{{{{` for a brace)"
            ));
        };
        let name = &tail[1..end];
        match value(name) {
            Some(v) => out.push_str(&v),
            None => return Err(format!("unknown placeholder `{{{name}}}` in `{word}`")),
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

// ---- the schemes this process knows from files ----

/// `None` until first used: then the data root's `schemes/` and
/// `$C2TCP_SCHEMES`, plus what `add` and `add_carried` brought.
static LOADED: Mutex<Option<Vec<FileScheme>>> = Mutex::new(None);

/// The folder of scheme files named by `$C2TCP_SCHEMES`.
pub const SCHEMES_ENV: &str = "C2TCP_SCHEMES";

/// The `*.toml` files of a folder, sorted.
fn toml_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    Ok(v)
}

fn read(path: &Path) -> Result<Carried> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading scheme file {}", path.display()))?;
    Ok(Carried {
        path: path.to_path_buf(),
        text,
    })
}

fn defaults() -> Result<Vec<FileScheme>> {
    let mut dirs = Vec::new();
    if let Some(root) = crate::data::data_root() {
        if root.join("schemes").is_dir() {
            dirs.push(root.join("schemes"));
        }
    }
    if let Some(d) = std::env::var_os(SCHEMES_ENV) {
        let d = PathBuf::from(d);
        if !d.is_dir() {
            bail!("{SCHEMES_ENV}={} is not a directory", d.display());
        }
        dirs.push(d);
    }
    let mut out: Vec<FileScheme> = Vec::new();
    for d in dirs {
        for p in toml_files(&d)? {
            insert(&mut out, parse(&read(&p)?)?, false)?;
        }
    }
    Ok(out)
}

/// Adds `s`; a name already declared by another file is refused, unless
/// `replace` (a bench's carried definition is the one its child runs).
fn insert(all: &mut Vec<FileScheme>, s: FileScheme, replace: bool) -> Result<()> {
    match all.iter_mut().find(|o| o.scheme.name == s.scheme.name) {
        Some(o) if o.carried == s.carried => {}
        Some(o) if replace => *o = s,
        Some(o) => bail!(
            "{}: scheme `{}` is declared already by {}",
            s.carried.path.display(),
            s.scheme.name,
            o.carried.path.display()
        ),
        None => all.push(s),
    }
    Ok(())
}

fn with_loaded<R>(f: impl FnOnce(&mut Vec<FileScheme>) -> Result<R>) -> Result<R> {
    let mut guard = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    if guard.is_none() {
        *guard = Some(defaults()?);
    }
    f(guard.as_mut().expect("loaded above"))
}

/// Reads and adds `--scheme-file`s (each checked whole first).
pub fn add(paths: &[PathBuf]) -> Result<()> {
    let parsed: Vec<FileScheme> = paths
        .iter()
        .map(|p| read(p).and_then(|c| parse(&c)))
        .collect::<Result<_>>()?;
    with_loaded(|all| parsed.into_iter().try_for_each(|s| insert(all, s, false)))
}

/// Adds the definitions a bench carried in a job (replacing this process's
/// own of the same name: the bench's are the ones its runs use).
pub fn add_carried(carried: &[Carried]) -> Result<()> {
    let parsed: Vec<FileScheme> = carried.iter().map(parse).collect::<Result<_>>()?;
    with_loaded(|all| parsed.into_iter().try_for_each(|s| insert(all, s, true)))
}

/// The file scheme named `name`, if any.
pub(crate) fn find(name: &str) -> Result<Option<Scheme>> {
    with_loaded(|all| {
        Ok(all
            .iter()
            .find(|s| s.scheme.name == name)
            .map(|s| s.scheme.clone()))
    })
}

/// The `bpf` file scheme that registers the kernel name `cc`, if any.
pub(crate) fn find_by_cc(cc: &str) -> Option<Kind> {
    with_loaded(|all| {
        Ok(all
            .iter()
            .map(|s| &s.scheme.kind)
            .find(|k| matches!(k, Kind::BpfObject { cc: c, .. } if *c == cc))
            .cloned())
    })
    .ok()
    .flatten()
}

/// The names of the file schemes, sorted.
pub(crate) fn names() -> Result<Vec<String>> {
    with_loaded(|all| {
        let mut v: Vec<String> = all.iter().map(|s| s.scheme.name.clone()).collect();
        v.sort();
        Ok(v)
    })
}

/// The files that declare `names` (those that are file schemes), for a job.
pub fn carried_for<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Vec<Carried>> {
    // A receiver-side scheme's sender (`dfcsd+mine`) may be a file's.
    let names: Vec<&str> = names
        .into_iter()
        .flat_map(|n| [Some(n), n.split_once('+').map(|(_, cc)| cc)])
        .flatten()
        .collect();
    with_loaded(|all| {
        Ok(all
            .iter()
            .filter(|s| names.contains(&s.scheme.name.as_str()))
            .map(|s| s.carried.clone())
            .collect())
    })
}
