// SPDX-License-Identifier: GPL-2.0-only
//! Traces travel by content. A bench's job names each trace file its run
//! reads by path *and* SHA-256 ([`TraceRef`]); the machine that runs the job
//! (another shard, a Ray worker) checks both before anything starts. A
//! worker without the file at that path looks it up by name where this
//! machine keeps traces (`$C2TCP_TRACES`, the installed share directory) and
//! takes it if the content matches; a worker with a different file fails the
//! job with an error naming both checksums, instead of measuring the wrong
//! trace.
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::plan::CheckedScenario;

/// One trace file a job reads, as the machine that listed it saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceRef {
    /// Absolute path on the listing machine.
    pub path: PathBuf,
    /// Hex SHA-256 of the file's bytes.
    pub sha256: String,
}

/// Hex SHA-256 of a file.
pub fn sha256_of(path: &Path) -> Result<String> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buf)
            .with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// Checksums once per file, however many jobs read it.
#[derive(Default)]
pub struct Checksums(HashMap<PathBuf, String>);

impl Checksums {
    pub fn of(&mut self, path: &Path) -> Result<TraceRef> {
        let sum = match self.0.get(path) {
            Some(s) => s.clone(),
            None => {
                let s = sha256_of(path)?;
                self.0.insert(path.to_path_buf(), s.clone());
                s
            }
        };
        Ok(TraceRef {
            path: path.to_path_buf(),
            sha256: sum,
        })
    }
}

/// Checks that this machine has every trace `checked` reads with the
/// content the job names, and returns it with each link field pointing at
/// the file found (the same path, or one looked up by name here).
pub fn verify(mut checked: CheckedScenario, traces: &[TraceRef]) -> Result<CheckedScenario> {
    for t in traces {
        let found = locate(t)?;
        if found != t.path {
            checked.relocate_file(&t.path.display().to_string(), &found.display().to_string());
        }
    }
    Ok(checked)
}

/// Where this machine has the trace `t` names, with its content.
fn locate(t: &TraceRef) -> Result<PathBuf> {
    if t.path.is_file() {
        let here = sha256_of(&t.path)?;
        if here != t.sha256 {
            bail!(
                "trace {}: this machine's file has SHA-256 {here}, the job's has {}; \
                 it is a different trace, so the run would measure the wrong link \
                 (copy the bench's traces to this machine)",
                t.path.display(),
                t.sha256
            );
        }
        return Ok(t.path.clone());
    }
    // Not at that path: the same file under this machine's trace directories?
    let name = t.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if let Ok(alt) = crate::data::resolve_trace(name, None) {
        if alt != t.path && sha256_of(&alt)? == t.sha256 {
            return Ok(alt);
        }
    }
    bail!(
        "trace {}: not on this machine (nor a file with SHA-256 {} under its trace \
         directories); copy the bench's traces to every worker",
        t.path.display(),
        t.sha256
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(down: &Path) -> CheckedScenario {
        CheckedScenario::parse(&format!(
            "[link]\ndownlink = \"{}\"\nuplink = \"constant:12\"\nduration_s = 5\n[[flows]]\nscheme = \"cubic\"\n",
            down.display()
        ))
        .unwrap()
    }

    #[test]
    fn a_trace_is_checked_by_content() {
        let tmp = tempfile::tempdir().unwrap();
        let down = tmp.path().join("X.down");
        std::fs::write(&down, "1\n2\n3\n").unwrap();
        let r = Checksums::default().of(&down).unwrap();
        // SHA-256 of "1\n2\n3\n".
        assert_eq!(r.sha256.len(), 64);
        let sc = scenario(&down);
        let same = verify(sc.clone(), std::slice::from_ref(&r)).unwrap();
        assert_eq!(same.scenario(), sc.scenario());
        // The same name, other content: refused, both checksums named.
        std::fs::write(&down, "1\n2\n4\n").unwrap();
        let e = format!(
            "{:#}",
            verify(sc.clone(), std::slice::from_ref(&r)).unwrap_err()
        );
        assert!(
            e.contains("different trace") && e.contains(&r.sha256),
            "{e}"
        );
        // Gone: refused, the path named.
        std::fs::remove_file(&down).unwrap();
        let e = format!("{:#}", verify(sc, &[r]).unwrap_err());
        assert!(
            e.contains("not on this machine") && e.contains("X.down"),
            "{e}"
        );
    }
}
