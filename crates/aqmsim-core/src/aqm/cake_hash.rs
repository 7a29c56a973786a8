//! CAKE's classification (Linux `sch_cake.c`, `cake_hash`): a flow hash and two host
//! hashes, combined by the isolation mode, into one of 1024 queues by set-associative
//! hashing (8 ways), plus the source and destination host slots that carry the per-host
//! bulk-flow counts of triple isolation.
//!
//! aqmsim's packets carry a flow number and a destination node, not addresses and ports:
//! the flow hash is a hash of the flow number (Linux: of the 5-tuple, with addresses sorted,
//! so both directions of a connection share it, as a flow number does), a host hash is a
//! hash of a node number. The hash function is ours (Linux keys siphash at boot); which
//! flows collide therefore differs from Linux, not how collisions are resolved.

use super::cake::{Cake, CakeSet};
use super::cake_modes::{FlowMode, CAKE_QUEUES, CAKE_SET_WAYS};

/// A 32-bit mixer (MurmurHash3's finaliser).
#[inline]
pub fn mix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

impl Cake {
    /// The flow hash of flow `flow` (salted by `perturbation`).
    #[inline]
    pub fn flow_hash(&self, flow: u32) -> u32 {
        mix(flow ^ self.salt)
    }
    /// The source- and destination-host hashes of node `node`.
    #[inline]
    pub fn host_hashes(&self, node: u32) -> (u32, u32) {
        let h = mix(node ^ self.salt);
        (mix(h ^ 0x5352_4348), mix(h ^ 0x4453_5448))
    }

    /// The source host of a packet of `flow` going to `dst`: the flow's other end
    /// (the flow number itself when the network did not say).
    #[inline]
    pub fn src_host(&self, flow: u32, dst: u32) -> u32 {
        match self.flow_hosts.get(flow as usize) {
            Some(&(s, d)) => {
                if dst == d {
                    s
                } else {
                    d
                }
            }
            None => flow,
        }
    }

    /// Linux `cake_hash`: the queue of a packet of `flow` from node `src` to node `dst`,
    /// reserving it (tag) and its host slots.
    pub fn classify(&mut self, flow: u32, src: u32, dst: u32) -> usize {
        let mode = self.params.mode;
        if mode == FlowMode::FlowBlind {
            return 0;
        }
        let hash_hosts = mode.bits() & 3 != 0;
        let (srchost_hash, dsthost_hash) = if hash_hosts { (self.host_hashes(src).0, self.host_hashes(dst).1) } else { (0, 0) };
        let mut flow_hash = if mode.bits() & 4 != 0 { self.flow_hash(flow) } else { 0 };
        if mode.bits() & 4 == 0 {
            if mode.bits() & 1 != 0 {
                flow_hash ^= srchost_hash;
            }
            if mode.bits() & 2 != 0 {
                flow_hash ^= dsthost_hash;
            }
        }
        let mut reduced = flow_hash as usize % CAKE_QUEUES;
        if self.tags[reduced] == flow_hash && self.flows[reduced].set != CakeSet::None {
            self.way_directs += 1;
            return reduced;
        }
        let inner = reduced % CAKE_SET_WAYS;
        let outer = reduced - inner;
        let (mut alloc_src, mut alloc_dst) = (false, false);
        let mut k = inner;
        let mut found = false;
        for i in 0..CAKE_SET_WAYS {
            if self.tags[outer + k] == flow_hash {
                if i != 0 {
                    self.way_hits += 1;
                }
                if self.flows[outer + k].set == CakeSet::None {
                    alloc_src = mode.dsrc();
                    alloc_dst = mode.ddst();
                }
                found = true;
                break;
            }
            k = (k + 1) % CAKE_SET_WAYS;
        }
        if !found {
            for _ in 0..CAKE_SET_WAYS {
                if self.flows[outer + k].set == CakeSet::None {
                    self.way_misses += 1;
                    found = true;
                    break;
                }
                k = (k + 1) % CAKE_SET_WAYS;
            }
            if !found {
                // every way busy: share the original queue (its host counts follow it)
                self.way_collisions += 1;
                if self.flows[outer + k].set == CakeSet::Bulk {
                    let (s, d) = (self.flows[reduced].srchost as usize, self.flows[reduced].dsthost as usize);
                    self.hosts[s].srchost_bulk_flow_count -= 1;
                    self.hosts[d].dsthost_bulk_flow_count -= 1;
                }
            }
            alloc_src = mode.dsrc();
            alloc_dst = mode.ddst();
        }
        reduced = outer + k;
        self.tags[reduced] = flow_hash;
        if alloc_src {
            let slot = self.host_slot(srchost_hash, true);
            if self.flows[reduced].set == CakeSet::Bulk {
                self.hosts[slot].srchost_bulk_flow_count += 1;
            }
            self.flows[reduced].srchost = slot as u16;
        }
        if alloc_dst {
            let slot = self.host_slot(dsthost_hash, false);
            if self.flows[reduced].set == CakeSet::Bulk {
                self.hosts[slot].dsthost_bulk_flow_count += 1;
            }
            self.flows[reduced].dsthost = slot as u16;
        }
        reduced
    }

    /// The host slot of a host hash: the way already tagged with it, else the first way
    /// with no bulk flow (tagged now), else the home way (taken over).
    fn host_slot(&mut self, hash: u32, src: bool) -> usize {
        let idx = hash as usize % CAKE_QUEUES;
        let inner = idx % CAKE_SET_WAYS;
        let outer = idx - inner;
        let mut k = inner;
        for _ in 0..CAKE_SET_WAYS {
            let h = &self.hosts[outer + k];
            if (if src { h.srchost_tag } else { h.dsthost_tag }) == hash {
                return outer + k;
            }
            k = (k + 1) % CAKE_SET_WAYS;
        }
        for _ in 0..CAKE_SET_WAYS {
            let h = &self.hosts[outer + k];
            if (if src { h.srchost_bulk_flow_count } else { h.dsthost_bulk_flow_count }) == 0 {
                break;
            }
            k = (k + 1) % CAKE_SET_WAYS;
        }
        let h = &mut self.hosts[outer + k];
        if src {
            h.srchost_tag = hash;
        } else {
            h.dsthost_tag = hash;
        }
        outer + k
    }
}
