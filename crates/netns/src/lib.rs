// SPDX-License-Identifier: GPL-2.0-only
//! Network namespaces for test hosts, without leftovers.
//!
//! A [`Netns`] is an *anonymous* namespace: it is not bind-mounted under
//! `/run/netns`, so it lives exactly as long as this process holds its file
//! descriptor or a process runs inside it. Children started with
//! [`Netns::command`] get `PR_SET_PDEATHSIG = SIGKILL`, so a crash or a
//! SIGKILL of the caller takes the whole topology down with it and nothing is
//! left for `c2tcp cleanup`. (PDEATHSIG fires when the *thread* that spawned
//! the child exits: spawn from the main thread or from a thread that lives as
//! long as the child.)
//!
//! A fresh namespace has only `lo` (brought up here) and no route to any real
//! interface, so nothing sent inside it can leave the machine.
use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};

use anyhow::{bail, Context, Result};
use nix::sched::{setns, unshare, CloneFlags};

pub struct Netns {
    fd: OwnedFd,
    label: String,
}

impl Netns {
    /// Creates a new, empty network namespace with `lo` up. `label` only
    /// names it in error messages.
    pub fn new(label: &str) -> Result<Self> {
        let fd = std::thread::spawn(|| -> Result<OwnedFd> {
            unshare(CloneFlags::CLONE_NEWNET).context("unshare(CLONE_NEWNET) (needs root)")?;
            let f = File::open("/proc/thread-self/ns/net")
                .context("opening /proc/thread-self/ns/net")?;
            Ok(OwnedFd::from(f))
        })
        .join()
        .map_err(|_| anyhow::anyhow!("namespace thread panicked"))??;
        let ns = Netns {
            fd,
            label: label.to_string(),
        };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    /// The namespace of the calling process (e.g. the caller's side of
    /// `c2tcp emulate`).
    pub fn current(label: &str) -> Result<Self> {
        let f =
            File::open("/proc/thread-self/ns/net").context("opening /proc/thread-self/ns/net")?;
        Ok(Netns {
            fd: OwnedFd::from(f),
            label: label.to_string(),
        })
    }

    /// Another handle on the same namespace (keeps it alive as long as either lives).
    pub fn try_clone(&self) -> Result<Self> {
        Ok(Netns {
            fd: self.fd.try_clone().context("duplicating a namespace fd")?,
            label: self.label.clone(),
        })
    }

    /// The namespace's inode number: equal for two handles on one namespace.
    pub fn inode(&self) -> Result<u64> {
        let st = nix::sys::stat::fstat(self.fd.as_raw_fd()).context("fstat on a namespace fd")?;
        Ok(st.st_ino)
    }

    /// Processes currently inside this namespace (other than this process).
    pub fn pids(&self) -> Result<Vec<i32>> {
        use std::os::unix::fs::MetadataExt;
        let ino = self.inode()?;
        let me = std::process::id() as i32;
        let mut pids = Vec::new();
        for e in std::fs::read_dir("/proc")
            .context("reading /proc")?
            .flatten()
        {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            if pid == me {
                continue;
            }
            if let Ok(m) = std::fs::metadata(format!("/proc/{pid}/ns/net")) {
                if m.ino() == ino {
                    pids.push(pid);
                }
            }
        }
        Ok(pids)
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// A path other programs can open to enter this namespace while this
    /// process lives (what `ip link set ... netns PATH` accepts).
    pub fn proc_path(&self) -> String {
        format!("/proc/{}/fd/{}", std::process::id(), self.fd.as_raw_fd())
    }

    /// Runs `f` on a thread that has entered this namespace: sockets and TUN
    /// devices it creates belong to the namespace.
    pub fn run<T: Send>(&self, f: impl FnOnce() -> T + Send) -> Result<T> {
        std::thread::scope(|s| {
            s.spawn(|| -> Result<T> {
                setns(self.fd.as_fd(), CloneFlags::CLONE_NEWNET)
                    .with_context(|| format!("entering namespace {}", self.label))?;
                Ok(f())
            })
            .join()
            .map_err(|_| anyhow::anyhow!("thread in namespace {} panicked", self.label))?
        })
    }

    /// Spawns a long-lived thread inside this namespace (e.g. a traffic
    /// sender); the thread keeps the namespace alive while it runs.
    pub fn spawn<T: Send + 'static>(
        &self,
        name: &str,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<std::thread::JoinHandle<Result<T>>> {
        let fd = self
            .fd
            .try_clone()
            .context("duplicating the namespace descriptor")?;
        let label = self.label.clone();
        std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || -> Result<T> {
                setns(fd.as_fd(), CloneFlags::CLONE_NEWNET)
                    .with_context(|| format!("entering namespace {label}"))?;
                drop(fd);
                Ok(f())
            })
            .context("spawning a thread")
    }

    /// A command that runs inside this namespace and dies with its parent.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        let fd = self.fd.as_raw_fd();
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        cmd
    }

    /// Runs `ip ARGS...` inside this namespace; fails with its stderr.
    pub fn ip(&self, args: &[&str]) -> Result<()> {
        run_checked(
            self.command("ip").args(args),
            &format!("ip {} (in {})", args.join(" "), self.label),
        )?;
        Ok(())
    }

    /// Writes a sysctl inside this namespace (e.g. `net.ipv4.tcp_congestion_control`).
    pub fn sysctl(&self, key: &str, value: &str) -> Result<()> {
        let path = format!("/proc/sys/{}", key.replace('.', "/"));
        let value = value.to_string();
        self.run(move || std::fs::write(&path, value).with_context(|| format!("writing {path}")))?
    }
}

/// Runs a command, returning its output, or an error carrying its stderr.
pub fn run_checked(cmd: &mut Command, what: &str) -> Result<Output> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {what}"))?;
    if !out.status.success() {
        bail!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out)
}

/// Creates a veth pair `a_if` (in `a`) <-> `b_if` (in `b`), both up.
pub fn veth_pair(a: &Netns, a_if: &str, b: &Netns, b_if: &str) -> Result<()> {
    a.ip(&["link", "add", a_if, "type", "veth", "peer", "name", b_if])?;
    a.ip(&["link", "set", b_if, "netns", &b.proc_path()])?;
    a.ip(&["link", "set", a_if, "up"])?;
    b.ip(&["link", "set", b_if, "up"])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> bool {
        nix::unistd::geteuid().is_root()
    }

    #[test]
    fn namespaces_are_isolated_and_connected_by_veth() {
        if !root() {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true requires root for netns tests"
            );
            eprintln!("skipped: needs root to create network namespaces");
            return;
        }
        let a = Netns::new("a").unwrap();
        let b = Netns::new("b").unwrap();
        veth_pair(&a, "va", &b, "vb").unwrap();
        a.ip(&["addr", "add", "10.99.0.1/24", "dev", "va"]).unwrap();
        b.ip(&["addr", "add", "10.99.0.2/24", "dev", "vb"]).unwrap();
        let out = a
            .command("ping")
            .args(["-c", "1", "-W", "2", "10.99.0.2"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ping across veth failed: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        // The namespace sees only its own devices.
        let links = run_checked(a.command("ip").args(["-o", "link"]), "ip link").unwrap();
        let links = String::from_utf8_lossy(&links.stdout);
        assert!(links.contains("va@") && !links.contains("eth0"), "{links}");
        // A socket made in `run` belongs to the namespace.
        let bound = b
            .run(|| std::net::TcpListener::bind("10.99.0.2:0").is_ok())
            .unwrap();
        assert!(bound);
    }
}
