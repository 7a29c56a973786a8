"""Manual routes for the exported ns-2 script, where they are exact.

ns-2's default routing (``Agent/rtProto/Static``) computes a route from every node to every
other node when ``$ns run`` starts and fills every node's classifier with them: for a
dumbbell of 1000 flows (2002 nodes) that set-up is most of ns-2's time. ns-2's own many-flow
examples (``tcl/ex/many_tcp.tcl``) route by hand instead: ``$ns rtproto Manual`` before the
nodes are made, then ``add-route-to-adj-node`` on each node's ``Manual`` module, a default
route plus one entry per destination that does not take it.

That is exact when the topology is a forest (every link a duplex pair, no cycle): between
two nodes there is one path, so the shortest path ns-2 would compute is that path, and
the same packets take the same links. Packets are only ever addressed to flow endpoints
(data to the sink, ACKs to the sender), so only those need routes. Any other topology
(a cycle, a one-way link, a flow between unconnected nodes) keeps ns-2's own route
computation: :func:`manual_routes` returns ``None``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Dict, List, Optional, Set, Tuple

from .plan import Plan

__all__ = ["manual_routes", "routes_tcl"]

#: One node's routes: (default next hop, [(destination, next hop), ...]),
#: as indices into ``Plan.nodes``.
NodeRoutes = Tuple[int, List[Tuple[int, int]]]


def manual_routes(plan: Plan) -> Optional[Dict[int, NodeRoutes]]:
    """Each node's routes towards the flow endpoints, or ``None`` when the topology is not
    a forest of duplex links (then ns-2's own route computation is the exact one)."""
    index = {n: i for i, n in enumerate(plan.nodes)}
    directed = {(index[lk.src], index[lk.dst]) for lk in plan.links}
    adj: List[List[int]] = [[] for _ in plan.nodes]
    parent_of = list(range(len(plan.nodes)))  # union-find: a cycle means several paths

    def find(x: int) -> int:
        while parent_of[x] != x:
            parent_of[x] = parent_of[parent_of[x]]
            x = parent_of[x]
        return x

    for a, b in sorted(directed):
        if (b, a) not in directed:
            return None  # a one-way link: leave it to ns-2
        if a < b:
            ra, rb = find(a), find(b)
            if ra == rb:
                return None  # a cycle: more than one path between some nodes
            parent_of[ra] = rb
            adj[a].append(b)
            adj[b].append(a)
    ends: Set[int] = set()
    for fp in plan.flows:
        s, d = index[fp.src], index[fp.dst]
        if find(s) != find(d):
            return None  # no path: let ns-2 report it as it always has
        ends.update((s, d))

    # Root each tree, number its nodes in depth-first order: the subtree of v is the
    # numbers [tin[v], tout[v]].
    parent = [-1] * len(plan.nodes)
    tin = [0] * len(plan.nodes)
    tout = [0] * len(plan.nodes)
    order: List[int] = []
    seen = [False] * len(plan.nodes)
    for top in range(len(plan.nodes)):
        if seen[top]:
            continue
        seen[top] = True
        stack = [(top, 0)]
        while stack:  # iterative: a 1000-host dumbbell is shallow, a long chain is not
            v, i = stack.pop()
            if i == 0:
                tin[v] = len(order)
                order.append(v)
            if i < len(adj[v]):
                stack.append((v, i + 1))
                w = adj[v][i]
                if not seen[w]:
                    seen[w] = True
                    parent[w] = v
                    stack.append((w, 0))
            else:
                tout[v] = len(order) - 1
    by_tin = sorted(ends, key=lambda v: tin[v])
    tins = [tin[v] for v in by_tin]

    def span(v: int) -> Tuple[int, int]:  # the endpoints in v's subtree: by_tin[lo:hi]
        return bisect_left(tins, tin[v]), bisect_right(tins, tout[v])

    root = list(range(len(plan.nodes)))
    for v in order:  # parents come first in depth-first order
        if parent[v] >= 0:
            root[v] = root[parent[v]]
    out: Dict[int, NodeRoutes] = {}
    for v in range(len(plan.nodes)):
        # the destinations each neighbour leads to: a child its subtree, the parent the rest
        # of the tree (as slices of by_tin, listed only where a route names them)
        groups: List[Tuple[int, List[Tuple[int, int]]]] = []
        for w in adj[v]:
            if w != parent[v]:
                lo, hi = span(w)
                if hi > lo:
                    groups.append((w, [(lo, hi)]))
        if parent[v] >= 0:
            (rlo, rhi), (lo, hi) = span(root[v]), span(v)
            if (lo - rlo) + (rhi - hi) > 0:
                groups.append((parent[v], [(rlo, lo), (hi, rhi)]))
        if not groups:
            continue
        # the neighbour most destinations go through takes the default route (ties: the
        # lowest node index, so the script does not depend on set order)
        size = {w: sum(b - a for a, b in sl) for w, sl in groups}
        default = max(size, key=lambda w: (size[w], -w))
        explicit = sorted((t, w) for w, sl in groups if w != default for a, b in sl for t in by_tin[a:b])
        out[v] = (default, explicit)
    return out


def routes_tcl(routes: Dict[int, NodeRoutes]) -> List[str]:
    """The script's lines adding ``routes`` (nodes are ``$n(<index>)``)."""
    lines = ["# Routes by hand ($ns rtproto Manual): each node's default next hop, and the flow",
             "# endpoints it reaches another way (one path between any two nodes: exact)"]
    for v in sorted(routes):
        default, explicit = routes[v]
        if not explicit:  # a host: its one link
            lines.append(f"[$n({v}) get-module Manual] add-route-to-adj-node -default $n({default})")
            continue
        lines.append(f"set rt [$n({v}) get-module Manual]")
        lines.append(f"$rt add-route-to-adj-node -default $n({default})")
        for t, w in explicit:
            lines.append(f"$rt add-route [$n({t}) set address_] [[$ns link $n({v}) $n({w})] head]")
    return lines
