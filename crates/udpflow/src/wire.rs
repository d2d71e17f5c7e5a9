// SPDX-License-Identifier: GPL-2.0-only
//! The versioned datagram header every UDP transport here starts with.
//!
//! All integers are big-endian.
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic (the protocol's, e.g. `"SPRT"`) |
//! | 4 | 1 | version |
//! | 5 | 1 | kind (the protocol's) |
//! | 6 | 2 | total datagram length (catches truncation) |
//! | 8 | 4 | session (chosen by the sender, echoed by the receiver) |
//!
//! [`check_header`] applies the checks in one order — magic, then room for
//! the header, then version, then the declared length against the
//! datagram's — so a foreign datagram is `Foreign` before anything else.
//! The kind byte is left to the protocol, but for the one kind all share,
//! the sender's closing [`Bye`]. Each protocol names itself through
//! [`Protocol`]: its magic, its version and the name its errors print, so a
//! Sprout error says "not a Sprout datagram" and a Verus one "not a Verus
//! datagram" though the code is one. Everything is generic and inlined: no
//! allocation and no dynamic dispatch per datagram.
use std::fmt;
use std::marker::PhantomData;

/// The header's length: after it, each kind's own fields.
pub const HEADER_LEN: usize = 12;
/// Largest datagram either end sends or accepts (an IPv4 UDP payload's
/// most).
pub const MAX_DATAGRAM: usize = 65507;

/// One protocol's identity on the wire.
pub trait Protocol {
    /// What its errors call it ("not a {NAME} datagram").
    const NAME: &'static str;
    const MAGIC: [u8; 4];
    const VERSION: u8;
}

/// Why a datagram was not accepted, for protocol `P`.
pub enum WireError<P> {
    /// Not ours: no magic.
    Foreign,
    /// Shorter than its header or its declared length.
    Truncated,
    /// Another version of the protocol.
    Version(u8),
    /// Unknown kind.
    Kind(u8),
    /// Declared length differs from the datagram's.
    Length { declared: usize, actual: usize },
    /// A field with an impossible value.
    Field(&'static str),
    /// Never built: only ties the error to its protocol's name.
    #[doc(hidden)]
    _Protocol(std::convert::Infallible, PhantomData<P>),
}

// By hand: derived impls would ask `P` (a marker) for the traits too.
impl<P> Clone for WireError<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for WireError<P> {}
impl<P> PartialEq for WireError<P> {
    fn eq(&self, other: &Self) -> bool {
        use WireError::*;
        match (self, other) {
            (Foreign, Foreign) | (Truncated, Truncated) => true,
            (Version(a), Version(b)) | (Kind(a), Kind(b)) => a == b,
            (
                Length {
                    declared: d1,
                    actual: a1,
                },
                Length {
                    declared: d2,
                    actual: a2,
                },
            ) => d1 == d2 && a1 == a2,
            (Field(a), Field(b)) => a == b,
            _ => false,
        }
    }
}
impl<P> Eq for WireError<P> {}

impl<P> fmt::Debug for WireError<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Foreign => write!(f, "Foreign"),
            WireError::Truncated => write!(f, "Truncated"),
            WireError::Version(v) => f.debug_tuple("Version").field(v).finish(),
            WireError::Kind(k) => f.debug_tuple("Kind").field(k).finish(),
            WireError::Length { declared, actual } => f
                .debug_struct("Length")
                .field("declared", declared)
                .field("actual", actual)
                .finish(),
            WireError::Field(name) => f.debug_tuple("Field").field(name).finish(),
            WireError::_Protocol(never, _) => match *never {},
        }
    }
}

impl<P: Protocol> fmt::Display for WireError<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Foreign => write!(f, "not a {} datagram", P::NAME),
            WireError::Truncated => write!(f, "truncated"),
            WireError::Version(v) => write!(f, "version {v}, expected {}", P::VERSION),
            WireError::Kind(k) => write!(f, "unknown kind {k}"),
            WireError::Length { declared, actual } => {
                write!(f, "length {actual}, header says {declared}")
            }
            WireError::Field(name) => write!(f, "bad field {name}"),
            WireError::_Protocol(never, _) => match *never {},
        }
    }
}

impl<P: Protocol> std::error::Error for WireError<P> {}

/// Counts of dropped datagrams, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DropCounts {
    pub foreign: u64,
    pub truncated: u64,
    pub bad_version: u64,
    pub bad_kind: u64,
    pub bad_length: u64,
    pub bad_field: u64,
}

impl DropCounts {
    pub fn record<P>(&mut self, e: &WireError<P>) {
        match e {
            WireError::Foreign => self.foreign += 1,
            WireError::Truncated => self.truncated += 1,
            WireError::Version(_) => self.bad_version += 1,
            WireError::Kind(_) => self.bad_kind += 1,
            WireError::Length { .. } => self.bad_length += 1,
            WireError::Field(_) => self.bad_field += 1,
            WireError::_Protocol(never, _) => match *never {},
        }
    }

    pub fn total(&self) -> u64 {
        self.foreign
            + self.truncated
            + self.bad_version
            + self.bad_kind
            + self.bad_length
            + self.bad_field
    }
}

#[inline]
pub fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
#[inline]
pub fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}
#[inline]
pub fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(b[at..at + 8].try_into().unwrap())
}

/// A header that passed [`check_header`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: u8,
    pub session: u32,
}

/// Checks `b`'s header for protocol `P`: magic, room for the header,
/// version, declared length equal to the datagram's. Never panics.
#[inline]
pub fn check_header<P: Protocol>(b: &[u8]) -> Result<Header, WireError<P>> {
    if b.len() < 4 || b[..4] != P::MAGIC {
        return Err(WireError::Foreign);
    }
    if b.len() < HEADER_LEN {
        return Err(WireError::Truncated);
    }
    if b[4] != P::VERSION {
        return Err(WireError::Version(b[4]));
    }
    let declared = u16_at(b, 6) as usize;
    if declared != b.len() {
        return Err(if declared > b.len() {
            WireError::Truncated
        } else {
            WireError::Length {
                declared,
                actual: b.len(),
            }
        });
    }
    Ok(Header {
        kind: b[5],
        session: u32_at(b, 8),
    })
}

/// For kinds of one fixed length: shorter is `Truncated`, longer `Length`.
#[inline]
pub fn exact_len<P>(b: &[u8], want: usize) -> Result<(), WireError<P>> {
    match b.len() {
        n if n < want => Err(WireError::Truncated),
        n if n > want => Err(WireError::Length {
            declared: want,
            actual: n,
        }),
        _ => Ok(()),
    }
}

/// Writes `P`'s header for a datagram of `len` bytes (≤ 65535) into `buf`.
#[inline]
pub fn write_header<P: Protocol>(buf: &mut [u8], kind: u8, len: usize, session: u32) {
    buf[..4].copy_from_slice(&P::MAGIC);
    buf[4] = P::VERSION;
    buf[5] = kind;
    buf[6..8].copy_from_slice(&(len as u16).to_be_bytes());
    buf[8..12].copy_from_slice(&session.to_be_bytes());
}

/// The kind byte of a bye: 3 in every protocol here.
pub const KIND_BYE: u8 = 3;
/// A bye's length.
pub const BYE_LEN: usize = 32;

/// **Bye**, the datagram every sender here sends (three times) at its end,
/// so its receiver stops at once and knows what was sent: after the
/// header, 4 zero bytes @12, packets sent `u64` @16, bytes sent `u64` @24;
/// 32 bytes in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bye {
    pub session: u32,
    pub packets_sent: u64,
    pub bytes_sent: u64,
}

/// Parses a bye whose header ([`check_header`]) said `session`.
#[inline]
pub fn parse_bye<P>(b: &[u8], session: u32) -> Result<Bye, WireError<P>> {
    exact_len(b, BYE_LEN)?;
    if b[12..16] != [0, 0, 0, 0] {
        return Err(WireError::Field("reserved"));
    }
    Ok(Bye {
        session,
        packets_sent: u64_at(b, 16),
        bytes_sent: u64_at(b, 24),
    })
}

/// Writes `P`'s bye into `buf`; returns its length.
#[inline]
pub fn write_bye<P: Protocol>(b: &Bye, buf: &mut [u8]) -> usize {
    write_header::<P>(buf, KIND_BYE, BYE_LEN, b.session);
    buf[12..16].fill(0);
    buf[16..24].copy_from_slice(&b.packets_sent.to_be_bytes());
    buf[24..32].copy_from_slice(&b.bytes_sent.to_be_bytes());
    BYE_LEN
}

/// Helpers for each protocol's own wire tests (feature `testing`).
#[cfg(feature = "testing")]
pub mod testing {
    use super::Protocol;
    use rand::Rng;

    /// The datagram of one round of a protocol's garbage test: random bytes
    /// (round % 4 = 0), `P`'s magic and version before random bytes (1), or
    /// one of `good` with 1 to 3 bits flipped, then truncated (2, 3); every
    /// 7th round's declared length is made to match, so the checks behind
    /// the header's are reached too.
    pub fn garbage<P: Protocol>(rng: &mut impl Rng, round: u32, good: &[Vec<u8>]) -> Vec<u8> {
        let mut v: Vec<u8> = match round % 4 {
            0 => (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect(),
            1 => {
                let mut v: Vec<u8> = (0..rng.gen_range(0..120)).map(|_| rng.gen()).collect();
                for (i, b) in P::MAGIC.iter().chain([P::VERSION].iter()).enumerate() {
                    if i < v.len() {
                        v[i] = *b;
                    }
                }
                v
            }
            _ => {
                let mut v = good[rng.gen_range(0..good.len())].clone();
                for _ in 0..rng.gen_range(1..4) {
                    let i = rng.gen_range(0..v.len());
                    v[i] ^= 1 << rng.gen_range(0..8);
                }
                v.truncate(rng.gen_range(0..=v.len()));
                v
            }
        };
        if round.is_multiple_of(7) && v.len() >= 8 {
            let len = v.len() as u16;
            v[6..8].copy_from_slice(&len.to_be_bytes());
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Test;
    impl Protocol for Test {
        const NAME: &'static str = "Test";
        const MAGIC: [u8; 4] = *b"TEST";
        const VERSION: u8 = 3;
    }
    type E = WireError<Test>;

    #[test]
    fn a_written_header_checks_and_each_fault_is_named() {
        let mut b = [0u8; 20];
        write_header::<Test>(&mut b, 7, 20, 0xdead_beef);
        assert_eq!(
            check_header::<Test>(&b),
            Ok(Header {
                kind: 7,
                session: 0xdead_beef
            })
        );
        assert_eq!(check_header::<Test>(&b[..19]), Err(E::Truncated));
        assert_eq!(check_header::<Test>(&b[..3]), Err(E::Foreign));
        let mut longer = [0u8; 21];
        longer[..20].copy_from_slice(&b);
        assert_eq!(
            check_header::<Test>(&longer),
            Err(E::Length {
                declared: 20,
                actual: 21
            })
        );
        b[4] = 4;
        assert_eq!(check_header::<Test>(&b), Err(E::Version(4)));
        assert_eq!(E::Version(4).to_string(), "version 4, expected 3");
        assert_eq!(E::Foreign.to_string(), "not a Test datagram");
        assert_eq!(exact_len::<Test>(&b, 20), Ok(()));
        assert_eq!(exact_len::<Test>(&b, 21), Err(E::Truncated));
    }

    #[test]
    fn drop_counts_sort_by_reason() {
        let mut d = DropCounts::default();
        for e in [E::Foreign, E::Kind(9), E::Kind(8), E::Field("x")] {
            d.record(&e);
        }
        assert_eq!(
            (d.foreign, d.bad_kind, d.bad_field, d.total()),
            (1, 2, 1, 4)
        );
    }
}
