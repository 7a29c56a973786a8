//! BBR's phases: every change of mode (BBR v1) or state (BBR v3) of every BBR flow, one row
//! each, ordered by time (then flow). A run's `phases` table; the summary keeps only the
//! counts (`bbr_mode_changes`, `bbr3_state_changes`), so that a sequence that grows with
//! the run is not spread over summary keys.

/// The phase names of both versions, in code order: BBR v1's modes are codes 0–3 (as
/// ns-3.37's `TcpBbr::BbrMode_t`), BBR v3's states use the first two and codes 3–7
/// ([`PhaseLog::bbr3_code`]).
pub const PHASE_NAMES: [&str; 8] =
    ["STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT", "PROBE_BW_DOWN", "PROBE_BW_CRUISE", "PROBE_BW_REFILL", "PROBE_BW_UP"];
/// The congestion controls named in the `cc` column, in code order.
pub const PHASE_CCS: [&str; 2] = ["bbr", "bbr3"];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhaseLog {
    /// When the flow entered the phase, s.
    pub t: Vec<f64>,
    pub flow: Vec<u32>,
    /// Index into [`PHASE_CCS`].
    pub cc: Vec<u32>,
    /// Index into [`PHASE_NAMES`].
    pub phase: Vec<u32>,
}

impl PhaseLog {
    /// BBR v3's state number (0 STARTUP, 1 DRAIN, 2 PROBE_BW_DOWN, 3 PROBE_BW_CRUISE,
    /// 4 PROBE_BW_REFILL, 5 PROBE_BW_UP, 6 PROBE_RTT) as a code of [`PHASE_NAMES`].
    pub fn bbr3_code(state: u8) -> u32 {
        match state {
            0 | 1 => state as u32,
            6 => 3,
            s => s as u32 + 2,
        }
    }

    /// The rows of flow `flow` (its changes, `(time ns, code)`, in time order), running `cc`.
    pub fn add_flow(&mut self, flow: u32, cc: u32, changes: impl IntoIterator<Item = (u64, u32)>) {
        for (t, code) in changes {
            self.t.push(t as f64 * 1e-9);
            self.flow.push(flow);
            self.cc.push(cc);
            self.phase.push(code);
        }
    }

    /// Order the rows by time, then flow (each flow's rows keep their order).
    pub fn sort(&mut self) {
        let mut idx: Vec<usize> = (0..self.t.len()).collect();
        idx.sort_by(|&a, &b| self.t[a].total_cmp(&self.t[b]).then(self.flow[a].cmp(&self.flow[b])));
        let pick = |v: &[u32]| idx.iter().map(|&i| v[i]).collect::<Vec<u32>>();
        let (flow, cc, phase) = (pick(&self.flow), pick(&self.cc), pick(&self.phase));
        self.t = idx.iter().map(|&i| self.t[i]).collect();
        (self.flow, self.cc, self.phase) = (flow, cc, phase);
    }

    /// Rows of congestion control `cc` (an index into [`PHASE_CCS`]).
    pub fn count(&self, cc: u32) -> usize {
        self.cc.iter().filter(|&&c| c == cc).count()
    }

    pub fn len(&self) -> usize {
        self.t.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bbr3_states_map_onto_the_shared_names() {
        let names: Vec<&str> = (0..7u8).map(|s| PHASE_NAMES[PhaseLog::bbr3_code(s) as usize]).collect();
        assert_eq!(names, crate::tcp::linux::bbr3::State::NAMES);
    }

    #[test]
    fn rows_sort_by_time_then_flow_keeping_each_flows_order() {
        let mut p = PhaseLog::default();
        p.add_flow(1, 0, [(0, 0), (2_000_000_000, 1), (3_000_000_000, 2)]);
        p.add_flow(0, 1, [(0, 0), (2_000_000_000, 1), (2_000_000_000, 4)]);
        p.sort();
        assert_eq!(p.t, vec![0.0, 0.0, 2.0, 2.0, 2.0, 3.0]);
        assert_eq!(p.flow, vec![0, 1, 0, 0, 1, 1]);
        assert_eq!(p.phase, vec![0, 0, 1, 4, 1, 2]);
        assert_eq!((p.count(0), p.count(1)), (3, 3));
    }
}
