// SPDX-License-Identifier: GPL-2.0-only
//! A result file is whole or absent: it is written under a temporary name
//! in its own directory (`.<name>.<random>.tmp`), synced, and renamed over
//! `path`. A crash, a kill or a full disk leaves the old file or none, never
//! a half-written one; a leftover temporary is a dot-file a resumed run
//! clears with its directory.
#![forbid(unsafe_code)]
use std::fs::{File, OpenOptions, Permissions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes `bytes` to `path` whole.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |w| w.write_all(bytes))
}

/// Writes `path` whole with what `fill` writes into the buffered writer it
/// is given. An error from `fill` leaves `path` as it was.
pub fn write_with<E: From<io::Error>>(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<&File>) -> Result<(), E>,
) -> Result<(), E> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let prefix = format!(".{}.", name.as_deref().unwrap_or("file"));
    let tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".tmp")
        // What fs::write would give (the umask applies), not tempfile's 0600.
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    {
        let mut w = BufWriter::new(tmp.as_file());
        fill(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Rewrites an existing small file in place. Not atomic: only for a record
/// that must be updated when the disk is full (the file already owns its
/// blocks, a new temporary would need more). Fails when `path` is absent.
pub fn overwrite_in_place(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = OpenOptions::new().write(true).open(path)?;
    f.seek(SeekFrom::Start(0))?;
    f.write_all(bytes)?;
    f.set_len(bytes.len() as u64)?;
    f.sync_all()
}

/// Whether an I/O error says the disk (or the quota) is full.
pub fn is_disk_full(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_write_replaces_the_file_and_leaves_no_temporary() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("metrics.json");
        write(&path, b"old\n").unwrap();
        write(&path, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(names(tmp.path()), ["metrics.json"]);
        // Readable like any file fs::write makes (the umask decides).
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_ne!(mode & 0o044, 0, "mode {mode:o}");
    }

    #[test]
    fn a_failed_fill_keeps_the_old_file_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("timeseries.csv");
        write(&path, b"a,b\n1,2\n").unwrap();
        let r = write_with(&path, |w| {
            w.write_all(b"a,b\n3,")?;
            Err(io::Error::other("the writer stopped half-way"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\n1,2\n");
        assert_eq!(names(tmp.path()), ["timeseries.csv"]);
        // A file that never existed stays absent.
        let fresh = tmp.path().join("delay_cdf.csv");
        let r: io::Result<()> = write_with(&fresh, |_| Err(io::Error::other("no")));
        assert!(r.is_err() && !fresh.exists());
    }

    #[test]
    fn in_place_rewrites_shrink_and_need_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("run.json");
        assert!(overwrite_in_place(&path, b"x").is_err());
        write(&path, b"a long first record\n").unwrap();
        overwrite_in_place(&path, b"short\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "short\n");
    }
}
