//! DualPI2's parameters (Linux 6.18 `sch_dualpi2` defaults, `tc-dualpi2(8)`) and Linux's
//! conversions of α and β into its fixed-point units.

/// Linux `MAX_PROB`: p' = 1.
pub const MAX_PROB: u32 = u32::MAX;
/// Linux `ALPHA_BETA_MAX`: the largest netlink α/β (units of 1/256 Hz).
pub const ALPHA_BETA_MAX: u32 = (1 << 31) - 1;
/// Netlink α/β are in 1/256 Hz (`ALPHA_BETA_SHIFT` 8), internal ones in 1/64 (6).
const ALPHA_BETA_SCALING: u32 = 8 - 6;

/// Linux `dualpi2_scale_alpha_beta`: netlink units → prob per ns, times 64.
pub fn scale_alpha_beta(nl: u32) -> u32 {
    (((nl as u64 * MAX_PROB as u64) >> ALPHA_BETA_SCALING) / 1_000_000_000) as u32
}

/// α or β in Hz → Linux's netlink value (tc sends Hz · 256; 0.16 Hz → 41, 3.2 → 819).
pub fn netlink_alpha_beta(hz: f64) -> u32 {
    (hz * 256.0).round() as u32
}

/// Which ECN codepoints go to the L queue (Linux `ecn_mask`, on the two IP ECN bits).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EcnMask {
    /// ECT(1) and CE (Linux's default, RFC 9331 §5.3).
    L4sEct = 1,
    /// ECT(0) and CE.
    ClaEct = 2,
    /// Every ECN-capable packet.
    AnyEct = 3,
}

impl EcnMask {
    pub const NAMES: &'static str = "l4s_ect, cla_ect, any_ect";
    pub fn parse(s: &str) -> Option<EcnMask> {
        Some(match s {
            "l4s_ect" => EcnMask::L4sEct,
            "cla_ect" => EcnMask::ClaEct,
            "any_ect" => EcnMask::AnyEct,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            EcnMask::L4sEct => "l4s_ect",
            EcnMask::ClaEct => "cla_ect",
            EcnMask::AnyEct => "any_ect",
        }
    }
}

/// The L queue's native (step) threshold.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Step {
    /// Sojourn time, s (Linux `step_thresh` in µs; default 1 ms).
    Time(f64),
    /// Packets left in the L queue (Linux `step_thresh` with the `p` suffix).
    Packets(u32),
}

/// DualPI2's parameters; `Default` is Linux 6.18's (`dualpi2_reset_default`).
#[derive(Clone, Debug, PartialEq)]
pub struct DualPi2Params {
    /// Packets in both queues at most (10000).
    pub limit: u32,
    /// PI target delay, s (15 ms).
    pub target: f64,
    /// Probability update period, s (16 ms).
    pub t_update: f64,
    /// Integral gain, Hz (0.16).
    pub alpha: f64,
    /// Proportional gain, Hz (3.2).
    pub beta: f64,
    pub step: Step,
    /// Step marks only for packets that found at least this many in the L queue (0).
    pub min_qlen_step: u32,
    /// Coupling factor k (2).
    pub coupling: u8,
    /// On overload, drop L4S packets with the Classic probability (true).
    pub drop_overload: bool,
    /// Decide at enqueue instead of dequeue (false).
    pub drop_early: bool,
    /// C queue's WRR weight, % (10).
    pub c_protection: u8,
    pub ecn_mask: EcnMask,
    /// Linux `psched_mtu`, bytes (1500): scheduler credit unit and the 2-MTU floor.
    pub mtu: u32,
}

impl Default for DualPi2Params {
    fn default() -> Self {
        DualPi2Params {
            limit: 10000,
            target: 0.015,
            t_update: 0.016,
            alpha: 0.16,
            beta: 3.2,
            step: Step::Time(0.001),
            min_qlen_step: 0,
            coupling: 2,
            drop_overload: true,
            drop_early: false,
            c_protection: 10,
            ecn_mask: EcnMask::L4sEct,
            mtu: 1500,
        }
    }
}
