//! CAKE's isolation modes and per-host slots (Linux `sch_cake.c`: `CAKE_FLOW_*`,
//! `struct cake_host`) and the sizes of its one tin: what its parameters, its state
//! (`cake.rs`) and its classification (`cake_hash.rs`) share.

/// Queues of the one tin (Linux `CAKE_QUEUES`).
pub const CAKE_QUEUES: usize = 1024;
/// Ways of the set-associative hash (Linux `CAKE_SET_WAYS`).
pub const CAKE_SET_WAYS: usize = 8;

/// How flows are isolated (`tc-cake(8)`'s `flowblind` … `triple-isolate`; the bits are
/// Linux's `CAKE_FLOW_*`: 1 source host, 2 destination host, 4 flows).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FlowMode {
    FlowBlind = 0,
    SrcHost = 1,
    DstHost = 2,
    Hosts = 3,
    Flows = 4,
    DualSrcHost = 5,
    DualDstHost = 6,
    TripleIsolate = 7,
}

impl FlowMode {
    pub const NAMES: [(&'static str, FlowMode); 8] = [
        ("flowblind", FlowMode::FlowBlind),
        ("srchost", FlowMode::SrcHost),
        ("dsthost", FlowMode::DstHost),
        ("hosts", FlowMode::Hosts),
        ("flows", FlowMode::Flows),
        ("dual-srchost", FlowMode::DualSrcHost),
        ("dual-dsthost", FlowMode::DualDstHost),
        ("triple-isolate", FlowMode::TripleIsolate),
    ];
    pub fn parse(s: &str) -> Option<FlowMode> {
        Self::NAMES.iter().find(|(n, _)| *n == s).map(|&(_, m)| m)
    }
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, m)| *m == self).map(|(n, _)| *n).unwrap_or("?")
    }
    #[inline]
    pub(super) fn bits(self) -> u8 {
        self as u8
    }
    /// Linux `cake_dsrc`: per-source-host fairness.
    #[inline]
    pub fn dsrc(self) -> bool {
        self.bits() & 5 == 5
    }
    /// Linux `cake_ddst`: per-destination-host fairness.
    #[inline]
    pub fn ddst(self) -> bool {
        self.bits() & 6 == 6
    }
}

/// Per-host slot (Linux `struct cake_host`).
#[derive(Clone, Debug, Default)]
pub struct CakeHost {
    pub srchost_tag: u32,
    pub dsthost_tag: u32,
    pub srchost_bulk_flow_count: u16,
    pub dsthost_bulk_flow_count: u16,
}
