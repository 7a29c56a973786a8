"""RED (Floyd & Jacobson 1993) as a Python plug-in: the same decisions, packet for packet,
as the engine's ``kind = "red"`` (tests/test_plugin_red.py checks it). Covers packet
mode with gentle, wait, ECN marking at the tail (mark_p) and the idle-time correction of
the average; not byte mode, queue_in_bytes, mark_front nor "auto" parameters.

    [dumbbell.bottleneck.queue]
    kind = "python"
    class = "aqmsim.plugin.examples.red:Red"
    min_th = 5
    max_th = 15
"""

from aqmsim.plugin import ACCEPT, DROP, DROP_FORCED, DROP_OVERFLOW, MARK, MARK_FORCED, QueueDiscipline


class Red(QueueDiscipline):
    monitor = ("avg", "p", "max_p", "min_th", "max_th")

    def __init__(self, min_th=5.0, max_th=15.0, max_p=0.1, w_q=0.002, limit=50, gentle=False,
                 wait=False, ecn=False, mark_p=0.1, mean_pktsize=500):
        if not 0 < min_th < max_th:
            raise ValueError(f"max_th must be > min_th > 0, got min_th={min_th}, max_th={max_th}")
        self.min_th, self.max_th, self.max_p, self.w_q = min_th, max_th, max_p, w_q
        self.limit, self.gentle, self.wait = limit, gentle, wait
        self.ecn, self.mark_p, self.mean_pktsize = ecn, mark_p, mean_pktsize
        self.avg = 0.0            # the average queue, packets
        self.p = 0.0              # the probability applied to the last arrival
        self.count = 0            # arrivals since the last drop or mark
        self.old = False          # avg was above min_th at the previous arrival
        self.idle_since = 0.0     # the queue is empty since (None: it is not)

    def setup(self, link):
        self.ptc = link.rate_bps / (8.0 * self.mean_pktsize)  # mean-size packets per second

    def idle(self, now):
        self.idle_since = now

    def p_initial(self):
        if self.avg < self.max_th:
            return self.max_p * (self.avg - self.min_th) / (self.max_th - self.min_th)
        if not self.gentle:
            return 1.0
        return min(self.max_p + (1.0 - self.max_p) * (self.avg - self.max_th) / self.max_th, 1.0)

    def p_after_count(self, p_b):
        cp = self.count * p_b
        if self.wait:
            p = 0.0 if cp < 1.0 else (p_b / (2.0 - cp) if cp < 2.0 else 1.0)
        else:
            p = p_b / (1.0 - cp) if cp < 1.0 else 1.0
        return min(p, 1.0)

    def enqueue(self, pkt, q):
        w, qlen = self.w_q, q.len_pkts
        if self.idle_since is not None:  # decay the average: m packet times of idleness
            m = int(max(self.ptc * (q.now - self.idle_since), 0.0))
            if m <= 4096:  # repeated products, as ns-2 (and the engine) compute them
                for _ in range(m):
                    self.avg *= 1.0 - w
            else:
                self.avg *= (1.0 - w) ** m
            self.idle_since = None
        self.avg = (1.0 - w) * self.avg + w * qlen
        self.count += 1
        verdict = ACCEPT
        if self.avg >= self.min_th and qlen > 1:
            forced = self.avg >= (2.0 * self.max_th if self.gentle else self.max_th)
            if not self.old:  # first arrival above min_th: start counting
                self.count, self.old = 1, True
            else:
                p_b = self.p_initial()
                self.p = self.p_after_count(p_b)
                if self.uniform() <= self.p and self.p > 0.0:
                    self.count = 0
                    if self.ecn and pkt.ecn and p_b < self.mark_p:
                        verdict = MARK_FORCED if forced else MARK
                    else:
                        verdict = DROP_FORCED if forced else DROP
        else:
            self.p, self.old = 0.0, False
        if qlen >= self.limit:
            verdict = DROP_OVERFLOW
        if verdict in (DROP_FORCED, DROP_OVERFLOW):
            self.count = 0
        return verdict
