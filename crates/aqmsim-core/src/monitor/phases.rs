//! BBR's phases: every change of mode (BBR v1) or state (BBR v3) of every BBR flow, one row
//! each, ordered by time (then flow). A run's `phases` table; the summary keeps only the
//! counts (`bbr_mode_changes`, `bbr3_state_changes`), so that a sequence that grows with
//! the run is not spread over summary keys.

/// The phase names of both versions, each once: BBR v1's modes (`bbr::Mode::NAMES`) and
/// BBR v3's states beyond them (`bbr3::State::NAMES`). A row's code indexes this.
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
    /// The code of phase `name` ([`PHASE_NAMES`]).
    pub fn code(name: &str) -> u32 {
        let code = PHASE_NAMES.iter().position(|&n| n == name);
        debug_assert!(code.is_some(), "{name} is not in PHASE_NAMES");
        code.unwrap_or(0) as u32
    }

    /// The rows of flow `flow` running `cc`: its changes `(time ns, phase number)` in time
    /// order, the numbers naming phases as `names` does (the control's own list).
    pub fn add_flow(&mut self, flow: u32, cc: u32, names: &[&str], changes: impl IntoIterator<Item = (u64, u8)>) {
        for (t, m) in changes {
            self.t.push(t as f64 * 1e-9);
            self.flow.push(flow);
            self.cc.push(cc);
            self.phase.push(Self::code(names[m as usize]));
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

    use crate::tcp::linux::{bbr::Mode, bbr3::State};

    #[test]
    fn bbr3_states_map_onto_the_shared_names() {
        let mut p = PhaseLog::default();
        p.add_flow(0, 1, &State::NAMES, (0..7u8).map(|s| (s as u64, s)));
        let names: Vec<&str> = p.phase.iter().map(|&c| PHASE_NAMES[c as usize]).collect();
        assert_eq!(names, State::NAMES);
        // and BBR v1's modes are the first four, in their numbers' order
        assert_eq!(PHASE_NAMES[..4], Mode::NAMES);
    }

    #[test]
    fn rows_sort_by_time_then_flow_keeping_each_flows_order() {
        let mut p = PhaseLog::default();
        p.add_flow(1, 0, &Mode::NAMES, [(0, 0), (2_000_000_000, 1), (3_000_000_000, 2)]);
        // (bbr3's 2 is PROBE_BW_DOWN, code 4)
        p.add_flow(0, 1, &State::NAMES, [(0, 0), (2_000_000_000, 1), (2_000_000_000, 2)]);
        p.sort();
        assert_eq!(p.t, vec![0.0, 0.0, 2.0, 2.0, 2.0, 3.0]);
        assert_eq!(p.flow, vec![0, 1, 0, 0, 1, 1]);
        assert_eq!(p.phase, vec![0, 0, 1, 4, 1, 2]);
        assert_eq!((p.count(0), p.count(1)), (3, 3));
    }
}
