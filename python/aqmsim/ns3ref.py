"""ns-3.37 reference programs (issue 14): queue-level replay and the network dumbbell.

Two C++ programs in ``benchmarks/ns3/`` built against Debian's ``libns3-dev`` (``make ns3``)
by ``benchmarks/ns3/build.sh`` into ``target/ns3-bench/<program>-<version>``:

* :func:`replay` feeds one ns-3 queue disc (CoDel, PIE, FQ-CoDel, RED) a script of
  enqueues and dequeues and returns what the disc did, one tuple per output line;
* :func:`dumbbell` runs the TCP dumbbell and returns its ``key value`` lines as a dict,
  with the per-flow goodputs under ``"flows"``.

See docs/ns3-reference.md for the formats and the set-up. Only the standard library is
imported here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

__all__ = ["Ns3NotFoundError", "Ns3Error", "available", "build", "replay", "dumbbell",
           "parse_replay", "parse_dumbbell", "QUEUE_TYPES"]

REPO = Path(__file__).resolve().parents[2]
BUILD_SH = REPO / "benchmarks" / "ns3" / "build.sh"
PROGRAMS = ("dumbbell", "queue_replay", "single_flow")
# --queue name -> the ns-3 TypeId whose attributes `attrs` may name without a prefix.
QUEUE_TYPES = {"codel": "ns3::CoDelQueueDisc", "pie": "ns3::PieQueueDisc",
               "fq_codel": "ns3::FqCoDelQueueDisc", "red": "ns3::RedQueueDisc",
               "fq_pie": "ns3::FqPieQueueDisc",
               "cobalt": "ns3::CobaltQueueDisc",
               "fq_cobalt": "ns3::FqCobaltQueueDisc"}
MISSING = "ns-3 is not installed: run `make ns3` (Debian's libns3-dev 3.37, g++, pkg-config)"

_built: Dict[str, Path] = {}


class Ns3Error(RuntimeError):
    """An ns-3 program failed to build or to run."""


class Ns3NotFoundError(Ns3Error):
    """ns-3's development files (or a C++ compiler) are missing."""


def available() -> bool:
    """True when ns-3's development files and a C++ compiler are installed."""
    if shutil.which("pkg-config") is None or shutil.which(os.environ.get("CXX", "g++")) is None:
        return False
    p = subprocess.run(["pkg-config", "--exists", "ns3-core", "ns3-traffic-control", "ns3-internet"],
                       capture_output=True)
    return p.returncode == 0


def build(program: str = "queue_replay") -> Path:
    """The path of ``program``'s binary, built by build.sh when missing or stale (cached)."""
    if program not in PROGRAMS:
        raise ValueError(f"unknown ns-3 program {program!r}; expected one of {PROGRAMS}")
    if program in _built and _built[program].exists():
        return _built[program]
    if not available():
        raise Ns3NotFoundError(MISSING)
    p = subprocess.run(["bash", str(BUILD_SH), program], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    if p.returncode == 3:
        raise Ns3NotFoundError(MISSING)
    if p.returncode != 0 or not p.stdout.strip():
        tail = "\n".join(p.stderr.strip().splitlines()[-15:])
        raise Ns3Error(f"building benchmarks/ns3/{program}.cc failed (exit {p.returncode}):\n{tail}")
    path = Path(p.stdout.strip().splitlines()[-1])
    _built[program] = path
    return path


def _attr_args(type_id: str, attrs: Optional[Mapping[str, Any]]) -> List[str]:
    """``--ns3::Type::Name=value`` for each attribute; a name with ``::`` is taken whole."""
    out = []
    for k, v in (attrs or {}).items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        name = k if "::" in k else f"{type_id}::{k}"
        out.append(f"--{name}={v}")
    return out


def _run(args: List[str], timeout: float) -> str:
    p = subprocess.run(args, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout)
    if p.returncode != 0:
        tail = "\n".join(p.stderr.strip().splitlines()[-10:])
        raise Ns3Error(f"{Path(args[0]).name} exited {p.returncode}:\n{tail}")
    return p.stdout


def _num(tok: str):
    """An int, a float, None for '-', or the string itself."""
    if tok == "-":
        return None
    for conv in (int, float):
        try:
            return conv(tok)
        except ValueError:
            pass
    return tok


def parse_replay(text: str) -> List[Tuple]:
    """queue_replay's output as tuples: ``("enq", t, id, flow, "q"|"m"|"d")``,
    ``("drop"|"mark", t, id, flow)``, ``("deq", t, id, flow, ce)`` (``None``s for an empty
    dequeue), ``("prob", t, p, qdelay_ns)``, ``("rand", t, u)``. Extra fields (``--reasons``,
    ``--sojourn``) follow: a reason is kept as one string."""
    out: List[Tuple] = []
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        kind = f[0]
        if kind == "enq":
            row: Tuple = ("enq", int(f[1]), int(f[2]), int(f[3]), f[4])
            extra = [" ".join(f[5:])] if len(f) > 5 else []
        elif kind in ("drop", "mark"):
            row = (kind, int(f[1]), int(f[2]), int(f[3]))
            extra = [" ".join(f[4:])] if len(f) > 4 else []
        elif kind == "deq":
            row = ("deq", int(f[1]), _num(f[2]), _num(f[3]), _num(f[4]))
            extra = [int(x) for x in f[5:]]
        elif kind == "prob":
            row, extra = ("prob", int(f[1]), float(f[2]), int(f[3])), []
        elif kind == "rand":
            row, extra = ("rand", int(f[1]), float(f[2])), []
        else:
            raise Ns3Error(f"unexpected queue_replay line: {line!r}")
        out.append(row + tuple(extra))
    return out


def replay(queue: str, ops_text: str, attrs: Optional[Mapping[str, Any]] = None, seed: int = 1,
           *, hash: bool = False, quantum: Optional[int] = None, stream: int = 0,
           uniforms: Optional[List[float]] = None, print_uniforms: bool = False,
           reasons: bool = False, sojourn: bool = False, timeout: float = 120.0) -> List[Tuple]:
    """Replay ``ops_text`` (``e <t_ns> <flow> <bytes> <ect>`` / ``d <t_ns>`` lines) through
    ns-3's ``queue`` disc and return the parsed output (:func:`parse_replay`).

    ``attrs`` are the disc's attributes (``{"Target": "5ms"}`` or full names
    ``"ns3::CoDelQueueDisc::Target"``); ``seed`` is the RNG run number (RngSeedManager seed
    1); ``uniforms`` replaces the RED/PIE draws by the given numbers, in draw order."""
    if queue not in QUEUE_TYPES:
        raise ValueError(f"queue must be one of {sorted(QUEUE_TYPES)}, not {queue!r}")
    binary = build("queue_replay")
    with tempfile.TemporaryDirectory(prefix="ns3replay-") as d:
        ops = Path(d) / "ops.txt"
        ops.write_text(ops_text)
        args = [str(binary), f"--queue={queue}", f"--ops={ops}", "--seed=1", f"--run={int(seed)}",
                f"--stream={int(stream)}"]
        for flag, on in (("hash", hash), ("printUniforms", print_uniforms), ("reasons", reasons),
                         ("sojourn", sojourn)):
            if on:
                args.append(f"--{flag}=true")
        if quantum is not None:
            args.append(f"--quantum={int(quantum)}")
        if uniforms is not None:
            u = Path(d) / "uniforms.txt"
            u.write_text("".join(f"{x!r}\n" for x in uniforms))
            args.append(f"--uniforms={u}")
        args += _attr_args(QUEUE_TYPES[queue], attrs)
        return parse_replay(_run(args, timeout))


def parse_dumbbell(text: str) -> Dict[str, Any]:
    """The dumbbell's ``key value`` lines as a dict (numbers converted); ``flow <i> <bps>``
    lines become ``out["flows"]``, a list of goodputs in b/s indexed by flow."""
    out: Dict[str, Any] = {}
    flows: Dict[int, float] = {}
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "flow" and len(f) == 3:
            flows[int(f[1])] = float(f[2])
            continue
        v = " ".join(f[1:])
        out[f[0]] = _num(v) if len(f) == 2 else v
    out["flows"] = [flows[i] for i in sorted(flows)]
    return out


def dumbbell(timeout: float = 1800.0, **opts: Any) -> Dict[str, Any]:
    """Run benchmarks/ns3/dumbbell.cc with ``--key=value`` for each option (booleans as
    true/false; ``ns3__Type__Attr`` or a key containing ``::`` passes an ns-3 attribute)
    and return :func:`parse_dumbbell` of its output."""
    binary = build("dumbbell")
    args = [str(binary)]
    for k, v in opts.items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        k = k.replace("__", "::") if k.startswith("ns3__") else k
        args.append(f"--{k}={v}")
    return parse_dumbbell(_run(args, timeout))
