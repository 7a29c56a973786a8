//! A sender's cumulative counters, which the flow table reads: shared by both sender models
//! (`sender/`, ns-2's, and `linux/`), so neither depends on the other for them. It depends on
//! nothing in `tcp/`.

/// Cumulative counters of a sender.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Data packets sent (SYN included), retransmissions included.
    pub sent: u64,
    pub sent_bytes: u64,
    /// Retransmitted packets.
    pub retransmitted: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits.
    pub fast_retransmits: u64,
    /// Window reductions in response to ECN-Echo.
    pub ecn_responses: u64,
    pub acks: u64,
    /// Segments AccECN feedback reported CE-marked (the sender's s.cep − 5; linux stack).
    pub ce_delivered: u64,
}
