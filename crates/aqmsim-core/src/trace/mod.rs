//! Packet traces (`[trace]`): what happened to each packet at a traced link, streamed to
//! disk as the run goes, in ns-2's trace format or as pcap.

pub mod ns2;
pub mod pcap;

use crate::time::SimTime;

/// What happened to a packet at a link (ns-2's `+ - r d`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// Handed to the link's queue (`+`).
    Enqueue,
    /// Left the queue: its transmission starts (`-`).
    Dequeue,
    /// Reached the far end of the link (`r`).
    Receive,
    /// Dropped by the queue (`d`).
    Drop,
}

/// The flow a packet belongs to, as the writers need it.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    /// Node ids of the sender and the receiver (data goes src -> dst, ACKs back).
    pub src: u32,
    pub dst: u32,
    /// true: TCP (data and ACKs); false: UDP (CBR).
    pub tcp: bool,
    /// TCP: payload bytes of a data packet (`packet_size`), header bytes, and whether
    /// sequence 0 is a SYN; UDP: the datagram size.
    pub payload: u32,
    pub header: u32,
    pub syn: bool,
}

/// When and where a traced event happened.
#[derive(Copy, Clone, Debug)]
pub struct Where {
    pub t: SimTime,
    /// The same instant as ns-2 computes it (floating-point sums of transmission times and
    /// delays), which the ns-2 format prints.
    pub secs: f64,
    pub ev: TraceEvent,
    /// The link's two end nodes.
    pub from: u32,
    pub to: u32,
}
