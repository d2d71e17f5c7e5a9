// SPDX-License-Identifier: GPL-2.0-only
//! OS plumbing in one place, with a safe interface built on `nix`: the flag
//! that SIGINT/SIGTERM/SIGHUP raise, waiting on one descriptor until a
//! deadline, the clocks, signalling a process, and a TCP socket that can be
//! configured (congestion control, socket options) before it connects.
//!
//! Two `unsafe` blocks, each allowed where it is: installing the signal
//! handler (`sigaction` is unsafe in nix because a handler must be
//! async-signal-safe; ours only stores into atomics) and `localtime_r`,
//! which nix does not wrap.
#![deny(unsafe_code)]

pub use nix::poll::PollFlags;
pub use nix::sys::signal::Signal;

/// Stop signals: the handler only raises a flag (and remembers which signal
/// it was); the code polls the flag, tears down and keeps what it measured.
pub mod signals {
    use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

    use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};

    static STOP: AtomicBool = AtomicBool::new(false);
    static LAST: AtomicI32 = AtomicI32::new(0);

    extern "C" fn on_signal(sig: nix::libc::c_int) {
        LAST.store(sig, Ordering::SeqCst);
        STOP.store(true, Ordering::SeqCst);
    }

    /// Whether a system call the signal interrupts is restarted.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Restart {
        /// SA_RESTART, what glibc's `signal()` sets.
        Yes,
        /// Blocking calls return EINTR (a sleep in `ppoll` wakes at once).
        No,
    }

    /// Makes each of `signals` raise the returned flag instead of ending
    /// the process. One flag per process, whichever signals raise it.
    pub fn catch(signals: &[Signal], restart: Restart) -> nix::Result<&'static AtomicBool> {
        let flags = match restart {
            Restart::Yes => SaFlags::SA_RESTART,
            Restart::No => SaFlags::empty(),
        };
        let action = SigAction::new(SigHandler::Handler(on_signal), flags, SigSet::empty());
        for &sig in signals {
            // SAFETY: the handler only stores into atomics (async-signal-safe).
            #[allow(unsafe_code)]
            unsafe { sigaction(sig, &action) }?;
        }
        Ok(&STOP)
    }

    /// The flag [`catch`] returns.
    pub fn flag() -> &'static AtomicBool {
        &STOP
    }

    /// The last signal caught, if any.
    pub fn last() -> Option<Signal> {
        Signal::try_from(LAST.load(Ordering::SeqCst)).ok()
    }
}

/// Waiting on one descriptor.
pub mod wait {
    use std::io;
    use std::os::fd::AsFd;
    use std::time::Duration;

    use nix::errno::Errno;
    use nix::poll::{poll, ppoll, PollFd, PollFlags, PollTimeout};
    use nix::sys::time::TimeSpec;

    /// poll(2) `fd` for `events` for at most `timeout` (whole ms, rounded
    /// down). True when it is ready; false on timeout or a signal (EINTR).
    pub fn ready(fd: impl AsFd, events: PollFlags, timeout: Duration) -> io::Result<bool> {
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        let mut fds = [PollFd::new(fd.as_fd(), events)];
        match poll(
            &mut fds,
            PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX),
        ) {
            Ok(0) | Err(Errno::EINTR) => Ok(false),
            Ok(_) => Ok(true),
            Err(e) => Err(e.into()),
        }
    }

    /// ppoll(2) `fd` for `events` for at most `timeout` (ns precision), for
    /// loops that look at the descriptor and their deadlines again however
    /// the sleep ended (ready, timeout, a signal or an error).
    #[inline]
    pub fn sleep(fd: impl AsFd, events: PollFlags, timeout: Duration) {
        let mut fds = [PollFd::new(fd.as_fd(), events)];
        let _ = ppoll(&mut fds, Some(TimeSpec::from_duration(timeout)), None);
    }

    /// [`sleep`] until `deadline_us` of [`crate::clock::monotonic_us`].
    pub fn sleep_until_us(fd: impl AsFd, events: PollFlags, deadline_us: u64) {
        let now = crate::clock::monotonic_us();
        sleep(
            fd,
            events,
            Duration::from_micros(deadline_us.saturating_sub(now)),
        );
    }
}

/// The clocks.
pub mod clock {
    use nix::time::{clock_gettime, ClockId};

    #[inline]
    fn us(id: ClockId) -> u64 {
        let t = clock_gettime(id).expect("clock_gettime");
        t.tv_sec() as u64 * 1_000_000 + t.tv_nsec() as u64 / 1_000
    }

    /// CLOCK_MONOTONIC in µs (a vDSO call, no syscall): never steps, and one
    /// clock for every process on the machine, in every network namespace.
    #[inline]
    pub fn monotonic_us() -> u64 {
        us(ClockId::CLOCK_MONOTONIC)
    }

    /// CLOCK_REALTIME in µs since the Unix epoch.
    pub fn realtime_us() -> u64 {
        us(ClockId::CLOCK_REALTIME)
    }

    /// CPU time of the calling thread, ns.
    pub fn thread_cpu_ns() -> u64 {
        let t = clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).expect("CLOCK_THREAD_CPUTIME_ID");
        t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64
    }

    /// Local wall-clock time, `YYYY-MM-DD HH:MM:SS` ("?" if the C library
    /// cannot tell).
    pub fn local_time_now() -> String {
        use nix::libc;
        // SAFETY: time and localtime_r write only into the values we pass.
        #[allow(unsafe_code)]
        let tm = unsafe {
            let t = libc::time(std::ptr::null_mut());
            let mut tm: libc::tm = std::mem::zeroed();
            if libc::localtime_r(&t, &mut tm).is_null() {
                return String::from("?");
            }
            tm
        };
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            tm.tm_year + 1900,
            tm.tm_mon + 1,
            tm.tm_mday,
            tm.tm_hour,
            tm.tm_min,
            tm.tm_sec
        )
    }

    /// Makes this thread's timed sleeps wake as close to the deadline as the
    /// kernel can (timer slack 1 ns, the minimum; 0 would mean "default").
    pub fn set_minimal_timer_slack() {
        let _ = nix::sys::prctl::set_timerslack(1);
    }
}

/// Signalling processes.
pub mod process {
    use std::process::Child;

    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;

    /// kill(2): `pid` > 0 one process, < 0 the process group -pid. True
    /// when the signal was delivered.
    pub fn signal(pid: i32, sig: Signal) -> bool {
        kill(Pid::from_raw(pid), sig).is_ok()
    }

    /// SIGTERM to our own child (not yet reaped): it may still write its
    /// results, unlike `Child::kill`'s SIGKILL.
    pub fn terminate(child: &Child) -> bool {
        signal(child.id() as i32, Signal::SIGTERM)
    }
}

/// flock(2) on whole files: the lock belongs to the open file (shared by
/// its duplicates and children that inherit it) and goes when the last
/// descriptor of it closes. Retried on EINTR.
pub mod lock {
    use std::io;
    use std::os::fd::{AsFd, AsRawFd};

    use nix::errno::Errno;
    #[allow(deprecated)] // nix's Flock unlocks on drop: not what an inherited lock needs
    use nix::fcntl::{flock, FlockArg};

    #[allow(deprecated)]
    fn call(fd: impl AsFd, arg: FlockArg) -> nix::Result<()> {
        loop {
            match flock(fd.as_fd().as_raw_fd(), arg) {
                Err(Errno::EINTR) => continue,
                r => return r,
            }
        }
    }

    /// An exclusive lock without waiting: false when another open file holds it.
    pub fn try_exclusive(fd: impl AsFd) -> io::Result<bool> {
        match call(fd, FlockArg::LockExclusiveNonblock) {
            Ok(()) => Ok(true),
            Err(Errno::EWOULDBLOCK) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// An exclusive lock, waiting for it.
    pub fn exclusive(fd: impl AsFd) -> io::Result<()> {
        Ok(call(fd, FlockArg::LockExclusive)?)
    }

    /// A shared lock, waiting while another open file holds it exclusively.
    /// On a file this one holds exclusively it converts the lock (flock
    /// drops the old one first, not atomically).
    pub fn shared(fd: impl AsFd) -> io::Result<()> {
        Ok(call(fd, FlockArg::LockShared)?)
    }
}

/// A TCP socket configured before it connects (the congestion control and
/// C2TCP's options must be set before the SYN).
pub mod tcp {
    use std::io;
    use std::net::{SocketAddrV4, TcpStream};
    use std::os::fd::{AsRawFd, OwnedFd};

    use nix::sys::socket::{connect, socket, AddressFamily, SockFlag, SockType, SockaddrIn};

    /// A new IPv4 TCP socket (close-on-exec), not yet connected.
    pub fn socket_v4() -> io::Result<OwnedFd> {
        Ok(socket(
            AddressFamily::Inet,
            SockType::Stream,
            SockFlag::SOCK_CLOEXEC,
            None,
        )?)
    }

    /// Connects `sock` to `dst` (blocking) and hands it over as a stream.
    pub fn connect_v4(sock: OwnedFd, dst: SocketAddrV4) -> io::Result<TcpStream> {
        connect(sock.as_raw_fd(), &SockaddrIn::from(dst))?;
        Ok(TcpStream::from(sock))
    }

    /// As [`connect_v4`], giving up after `limit` (`TimedOut`): a link in
    /// outage would otherwise hold a blocking connect through every SYN
    /// retry, a minute or more, far past the run's end. Linux bounds a
    /// blocking connect by SO_SNDTIMEO (EINPROGRESS when it expires); the
    /// timeout is cleared again once connected.
    pub fn connect_v4_within(
        sock: OwnedFd,
        dst: SocketAddrV4,
        limit: std::time::Duration,
    ) -> io::Result<TcpStream> {
        use nix::sys::socket::{setsockopt, sockopt::SendTimeout};
        use nix::sys::time::TimeVal;
        // A zero SO_SNDTIMEO means "no timeout": wait at least 1 ms.
        let limit = limit.max(std::time::Duration::from_millis(1));
        setsockopt(&sock, SendTimeout, &TimeVal::from(libc_timeval(limit)))?;
        match connect(sock.as_raw_fd(), &SockaddrIn::from(dst)) {
            Ok(()) => {}
            Err(nix::errno::Errno::EINPROGRESS) => {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no connection within {:.1} s", limit.as_secs_f64()),
                ))
            }
            Err(e) => return Err(e.into()),
        }
        setsockopt(&sock, SendTimeout, &TimeVal::new(0, 0))?;
        Ok(TcpStream::from(sock))
    }

    fn libc_timeval(d: std::time::Duration) -> nix::libc::timeval {
        nix::libc::timeval {
            tv_sec: d.as_secs() as nix::libc::time_t,
            tv_usec: d.subsec_micros() as nix::libc::suseconds_t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::{SocketAddr, TcpListener, UdpSocket};
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    #[test]
    fn a_caught_signal_raises_the_flag_and_says_which() {
        let flag = signals::catch(&[Signal::SIGUSR2], signals::Restart::Yes).unwrap();
        assert!(!flag.load(Ordering::SeqCst));
        nix::sys::signal::raise(Signal::SIGUSR2).unwrap();
        assert!(flag.load(Ordering::SeqCst));
        assert_eq!(signals::last(), Some(Signal::SIGUSR2));
        assert!(std::ptr::eq(flag, signals::flag()));
    }

    #[test]
    fn waits_end_on_data_or_at_the_deadline() {
        let rx = UdpSocket::bind("127.0.0.1:0").unwrap();
        let t = Instant::now();
        assert!(!wait::ready(&rx, PollFlags::POLLIN, Duration::from_millis(30)).unwrap());
        assert!(t.elapsed() >= Duration::from_millis(25));
        let t = Instant::now();
        wait::sleep_until_us(&rx, PollFlags::POLLIN, clock::monotonic_us() + 20_000);
        assert!(t.elapsed() >= Duration::from_millis(15));
        UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .send_to(b"x", rx.local_addr().unwrap())
            .unwrap();
        assert!(wait::ready(&rx, PollFlags::POLLIN, Duration::from_secs(5)).unwrap());
        let t = Instant::now();
        wait::sleep(&rx, PollFlags::POLLIN, Duration::from_secs(5));
        assert!(t.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn clocks_move_forward() {
        let (a, b) = (clock::monotonic_us(), clock::monotonic_us());
        assert!(b >= a);
        assert!(clock::realtime_us() > 1_600_000_000_000_000);
        assert!(clock::thread_cpu_ns() > 0);
        let t = clock::local_time_now();
        assert_eq!((t.len(), &t[4..5], &t[10..11]), (19, "-", " "), "{t}");
    }

    /// A listener whose accept queue is full drops SYNs, as a link in
    /// outage does: the bounded connect gives up on time instead of
    /// waiting through every SYN retry.
    #[test]
    fn a_bounded_connect_gives_up_on_time() {
        use nix::sys::socket::{bind, getsockname, listen, Backlog, SockaddrIn};
        use std::os::fd::AsRawFd;
        let l = tcp::socket_v4().unwrap();
        bind(l.as_raw_fd(), &SockaddrIn::new(127, 0, 0, 1, 0)).unwrap();
        listen(&l, Backlog::new(0).unwrap()).unwrap();
        let addr: SockaddrIn = getsockname(l.as_raw_fd()).unwrap();
        let dst = std::net::SocketAddrV4::new(addr.ip(), addr.port());
        let mut kept = Vec::new();
        let timed_out = (0..8).find_map(|_| {
            let t = Instant::now();
            match tcp::connect_v4_within(tcp::socket_v4().unwrap(), dst, Duration::from_millis(300))
            {
                Ok(s) => {
                    kept.push(s);
                    None
                }
                Err(e) => Some((e, t.elapsed())),
            }
        });
        let (e, took) = timed_out.expect("a full accept queue never refused a connect");
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut, "{e}");
        assert!(took < Duration::from_secs(3), "gave up after {took:?}");
    }

    #[test]
    fn a_socket_configured_before_connect_connects() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let SocketAddr::V4(dst) = l.local_addr().unwrap() else {
            unreachable!()
        };
        let sock = tcp::socket_v4().unwrap();
        let mut s = tcp::connect_v4(sock, dst).unwrap();
        let (mut a, _) = l.accept().unwrap();
        std::io::Write::write_all(&mut a, b"hi").unwrap();
        let mut buf = [0u8; 2];
        s.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"hi");
        let refused = tcp::connect_v4(tcp::socket_v4().unwrap(), "127.0.0.1:1".parse().unwrap());
        let refused_within = tcp::connect_v4_within(
            tcp::socket_v4().unwrap(),
            "127.0.0.1:1".parse().unwrap(),
            Duration::from_secs(1),
        );
        assert!(refused_within.is_err());
        assert_eq!(
            refused.unwrap_err().kind(),
            std::io::ErrorKind::ConnectionRefused
        );
    }

    #[test]
    fn a_second_open_file_cannot_take_a_held_lock() {
        let dir = std::env::temp_dir().join(format!("plumbing-lock-{}", std::process::id()));
        std::fs::write(&dir, b"").unwrap();
        let a = std::fs::File::open(&dir).unwrap();
        let b = std::fs::File::open(&dir).unwrap();
        assert!(lock::try_exclusive(&a).unwrap());
        assert!(!lock::try_exclusive(&b).unwrap());
        assert!(
            lock::try_exclusive(a.try_clone().unwrap()).unwrap(),
            "same open file"
        );
        drop(a);
        lock::exclusive(&b).unwrap();
        std::fs::remove_file(&dir).unwrap();
    }

    #[test]
    fn shared_locks_coexist_and_keep_an_exclusive_one_out() {
        let path = std::env::temp_dir().join(format!("plumbing-shared-{}", std::process::id()));
        std::fs::write(&path, b"").unwrap();
        let open = || std::fs::File::open(&path).unwrap();
        let (a, b, c) = (open(), open(), open());
        lock::shared(&a).unwrap();
        lock::shared(&b).unwrap();
        assert!(!lock::try_exclusive(&c).unwrap());
        drop(b);
        assert!(lock::try_exclusive(&a).unwrap(), "the last sharer upgrades");
        lock::shared(&a).unwrap();
        assert!(!lock::try_exclusive(&c).unwrap(), "downgraded, still held");
        drop(a);
        assert!(lock::try_exclusive(&c).unwrap());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn signalling_a_child_ends_it() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        assert!(process::terminate(&child));
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(Signal::SIGTERM as i32));
    }
}
