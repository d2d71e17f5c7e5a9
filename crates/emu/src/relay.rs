// SPDX-License-Identifier: GPL-2.0-only
//! The double buffer between the forwarding loop and a file, shared by the
//! log (`log.rs`) and the packet capture (`pcap.rs`): the loop appends to a
//! pre-allocated buffer without allocating or touching the disk; a full
//! buffer (or, on `tick`, any half a second old) goes to a writer thread,
//! which writes it, clears it and sends it back as the next spare. The
//! first write error is kept in [`LogHealth`] for the run to see at once.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

use anyhow::{Context, Result};

use crate::clock::Micros;
use crate::log::LogHealth;

/// How long a non-empty buffer may wait for the writer, so what the file
/// holds (and a write error) shows within a second.
pub(crate) const HAND_OVER_US: Micros = 500_000;

pub(crate) struct Relay<T: Send + 'static> {
    /// What is written, for errors ("log", "capture").
    what: &'static str,
    path: PathBuf,
    /// The loop appends here; it never grows past its capacity.
    pub(crate) buf: Vec<T>,
    capacity: usize,
    full: Option<mpsc::Sender<Vec<T>>>,
    spare: mpsc::Receiver<Vec<T>>,
    writer: Option<JoinHandle<std::io::Result<()>>>,
    health: LogHealth,
    /// When the buffer next goes to the writer however full it is.
    hand_over_at: Micros,
}

impl<T: Send + 'static> Relay<T> {
    /// Starts the writer thread `thread` over `out`, which `write` writes
    /// each handed-over buffer to; buffers hold `capacity` items; `now` is
    /// the monotonic µs the first half-second counts from.
    pub(crate) fn spawn<W, F>(
        what: &'static str,
        thread: &str,
        path: &Path,
        capacity: usize,
        now: Micros,
        mut out: W,
        mut write: F,
    ) -> Result<Self>
    where
        W: Write + Send + 'static,
        F: FnMut(&mut W, &[T]) -> std::io::Result<()> + Send + 'static,
    {
        let (full_tx, full_rx) = mpsc::channel::<Vec<T>>();
        let (spare_tx, spare_rx) = mpsc::channel::<Vec<T>>();
        let health = LogHealth::default();
        let (writer_health, writer_path) = (health.clone(), path.to_path_buf());
        let writer = std::thread::Builder::new()
            .name(thread.into())
            .spawn(move || {
                let written = (|| {
                    for mut buf in full_rx {
                        write(&mut out, &buf)?;
                        buf.clear();
                        let _ = spare_tx.send(buf);
                    }
                    out.flush()
                })();
                // Stop at the first error: the file has a hole from here on.
                if let Err(e) = &written {
                    writer_health.fail(&writer_path, e);
                }
                written
            })?;
        Ok(Relay {
            what,
            path: path.into(),
            buf: Vec::with_capacity(capacity),
            capacity,
            full: Some(full_tx),
            spare: spare_rx,
            writer: Some(writer),
            health,
            hand_over_at: now + HAND_OVER_US,
        })
    }

    pub(crate) fn health(&self) -> LogHealth {
        self.health.clone()
    }

    /// Called by the forwarding loop once per wake-up (not per packet):
    /// hands the buffer over when it has waited long enough.
    #[inline]
    pub(crate) fn tick(&mut self, now: Micros) {
        if now >= self.hand_over_at {
            self.hand_over_at = now + HAND_OVER_US;
            if !self.buf.is_empty() {
                self.hand_over();
            }
        }
    }

    /// Sends the buffer to the writer and takes a spare (a new one only
    /// while the writer has none to give back).
    pub(crate) fn hand_over(&mut self) {
        let next = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(self.capacity));
        let full = std::mem::replace(&mut self.buf, next);
        if let Some(tx) = &self.full {
            let _ = tx.send(full);
        }
    }

    /// Writes out what is left, joins the writer and says how it went.
    pub(crate) fn close(&mut self) -> Result<()> {
        let Some(tx) = self.full.take() else {
            return Ok(());
        };
        let _ = tx.send(std::mem::take(&mut self.buf));
        drop(tx);
        let writer = self.writer.take().expect("writer present until close");
        writer
            .join()
            .map_err(|_| {
                anyhow::anyhow!("{} writer for {} panicked", self.what, self.path.display())
            })?
            .with_context(|| format!("writing {}", self.path.display()))
    }
}

impl<T: Send + 'static> Drop for Relay<T> {
    fn drop(&mut self) {
        let _ = self.close();
    }
}
