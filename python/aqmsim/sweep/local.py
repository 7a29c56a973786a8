"""The local pool: worker processes on this machine, each with its own pipe.

Why not a standard executor? The pool must keep two guarantees: (1) a worker killed while
it runs (the OOM killer, a crash in the engine, ``kill -9``) loses only the run it had in
hand — recorded failed, retried — while the other workers go on; (2) a run past its time
limit is stopped (its process killed) and recorded ``timeout``. Checked on Python 3.11.7
(2 spawned workers, six 0.5 s tasks, the third one SIGKILLs its own worker; then one task
that sleeps for an hour; see docs/sweeps-internals.md):

* ``concurrent.futures.ProcessPoolExecutor``: tasks 1-5 all fail with
  ``BrokenProcessPool`` — the run on the *other* worker too — and the executor refuses
  any new task (``BrokenProcessPool``): every worker must be restarted and the lost runs
  told apart from the one that killed its worker. The hung task: ``result(timeout=1)``
  raises ``TimeoutError`` but ``cancel()`` returns False and it keeps running: nothing
  stops it short of killing the pool.
* ``multiprocessing.Pool``: the others finish, but the killed task's ``AsyncResult``
  never completes (``get(timeout=10)``: ``TimeoutError``, nothing saying its worker
  died); no way to stop one hung task without ``terminate()`` of the whole pool.
* loky 3.7 (joblib's executor): tasks 2-5 — every task not yet finished — fail with
  ``TerminatedWorkerError``; ``get_reusable_executor()`` gives a working executor
  afterwards, but those runs must be resubmitted (telling which one killed its worker
  is up to us), and a hung task cannot be cancelled either (``cancel()`` False).

So the pool is ours: a process per worker and a pipe each, tasks handed over in order, so
that when a process dies the driver knows which run it was running (failed) and which it
had not started (handed back), and kills a process whose run is past its limit.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import math
import multiprocessing as mp
import multiprocessing.connection as mpc
import os
import pickle
import signal
import sys
import time
from collections import deque
from typing import Any, Callable, Deque, Dict, Iterator, List, Optional, Tuple

from .outcome import _REQUEUE, _exit_text, _failure, _timeout_failure
from .worker import execute

__all__ = ["LocalPool"]


def _worker_main(conn: Any, run_fn: Callable[[Any], Dict[str, Any]]) -> None:
    """A local worker: import the engine, say ready, then run tasks until told to stop or
    the driver goes away (EOF on the pipe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    try:
        from . import outcome, worker  # noqa: F401 - load the engine once, before the first task

        outcome.engine_build()
        conn.send(("ready", os.getpid()))
    except BaseException as exc:  # noqa: BLE001
        try:
            conn.send(("broken", f"{type(exc).__name__}: {exc}"))
        finally:
            return
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        tid, payload = msg
        try:
            res = run_fn(payload)
        except BaseException as exc:  # noqa: BLE001
            res = _failure("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send((tid, res))
        except (OSError, ValueError):
            return
        except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable result
            try:
                conn.send((tid, _failure("error", f"result not transferable: {exc}")))
            except Exception:  # noqa: BLE001
                return




class _Slot:
    __slots__ = ("proc", "conn", "tids", "limits", "started")

    def __init__(self, proc: Any, conn: Any) -> None:
        self.proc, self.conn = proc, conn
        self.tids: Deque[int] = deque()   # handed over, in order; the first one is running
        self.limits: Deque[Optional[float]] = deque()  # each task's time limit, s
        self.started = 0.0                # when the first of tids started (about)

    def overdue(self, now: float) -> bool:
        limit = self.limits[0] if self.limits else None
        return bool(self.tids) and limit is not None and now - self.started > limit

    def deadline(self) -> Optional[float]:
        limit = self.limits[0] if self.limits else None
        return None if not self.tids or limit is None else self.started + limit


class LocalPool:
    """``workers`` processes (spawned, so no state is inherited), each with its own pipe.
    Each holds up to ``depth`` tasks — the one it runs and the next ones, so that it never
    waits for the driver between two short runs. Tasks run in the order handed over: when
    a process dies, the first task it had not answered is the one it was running (reported
    failed), the others never started (handed back, see ``_REQUEUE``), and a new process
    takes its place. A task still running past its time limit (``submit(..., timeout=)``)
    has its process killed: it is reported failed (``error_kind = "timeout"``), and the
    process replaced like a dead one."""

    kind = "local"

    def __init__(self, workers: int, run_fn: Callable[[Any], Dict[str, Any]] = execute,
                 start_timeout: float = 120.0, depth: int = 2) -> None:
        self._ctx = mp.get_context("spawn")
        self._run_fn = run_fn
        self._timeout = start_timeout
        self.workers = max(1, int(workers))
        self.depth = max(1, int(depth))
        self._slots: List[_Slot] = []
        try:
            for _ in range(self.workers):
                self._slots.append(self._spawn())
            for s in self._slots:
                self._await_ready(s)
        except BaseException:
            self.close(kill=True)
            raise

    def describe(self) -> str:
        return f"local pool, {self.workers} worker process{'es' if self.workers > 1 else ''}"

    def _spawn(self) -> _Slot:
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(target=_worker_main, args=(child, self._run_fn),
                                 name="aqmsim-sweep-worker", daemon=True)
        with _main_not_rerun(self._run_fn):
            proc.start()
        child.close()
        return _Slot(proc, parent)

    def _await_ready(self, s: _Slot) -> None:
        if not s.conn.poll(self._timeout):
            raise RuntimeError(f"a sweep worker did not start within {self._timeout:g} s")
        try:
            msg = s.conn.recv()
        except (EOFError, OSError):
            s.proc.join(5)
            raise RuntimeError("a sweep worker died while starting "
                               f"({_exit_text(s.proc.exitcode)}; its error is above)"
                               + _GUARD_HINT) from None
        if msg[0] != "ready":
            raise RuntimeError(f"a sweep worker could not start: {msg[1]}")

    def _replace(self, s: _Slot) -> None:
        try:
            s.conn.close()
        except OSError:
            pass
        if s.proc.is_alive():
            s.proc.kill()
        s.proc.join(5)
        fresh = self._spawn()
        self._await_ready(fresh)
        s.proc, s.conn = fresh.proc, fresh.conn

    #: Work each process is given ahead, in seconds of its runs (see :meth:`queue_for`).
    AHEAD_S = 0.05
    MAX_DEPTH = 16

    def queue_for(self, run_s: float) -> None:
        """Runs of ``run_s`` seconds: hold ~``AHEAD_S`` of them per process (2 to
        ``MAX_DEPTH``), so that short runs do not wait while the driver writes, and long
        ones are not queued behind each other when another process is free."""
        self.depth = max(2, min(self.MAX_DEPTH, math.ceil(self.AHEAD_S / max(run_s, 1e-6))))

    def free(self) -> int:
        return sum(max(0, self.depth - len(s.tids)) for s in self._slots)

    def submit(self, tid: int, payload: Any, timeout: Optional[float] = None) -> None:
        """Hand a task to the least loaded process; ``timeout``: its wall-clock limit in
        seconds from when it starts (None: none)."""
        # the least loaded worker (an idle one first)
        s = min((s for s in self._slots if len(s.tids) < self.depth), key=lambda s: len(s.tids))
        if not s.tids and not s.proc.is_alive():
            self._replace(s)
        try:
            s.conn.send((tid, payload))
        except (OSError, EOFError):
            if not s.tids:
                self._replace(s)
                s.conn.send((tid, payload))
            # else it died with tasks in hand: wait() reports them, this one with them
            # (handed back: it never started)
        if not s.tids:
            s.started = time.monotonic()
        s.tids.append(tid)
        s.limits.append(timeout if timeout is not None and timeout > 0 else None)

    def _pop(self, s: _Slot) -> int:
        s.limits.popleft()
        # the next task starts as this one ends (as the driver sees it: a limit counted
        # from here is, if anything, longer than the run had)
        s.started = time.monotonic()
        return s.tids.popleft()

    def wait(self, timeout: Optional[float]) -> List[Tuple[int, Dict[str, Any]]]:
        """Every result ready now (after waiting up to ``timeout`` for the first)."""
        busy = [s for s in self._slots if s.tids]
        if not busy:
            return []
        deadlines = [d for d in (s.deadline() for s in busy) if d is not None]
        if deadlines:
            until = max(0.0, min(deadlines) - time.monotonic())
            timeout = until if timeout is None else min(timeout, until)
        objs: List[Any] = [s.conn for s in busy] + [s.proc.sentinel for s in busy]
        ready = mpc.wait(objs, timeout)
        out: List[Tuple[int, Dict[str, Any]]] = []
        now = time.monotonic()
        for s in busy:
            late = s.overdue(now)
            if s.conn not in ready and s.proc.sentinel not in ready and not late:
                continue
            dead = False
            try:
                while s.tids and s.conn.poll():
                    got_tid, res = s.conn.recv()
                    tid = self._pop(s)
                    if got_tid != tid:  # pragma: no cover - protocol guard
                        res = _failure("error", "worker answered for another task")
                    out.append((tid, res))
            except (EOFError, OSError):
                dead = True
            if late and s.overdue(now) and not dead and s.proc.is_alive():
                # still running past its limit (its answer, had it come, was read above)
                limit = s.limits[0]
                s.proc.kill()
                s.proc.join(5)
                out.append((self._pop(s), _timeout_failure(limit)))
                while s.tids:
                    out.append((self._pop(s), {"status": _REQUEUE}))
                self._replace(s)
            elif s.tids and (dead or not s.proc.is_alive()):
                s.proc.join(5)
                out.append((self._pop(s), _failure(
                    "worker", f"the worker process running it died ({_exit_text(s.proc.exitcode)})")))
                while s.tids:
                    out.append((self._pop(s), {"status": _REQUEUE}))
                self._replace(s)
        return out

    def close(self, kill: bool = False) -> None:
        for s in self._slots:
            if not kill:
                try:
                    s.conn.send(None)
                except (OSError, ValueError):
                    pass
        for s in self._slots:
            if kill and s.proc.is_alive():
                s.proc.terminate()
            s.proc.join(0.5 if kill else 5)
            if s.proc.is_alive():
                s.proc.kill()
                s.proc.join(5)
            try:
                s.conn.close()
            except OSError:
                pass
        self._slots = []


#: Why a worker may die at its start: its ``run_fn`` lives in the script that started the
#: sweep, so the worker runs that script again (see :func:`_main_not_rerun`).
_GUARD_HINT = ("; a run_fn defined in the script that starts the sweep makes each worker "
               "run that script again: put the sweep under `if __name__ == \"__main__\":` "
               "or the run_fn in a module of its own")


def _needs_main(run_fn: Any) -> bool:
    """Whether ``run_fn`` refers to the main script (a function defined there, or a
    ``functools.partial`` of one): its pickle names ``__main__``."""
    try:
        return b"__main__" in pickle.dumps(run_fn)
    except Exception:  # noqa: BLE001 - cannot tell: spawn as multiprocessing does
        return True


@contextlib.contextmanager
def _main_not_rerun(run_fn: Any) -> Iterator[None]:
    """Start spawned workers without running the driver's main script again.

    multiprocessing's spawn makes each new process import the parent's ``__main__`` from
    its file (to find functions defined there); a script that calls :func:`run_sweep`
    without an ``if __name__ == "__main__":`` guard would start a sweep in every worker.
    Our workers need nothing from ``__main__`` (their function is
    :func:`_worker_main`, their ``run_fn`` an importable one), so while a worker starts
    ``__main__`` gets a module spec named ``__main__``, which spawn's child side skips
    (it does so for ``python -m pkg``). A ``run_fn`` defined in the script itself still
    needs the script: then nothing changes (and the script needs its guard)."""
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None or _needs_main(run_fn):
        yield
        return
    main.__spec__ = importlib.machinery.ModuleSpec("__main__", None)
    try:
        yield
    finally:
        main.__spec__ = None
