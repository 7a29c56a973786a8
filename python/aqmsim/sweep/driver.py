"""The sweep driver: runs what the store lacks on a pool (:func:`run_tasks`,
:func:`run_sweep`), writes every result as it comes, retries failures, and refuses to
reuse runs another build of the engine made (:class:`StaleRunsError`)."""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import time
from collections import deque
from pathlib import Path
from typing import (Any, Callable, Deque, Dict, Iterable, List, Mapping, Optional, Sequence,
                    Tuple, Union)

from ..store import DB_NAME, Entry, Store, StoreError
from ..store.schema import _sql_type, _widen
from .cluster import DaskPool
from .local import LocalPool
from .outcome import _REQUEUE, command_line, engine_hash
from .spec import DEFAULT_TIMEOUT, Sweep, Task
from .tasks import Counts, RunOutcome, SweepResult, _prepare, _Unit
from .terminate import sigterm_as_interrupt
from .worker import execute

__all__ = ["run_tasks", "run_sweep", "StaleRunsError"]

PathLike = Union[str, Path]

class StaleRunsError(StoreError):
    """Runs the store holds were made by another build of the engine (or by an aqmsim that
    did not record its engine): they are not reused silently."""


def run_tasks(tasks: Iterable[Task], store: Any, *, workers: Optional[int] = None,
              scheduler: Optional[str] = None, client: Any = None, pool: Any = None,
              retries: int = 1, retry_failed: bool = False,
              metrics: Optional[Sequence[str]] = None,
              progress: Optional[Callable[[Counts], None]] = None,
              run_fn: Optional[Callable[[Any], Dict[str, Any]]] = None,
              sweep_name: Optional[str] = None,
              on_pool: Optional[Callable[[str], None]] = None,
              register: Optional[Mapping[str, Any]] = None,
              engine: Optional[str] = None,
              timeout: Optional[float] = DEFAULT_TIMEOUT,
              fresh: bool = False, stale: str = "refuse") -> SweepResult:
    """Run every task the store lacks; write each finished run at once.

    ``tasks``: ``(key, scenario dict, seed[, series names])``; tasks with the same
    scenario and seed are one run. ``store``: a :class:`aqmsim.store.Store` or a
    directory. A run is missing when the store has no row for it, when its row failed
    (except a ``scenario`` error — invalid parameters fail again — unless
    ``retry_failed``), or when its row lacks a series asked for. Runs go to ``pool`` (an
    open :class:`LocalPool` or :class:`DaskPool`, left open: several calls can share
    one), else to a local pool of ``workers`` processes (default: one per CPU), or to the
    Dask cluster at ``scheduler`` (or an existing ``client``). A failed attempt is written
    with its error and tried again up to ``retries`` times; the rest goes on. ``run_fn``
    replaces :func:`execute` in the workers (an importable function: tests use it to
    inject faults). ``progress(counts)`` is called as runs finish. ``register`` (a spec,
    with ``sweep_name``) records the tasks in the store as that sweep (its ``sweeps`` and
    ``sweep_runs`` rows), so ``aqmsim.store.open(store, sweep=sweep_name)`` lists them.
    ``engine`` is set as ``"engine"`` in every task handed to the workers: ``"ns2"`` has
    :func:`execute` run them in ns-2 (keep those runs in a store of their own: a run is
    keyed by scenario and seed, not by engine). ``timeout``: the wall-clock seconds a run
    may take (default :data:`DEFAULT_TIMEOUT`, None: no limit); a run past it is stopped
    (its local worker process killed and replaced; on Dask its task cancelled) and
    recorded failed with ``error_kind = "timeout"`` — not retried in this call (a run is
    deterministic), but run again by the next call, as other failures are.

    Every row records its provenance (aqmsim's version, the engine's build, the host, the
    command line: :mod:`aqmsim.store`). A stored run made by another build of the engine
    (another ``aqmsim._core.BUILD["source_hash"]``, or none recorded) is stale: the call
    raises :class:`StaleRunsError` (saying how many, naming ``--fresh``) before running
    anything, unless ``fresh``, which runs every task again whatever the store holds, or
    ``stale="rerun"``, which runs the stale ones again and counts them in
    ``counts.stale`` (for stores that are a cache aqmsim owns, such as a reproduction's:
    the caller says so to the user)."""
    if stale not in ("refuse", "rerun"):
        raise ValueError(f"stale must be 'refuse' or 'rerun', not {stale!r}")
    _refuse_reentry()
    units, order = _prepare(tasks)
    with sigterm_as_interrupt():
        return _run_units(units, order, store, workers=workers, scheduler=scheduler,
                          client=client, pool=pool, retries=retries,
                          retry_failed=retry_failed, metrics=metrics, progress=progress,
                          run_fn=run_fn, sweep_name=sweep_name, on_pool=on_pool,
                          register=register, engine=engine, timeout=timeout, fresh=fresh,
                          command=command_line(), stale=stale)


def _refuse_reentry() -> None:
    """One clear error when a sweep is started by a process that multiprocessing is
    starting (a worker running the driver's script again, see
    :func:`aqmsim.sweep.local._main_not_rerun`), instead of a second sweep locking the store."""
    if getattr(mp.current_process(), "_inheriting", False):
        raise RuntimeError("a sweep was started while a worker process was starting (the "
                           "script that starts the sweep runs again in each worker): put "
                           "the sweep under `if __name__ == \"__main__\":`")


def _run_units(units: List[_Unit], order: List[Tuple[str, int]], store: Any, *,
               workers: Optional[int], scheduler: Optional[str], client: Any, retries: int,
               retry_failed: bool, metrics: Optional[Sequence[str]],
               progress: Optional[Callable[[Counts], None]],
               run_fn: Optional[Callable[[Any], Dict[str, Any]]],
               sweep_name: Optional[str],
               on_pool: Optional[Callable[[str], None]], pool: Any = None,
               register: Optional[Mapping[str, Any]] = None,
               engine: Optional[str] = None,
               timeout: Optional[float] = DEFAULT_TIMEOUT, fresh: bool = False,
               command: Optional[str] = None, stale: str = "refuse") -> SweepResult:
    t_start = time.perf_counter()
    own_store = not isinstance(store, Store)
    st: Store = Store(store) if own_store else store
    try:
        if own_store:
            st.clean_temporary()
        if register is not None and sweep_name:
            st.register_sweep(sweep_name, dict(register), [], None,
                              sorted({s for u in units for s in u.series}),
                              [(u.hash, u.seed, u.scenario) for u in units])
        counts = Counts(total=len(units))
        states = st.states()
        if engine == "ns2":  # the identity its worker stores ns-2 runs under
            from ..ns2.worker import NS2_BUILD

            current = NS2_BUILD["source_hash"]
        else:
            current = engine_hash()
        rerun: set = set()
        if not fresh and stale == "rerun":
            rerun = _stale_keys(units, states, current)
            counts.stale = len(rerun)
        elif not fresh:
            _check_fresh(st, units, states, current)
        todo: Deque[_Unit] = deque()
        for u in units:
            row = states.get((u.hash, u.seed))
            if row is not None:
                u.stored = True
                u.attempts = int(row["attempts"] or 0)
                if fresh or (u.hash, u.seed) in rerun:
                    # run again; a failure now replaces an ok row of before
                    if row["status"] == "ok":
                        u.old_series = dict(row["series"])
                elif row["status"] == "ok":
                    u.old_series, u.was_ok = dict(row["series"]), True
                    if all(s in u.old_series for s in u.series):
                        u.state, u.skipped = "ok", True
                        counts.ok += 1
                        counts.skipped += 1
                        continue
                elif (row["error_kind"] == "scenario" and not retry_failed
                      and _same_engine(row, current)):
                    u.state, u.skipped = "failed", True
                    u.error_kind = "scenario"
                    counts.failed += 1
                    counts.skipped += 1
                    continue
            todo.append(u)
        if progress:
            progress(counts)
        pool_desc = "nothing to run"
        t_ready = time.perf_counter()
        t_done: Optional[float] = None
        if todo:
            fn = run_fn or execute
            own_pool = pool is None
            if not own_pool:
                pass  # the caller's, left open
            elif scheduler is not None or client is not None:
                pool = DaskPool(scheduler, client=client, run_fn=fn)
            else:
                n = workers or os.cpu_count() or 1
                pool = LocalPool(min(n, len(todo)), run_fn=fn)
            pool_desc = pool.describe()
            if on_pool:
                on_pool(pool_desc)
            t_ready = time.perf_counter()
            try:
                _drive(pool, todo, st, counts, retries, metrics, progress, sweep_name,
                       engine, timeout, command)
            except BaseException:
                # (a pool of the caller too: tasks of this call are still in its hands)
                pool.close(kill=True)
                raise
            t_done = time.perf_counter()
            if own_pool:
                pool.close()
        t_end = time.perf_counter()
        if t_done is None:
            t_done = t_end
        _attach_errors(st, units)
    except BaseException:
        # (Ctrl-C, SIGTERM, a store error: no temporary file left for the next run)
        try:
            st.clean_temporary()
        except Exception:  # noqa: BLE001 - the first error is the one to report
            pass
        raise
    finally:
        if own_store:
            st.close()
    by_key = {(u.hash, u.seed): u for u in units}
    outcomes = []
    keys_left = {id(u): list(u.keys) for u in units}
    for h, seed in order:
        u = by_key[(h, seed)]
        key = keys_left[id(u)].pop(0)
        outcomes.append(RunOutcome(key, h, seed, u.state, u.error, u.error_kind,
                                   u.attempts, u.skipped))
    return SweepResult(sweep_name, st.root, counts, outcomes, t_end - t_start,
                       t_done - t_ready, pool_desc)


def _attach_errors(st: Any, units: List[_Unit]) -> None:
    """Errors of failed runs skipped this time (recorded by an earlier invocation)."""
    skipped = [u for u in units if u.skipped and u.state == "failed"]
    if not skipped:
        return
    rows = dict(((h, int(s)), e) for h, s, e in st.con.execute(
        "SELECT hash, seed, error FROM runs WHERE status = 'failed'").fetchall())
    for u in skipped:
        u.error = rows.get((u.hash, u.seed))


def _drive(pool: Any, todo: Deque[_Unit], st: Any, counts: Counts, retries: int,
           metrics: Optional[Sequence[str]], progress: Optional[Callable[[Counts], None]],
           sweep_name: Optional[str], engine: Optional[str] = None,
           timeout: Optional[float] = None, command: Optional[str] = None) -> None:
    """Keep the pool busy and write every result the pool hands back before asking for
    more: the results of one ``wait`` — everything that finished since the last one — go
    to the store together (:meth:`aqmsim.store.Store.record_many`: their files, then their
    rows in one transaction), so the driver's cost per run shrinks when runs are short,
    and a result the driver has received is in the store before it takes the next."""
    inflight: Dict[int, _Unit] = {}
    next_tid = 0
    run_s = 0.0  # moving average of a run's wall-clock time in its worker

    def refill() -> None:
        nonlocal next_tid
        while todo and pool.free() > 0:
            u = todo.popleft()
            want = list(dict.fromkeys(list(u.series) + list(u.old_series)))
            payload = {"scenario": u.scenario, "seed": u.seed, "series": want, "hash": u.hash}
            if engine is not None:
                payload["engine"] = engine
            if timeout is not None:
                pool.submit(next_tid, payload, timeout=timeout)
            else:  # (a caller's pool may not know time limits)
                pool.submit(next_tid, payload)
            inflight[next_tid] = u
            next_tid += 1

    while todo or inflight:
        refill()
        finished = pool.wait(timeout=0.5)
        refill()  # workers get their next task before the driver writes
        batch: List[Any] = []
        done: List[Tuple[_Unit, Dict[str, Any]]] = []
        for tid, res in finished:
            wall = res.get("wall")
            if isinstance(wall, float) and wall >= 0:
                run_s = wall if run_s == 0.0 else 0.9 * run_s + 0.1 * wall
            u = inflight.pop(tid)
            if res.get("status") == _REQUEUE:
                todo.appendleft(u)  # handed to a worker that died before starting it
                continue
            u.tries += 1
            u.attempts += 1
            if res.get("status") == "ok" or not u.was_ok:
                # (a run stored ok, rerun only for a missing series, keeps its ok row)
                batch.append(Entry(u.hash, u.seed, u.scenario, res, u.attempts,
                                   replace=u.stored))
                u.stored = True
            done.append((u, res))
        st.record_many(batch, sweep=sweep_name, metrics=metrics, command=command)
        if run_s > 0 and hasattr(pool, "queue_for"):
            pool.queue_for(run_s)
        for u, res in done:
            if res.get("status") == "ok":
                u.state, u.error, u.error_kind = "ok", None, None
                counts.ok += 1
                if u.tries > 1:
                    counts.retrying -= 1
            else:
                u.error, u.error_kind = res.get("error"), res.get("error_kind")
                if u.tries <= retries and u.error_kind != "timeout":
                    if u.tries == 1:
                        counts.retrying += 1
                    todo.append(u)       # at the back: likely on another worker
                else:
                    u.state = "failed"
                    counts.failed += 1
                    if u.tries > 1:
                        counts.retrying -= 1
            if progress:
                progress(counts)


def run_sweep(sweep: Sweep, store: Optional[PathLike] = None, *,
              workers: Optional[int] = None, scheduler: Optional[str] = None,
              client: Any = None, retries: int = 1, retry_failed: bool = False,
              progress: Optional[Callable[[Counts], None]] = None,
              run_fn: Optional[Callable[[Any], Dict[str, Any]]] = None,
              on_pool: Optional[Callable[[str], None]] = None,
              timeout: Optional[float] = None, fresh: bool = False) -> SweepResult:
    """Run a sweep into its store (``store``, else :meth:`Sweep.default_store`): record the
    sweep and its runs, add its parameter columns, run what is missing. ``timeout``: a
    run's wall-clock limit in seconds (default: the sweep's, :data:`DEFAULT_TIMEOUT`
    unless its file says; ``math.inf``: none). When the store already holds the whole
    sweep, it is only read (a read-only store, or one another process is writing, is
    fine); when there is something to write and the store cannot be written, a
    :class:`aqmsim.store.StoreError` names its directory. Runs stored by another build of
    the engine are refused (:class:`StaleRunsError`) unless ``fresh``, which runs every run
    of the sweep again (:func:`run_tasks`)."""
    _refuse_reentry()
    with sigterm_as_interrupt():
        return _run_sweep(sweep, store, workers=workers, scheduler=scheduler, client=client,
                          retries=retries, retry_failed=retry_failed, progress=progress,
                          run_fn=run_fn, on_pool=on_pool, timeout=timeout, fresh=fresh,
                          command=command_line())


def _run_sweep(sweep: Sweep, store: Optional[PathLike], *, workers: Optional[int],
               scheduler: Optional[str], client: Any, retries: int, retry_failed: bool,
               progress: Optional[Callable[[Counts], None]],
               run_fn: Optional[Callable[[Any], Dict[str, Any]]],
               on_pool: Optional[Callable[[str], None]], timeout: Optional[float],
               fresh: bool, command: str) -> SweepResult:
    units, order = _prepare(sweep.tasks())
    path = Path(store) if store is not None else sweep.default_store()
    limit = sweep.timeout if timeout is None else timeout
    if limit is not None and math.isinf(limit):
        limit = None
    done = None if fresh else _already_complete(sweep, units, order, path, retry_failed,
                                                progress)
    if done is not None:
        return done
    with Store(path) as st:
        st.clean_temporary()
        st.register_sweep(sweep.name, sweep.spec, sweep.params, sweep.metrics, sweep.series,
                          [(u.hash, u.seed, u.scenario) for u in units])
        values: Dict[str, List[Any]] = {k: [] for k in sweep.params}
        for g in sweep.groups:
            for k, v in g.params.items():
                values[k] = list(v)
        st.ensure_params(values)
        known = st.summary_keys()
        if sweep.metrics is not None and known is not None:
            st.ensure_metrics([m for m in sweep.metrics if m in known])
        result = _run_units(units, order, st, workers=workers, scheduler=scheduler,
                            client=client, retries=retries, retry_failed=retry_failed,
                            metrics=sweep.metrics, progress=progress, run_fn=run_fn,
                            sweep_name=sweep.name, on_pool=on_pool, timeout=limit,
                            fresh=fresh, command=command)
        result.name = sweep.name
        known = st.summary_keys()
        if sweep.metrics is not None and known is not None:
            result.unknown_metrics = [m for m in sweep.metrics if m not in known]
    return result


def _same_engine(row: Mapping[str, Any], current: Optional[str]) -> bool:
    """Whether a stored row was made by the engine ``current`` (unknown: assumed so)."""
    return current is None or row.get("engine_hash") == current


def _needs_run(u: _Unit, row: Optional[Mapping[str, Any]], retry_failed: bool) -> bool:
    """Whether :func:`_run_units` would run ``u`` given its stored ``row`` (kept in step
    with the choice made there)."""
    if row is None:
        return True
    if row["status"] == "ok":
        return not all(s in dict(row["series"]) for s in u.series)
    return not (row["error_kind"] == "scenario" and not retry_failed
                and _same_engine(row, engine_hash()))


def _already_complete(sweep: Sweep, units: List[_Unit], order: List[Tuple[str, int]],
                      path: Path, retry_failed: bool,
                      progress: Optional[Callable[[Counts], None]] = None
                      ) -> Optional[SweepResult]:
    """The result of a sweep the store at ``path`` already holds entirely — registered as
    it is now, its columns there, no run to do — read without opening the store for
    writing; else None (the store is then opened for writing)."""
    if not (path / DB_NAME).is_file():
        return None
    try:
        st = Store(path, read_only=True)
    except StoreError:
        return None
    try:
        row = st.con.execute("SELECT spec, params, metrics, series FROM sweeps "
                             "WHERE name = ?", [sweep.name]).fetchone()
        if row is None:
            return None
        want = (json.loads(json.dumps(sweep.spec, default=str)), list(sweep.params),
                list(sweep.metrics) if sweep.metrics is not None else None,
                list(sweep.series))
        if tuple(json.loads(x) if x is not None else None for x in row) != want:
            return None
        members = [(h, int(s)) for h, s in st.con.execute(
            "SELECT hash, seed FROM sweep_runs WHERE sweep = ? ORDER BY position",
            [sweep.name]).fetchall()]
        if members != [(u.hash, u.seed) for u in units]:
            return None
        for g in sweep.groups:
            for k, v in g.params.items():
                have = st._columns.get(k)
                if have is None or _widen(have, _sql_type(v)) != have:
                    return None
        known = st.summary_keys()
        if sweep.metrics is not None and known is not None and any(
                m in known and m not in st._columns for m in sweep.metrics):
            return None
        states = st.states()
        if any(_needs_run(u, states.get((u.hash, u.seed)), retry_failed) for u in units):
            return None
        result = _run_units(units, order, st, workers=None, scheduler=None, client=None,
                            retries=0, retry_failed=retry_failed, metrics=sweep.metrics,
                            progress=progress, run_fn=None, sweep_name=sweep.name,
                            on_pool=None)
        result.name = sweep.name
        if sweep.metrics is not None and known is not None:
            result.unknown_metrics = [m for m in sweep.metrics if m not in known]
        return result
    finally:
        st.close()


def _stale_keys(units: List[_Unit], states: Mapping[Tuple[str, int], Any],
                want: Optional[str]) -> set:
    """The (hash, seed) keys of ``units`` whose stored ok run another engine made (or an
    aqmsim that recorded none); nothing without an engine ``want`` to compare with."""
    if want is None:
        return set()
    out = set()
    for u in units:
        row = states.get((u.hash, u.seed))
        if row is not None and row["status"] == "ok" and row.get("engine_hash") != want:
            out.add((u.hash, u.seed))
    return out


def _check_fresh(st: Store, units: List[_Unit], states: Mapping[Tuple[str, int], Any],
                 want: Optional[str]) -> None:
    """A :class:`StaleRunsError` when a stored ok run of ``units`` was made by an engine
    other than ``want`` (this driver's source hash): one line saying how many, by what,
    and naming ``--fresh``. Nothing is checked without an engine to compare with. Failed
    runs are not results: they are run again anyway (one that failed on its parameters
    too, when another engine judged them), so they are never a reason to refuse — and a
    failure the driver recorded (a worker that died, a time-out) has no engine."""
    if want is None:
        return
    other: Dict[str, int] = {}
    unknown = 0
    for key in _stale_keys(units, states, want):
        row = states[key]
        if row.get("engine_hash"):
            other[row["engine_hash"]] = other.get(row["engine_hash"], 0) + 1
        else:
            unknown += 1
    n = sum(other.values()) + unknown
    if not n:
        return
    parts = [f"{k} by engine {h[:12]}" for h, k in sorted(other.items())]
    if unknown:
        parts.append(f"{unknown} by an aqmsim that did not record its engine (a store "
                     "from before provenance was kept)")
    raise StaleRunsError(
        f"{st.root}: {n} of the {len(units)} runs asked for were stored by another build of "
        f"the engine ({'; '.join(parts)}; this one is {want[:12]}), so they are not reused: "
        "run again with --fresh (Python: fresh=True) to re-run them with this engine")
