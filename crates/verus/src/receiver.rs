// SPDX-License-Identifier: GPL-2.0-only
//! The Verus receiver (the authors' `verus_client.cpp`): it acknowledges
//! every data packet at once by echoing its stamp (slow-start id, sequence
//! number, window, send time), so the sender measures each packet's round
//! trip and knows which window it was sent under. Pure: the caller passes
//! the time and sends the acks this writes. Taking a datagram does not
//! allocate.
use crate::wire::{self, Ack, Bye, Data, Packet};

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ReceiverCounters {
    pub data_packets: u64,
    /// Bytes of data datagrams of our session.
    pub bytes_received: u64,
    pub other_session: u64,
    /// Acks or other kinds a receiver does not expect.
    pub unexpected_kind: u64,
    pub dropped: wire::DropCounts,
    pub acks_written: u64,
}

#[derive(Default)]
pub struct Receiver {
    session: Option<u32>,
    bye: Option<Bye>,
    pub counters: ReceiverCounters,
}

impl Receiver {
    pub fn new() -> Self {
        Self::default()
    }

    /// The sender's session, once a data datagram arrived.
    pub fn session(&self) -> Option<u32> {
        self.session
    }

    /// The sender's goodbye, if it arrived.
    pub fn bye(&self) -> Option<&Bye> {
        self.bye.as_ref()
    }

    /// Takes one datagram. For a data packet of our session, writes its ack
    /// into `ack_buf` and returns the packet and the ack's length; malformed
    /// datagrams are counted (`counters.dropped`) and dropped.
    pub fn on_datagram(&mut self, bytes: &[u8], ack_buf: &mut [u8]) -> Option<(Data, usize)> {
        let p = match wire::parse(bytes) {
            Ok(p) => p,
            Err(e) => {
                self.counters.dropped.record(&e);
                return None;
            }
        };
        match p {
            Packet::Data(d) => {
                let session = *self.session.get_or_insert(d.stamp.session);
                if d.stamp.session != session {
                    self.counters.other_session += 1;
                    return None;
                }
                self.counters.data_packets += 1;
                self.counters.bytes_received += d.len as u64;
                let n = wire::write_ack(
                    &Ack {
                        stamp: d.stamp,
                        bytes_received: self.counters.bytes_received,
                        packets_received: self.counters.data_packets,
                    },
                    ack_buf,
                );
                self.counters.acks_written += 1;
                Some((d, n))
            }
            Packet::Bye(b) if Some(b.session) == self.session => {
                self.bye = Some(b);
                None
            }
            Packet::Bye(_) => {
                self.counters.other_session += 1;
                None
            }
            Packet::Ack(_) => {
                self.counters.unexpected_kind += 1;
                None
            }
        }
    }
}
