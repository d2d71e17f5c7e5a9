// SPDX-License-Identifier: GPL-2.0-only
//! The traffic of `c2tcp cost`: N connections of one congestion control from
//! one namespace to the other, each sender writing 64 KiB chunks on a token
//! bucket so that the kernel does its work in our threads, where the CPU
//! accounting (`cpu.rs`) finds it.
use std::io::{Read, Write};
use std::net::{SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use netns::Netns;

use super::UE;

/// What a sender writes at a time.
const CHUNK: usize = 64 * 1024;

/// N connections of one congestion control, with their sender and receiver
/// threads.
pub(super) struct Group {
    pub(super) cc: String,
    active: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    sent: Arc<AtomicU64>,
    threads: Vec<JoinHandle<Result<()>>>,
}

impl Group {
    pub(super) fn open(
        cc: &str,
        n: usize,
        port: u16,
        server: &Netns,
        ue: &Netns,
        rate_bps: f64,
    ) -> Result<Group> {
        let listener = ue.run(move || TcpListener::bind(SocketAddrV4::new(UE, port)))??;
        let acceptor = std::thread::spawn(move || -> Result<Vec<TcpStream>> {
            (0..n)
                .map(|_| Ok(listener.accept().context("accepting")?.0))
                .collect()
        });
        let cc_name = cc.to_string();
        let senders = server.run(move || -> Result<Vec<TcpStream>> {
            (0..n)
                .map(|_| {
                    let sock = plumbing::tcp::socket_v4()?;
                    sockopt::set_congestion(&sock, &cc_name)
                        .with_context(|| format!("TCP_CONGESTION {cc_name}"))?;
                    let s = plumbing::tcp::connect_v4_within(
                        sock,
                        SocketAddrV4::new(UE, port),
                        Duration::from_secs(10),
                    )?;
                    let got = sockopt::congestion(&s)?;
                    if got != cc_name {
                        bail!("a connection runs {got}, not {cc_name}");
                    }
                    Ok(s)
                })
                .collect()
        })??;
        let receivers = acceptor
            .join()
            .map_err(|_| anyhow::anyhow!("acceptor panicked"))??;
        for s in senders.iter().chain(&receivers) {
            s.set_nonblocking(true)?;
        }
        let active = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let sent = Arc::new(AtomicU64::new(0));
        let threads = vec![
            {
                let (a, s, c) = (active.clone(), stop.clone(), sent.clone());
                std::thread::spawn(move || send_loop(senders, rate_bps, &a, &s, &c))
            },
            {
                let s = stop.clone();
                std::thread::spawn(move || receive_loop(receivers, &s))
            },
        ];
        Ok(Group {
            cc: cc.to_string(),
            active,
            stop,
            sent,
            threads,
        })
    }

    pub(super) fn set_active(&self, on: bool) {
        self.active.store(on, Ordering::SeqCst);
    }

    pub(super) fn sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }

    pub(super) fn close(self) -> Result<()> {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads {
            t.join()
                .map_err(|_| anyhow::anyhow!("a traffic thread of {} panicked", self.cc))??;
        }
        Ok(())
    }
}

/// Writes CHUNK-sized pieces round-robin over the connections, no faster
/// than `rate_bps` (a token bucket that forgives more than 20 ms of lag
/// rather than bursting to catch up).
fn send_loop(
    mut conns: Vec<TcpStream>,
    rate_bps: f64,
    active: &AtomicBool,
    stop: &AtomicBool,
    sent: &AtomicU64,
) -> Result<()> {
    let buf = vec![0u8; CHUNK];
    let bytes_per_ns = rate_bps / 8.0 / 1e9;
    let max_lag = (rate_bps / 8.0 * 0.02) as u64;
    let mut start: Option<(Instant, u64)> = None;
    let mut total = 0u64;
    let mut idx = 0;
    while !stop.load(Ordering::Relaxed) {
        if !active.load(Ordering::Relaxed) {
            start = None;
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        let (t0, s0) = *start.get_or_insert((Instant::now(), total));
        let allowed = (t0.elapsed().as_nanos() as f64 * bytes_per_ns) as u64;
        let done = total - s0;
        if done + CHUNK as u64 > allowed {
            let wait = ((done + CHUNK as u64 - allowed) as f64 / bytes_per_ns) as u64;
            std::thread::sleep(Duration::from_nanos(wait.min(1_000_000)));
            continue;
        }
        if allowed - done > max_lag {
            start = Some((Instant::now(), total));
        }
        let mut blocked = 0;
        loop {
            let n = conns.len();
            match conns[idx].write(&buf) {
                Ok(k) => {
                    total += k as u64;
                    sent.fetch_add(k as u64, Ordering::Relaxed);
                    idx = (idx + 1) % n;
                    break;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    idx = (idx + 1) % n;
                    blocked += 1;
                    if blocked == n {
                        // Every socket buffer is full: wait for room.
                        let mut fds: Vec<_> = conns
                            .iter()
                            .map(|c| {
                                nix::poll::PollFd::new(c.as_fd(), nix::poll::PollFlags::POLLOUT)
                            })
                            .collect();
                        let _ = nix::poll::poll(&mut fds, 2u16);
                        break;
                    }
                }
                Err(e) => return Err(e).context("sending"),
            }
        }
    }
    Ok(())
}

/// Reads and discards everything that arrives.
fn receive_loop(conns: Vec<TcpStream>, stop: &AtomicBool) -> Result<()> {
    use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags};
    let ep = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC)?;
    for (i, c) in conns.iter().enumerate() {
        ep.add(c, EpollEvent::new(EpollFlags::EPOLLIN, i as u64))?;
    }
    let mut events = vec![EpollEvent::empty(); 256];
    let mut buf = vec![0u8; 256 * 1024];
    while !stop.load(Ordering::Relaxed) {
        let n = match ep.wait(&mut events, 100u16) {
            Ok(n) => n,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e).context("epoll_wait"),
        };
        for e in &events[..n] {
            let c = &conns[e.data() as usize];
            loop {
                match (&*c).read(&mut buf) {
                    Ok(0) => {
                        ep.delete(c)?;
                        break;
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e).context("receiving"),
                }
            }
        }
    }
    Ok(())
}

pub(super) fn raise_nofile(need: u64) -> Result<()> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE)?;
    if soft >= need {
        return Ok(());
    }
    let want = need.max(soft).min(hard.max(need));
    setrlimit(Resource::RLIMIT_NOFILE, want, hard.max(want)).with_context(|| {
        format!("raising the open-file limit to {want} ({need} descriptors needed)")
    })
}
