// SPDX-License-Identifier: GPL-2.0-only
//! NetAssist's datagram (`netassist::wire::decode`, what the server agent
//! and NetAssist read off their sockets), with and without a key: never a
//! panic; a plain datagram that decodes re-encodes to the same bytes (the
//! reserved bytes aside) and decodes to the same message; no datagram
//! passes with a key unless it carries that key's HMAC, and one encoded
//! with the key always does.
#![no_main]
use libfuzzer_sys::fuzz_target;
use netassist::wire::{self, Key, Reject, BODY_LEN, MAX_LEN};

fuzz_target!(|data: &[u8]| {
    let key = Key::from_bytes(b"c2tcp fuzz key, 32 bytes long..!").unwrap();
    let plain = wire::decode(data, None);
    let keyed = wire::decode(data, Some(&key));
    if let Ok(m) = plain {
        assert_eq!(data.len(), BODY_LEN);
        // Without a MAC a keyed receiver refuses it.
        assert_eq!(keyed, Err(Reject::Unauthenticated));
        let mut out = [0u8; MAX_LEN];
        let n = wire::encode(&m, None, &mut out);
        assert_eq!(n, BODY_LEN);
        assert_eq!(wire::decode(&out[..n], None), Ok(m));
        // Same bytes, but for the flags' unknown bits and the reserved ones.
        assert_eq!(&out[..4], &data[..4]);
        assert_eq!(&out[6..42], &data[6..42]);
        let n = wire::encode(&m, Some(&key), &mut out);
        assert_eq!(n, MAX_LEN);
        assert_eq!(wire::decode(&out[..n], Some(&key)), Ok(m));
        assert_eq!(wire::decode(&out[..n], None), Err(Reject::Unverifiable));
    }
    if let Ok(m) = keyed {
        // Only a datagram with this key's HMAC over its body gets here.
        assert_eq!(data.len(), MAX_LEN);
        let mut out = [0u8; MAX_LEN];
        wire::encode(&m, Some(&key), &mut out);
        assert_eq!(wire::decode(&out, Some(&key)), Ok(m));
    }
});
