"""Runs on a Dask ``distributed`` cluster (:class:`DaskPool`), the scheduler address
check, and :class:`SharedPool` (a local or Dask pool started on first use, shared by
several :func:`~aqmsim.sweep.run_tasks` calls)."""

from __future__ import annotations

import os
import time
import uuid
from typing import Any, Callable, Dict, List, Optional, Tuple

from .local import LocalPool
from .outcome import _failure, _timeout_failure
from .worker import execute

__all__ = ["DaskPool", "SharedPool", "SchedulerAddressError", "check_scheduler_address",
           "CONNECT_TIMEOUT"]

#: Seconds to wait for a Dask scheduler to answer (``aqmsim sweep --scheduler``).
CONNECT_TIMEOUT = 10.0


class DaskPool:
    """Tasks on a Dask ``distributed`` cluster. A worker that dies is the scheduler's to
    handle first (it reruns the task elsewhere, up to ``distributed.scheduler.allowed-
    failures`` times); a task that still fails comes back as a failure like any other.

    A task past its time limit (``submit(..., timeout=)``, counted from when a worker
    first shows it executing; one never seen executing gets twice that from its
    submission) is cancelled and
    reported failed (``error_kind = "timeout"``). Dask cannot stop the Python thread
    running it: a worker keeps that thread busy until the run ends (or the worker is
    restarted)."""

    kind = "dask"

    def __init__(self, scheduler: Optional[str] = None, client: Any = None,
                 run_fn: Callable[[Any], Dict[str, Any]] = execute,
                 connect_timeout: float = CONNECT_TIMEOUT) -> None:
        if client is None:
            scheduler = check_scheduler_address(scheduler)
        try:
            import distributed
        except ImportError as exc:
            raise ImportError("--scheduler needs the dask distributed package "
                              "(pip install distributed)") from exc
        self._dd = distributed
        self._own = client is None
        if client is None:
            client = _connect(distributed, scheduler, connect_timeout)
        self.client = client
        self._run_fn = run_fn
        self._futures: Dict[str, Tuple[int, Any]] = {}
        self._limits: Dict[str, Tuple[float, float]] = {}  # key -> (limit, start)
        self._seen_running: set = set()
        self._checked_at = 0.0
        self._threads = 0
        self._threads_at = 0.0
        self._done = distributed.as_completed(loop=client.loop)

    def describe(self) -> str:
        info = self.client.scheduler_info()
        workers = info.get("workers", {})
        threads = sum(w.get("nthreads", 1) for w in workers.values())
        return (f"Dask cluster {info.get('address', '?')}, {len(workers)} worker"
                f"{'s' if len(workers) != 1 else ''}, {threads} thread"
                f"{'s' if threads != 1 else ''}")

    def _total_threads(self) -> int:
        now = time.monotonic()
        if now - self._threads_at > 2.0:
            try:
                self._threads = sum(self.client.nthreads().values())
            except Exception:  # noqa: BLE001
                pass
            self._threads_at = now
        return self._threads

    def free(self) -> int:
        window = max(2 * self._total_threads(), 4)
        return max(0, window - len(self._futures))

    def submit(self, tid: int, payload: Any, timeout: Optional[float] = None) -> None:
        fut = self.client.submit(self._run_fn, payload, pure=False,
                                 key=f"aqmsim-run-{tid}-{uuid.uuid4().hex[:12]}")
        self._futures[fut.key] = (tid, fut)
        if timeout is not None and timeout > 0:
            self._limits[fut.key] = (float(timeout), time.monotonic())
        self._done.add(fut)

    #: Seconds between two looks at what the workers are running (for time limits).
    CHECK_EVERY = 1.0

    def _overdue(self) -> List[Tuple[int, Dict[str, Any]]]:
        """Cancel the tasks past their time limit; their failures."""
        now = time.monotonic()
        if not self._limits or now - self._checked_at < self.CHECK_EVERY:
            return []
        self._checked_at = now
        try:  # a task's limit runs from when a worker shows it executing
            # (bounded: a worker slow to answer must not stall the driver)
            got = self.client.sync(self.client._run, _executing, on_error="ignore",
                                   callback_timeout=5.0)
            running = {k for keys in got.values() for k in keys}
        except Exception:  # noqa: BLE001 - else from when the scheduler assigns it
            try:
                running = {k for keys in self.client.processing().values() for k in keys}
            except Exception:  # noqa: BLE001 - else from its submission
                running = set(self._limits)
        for key in running:
            if key in self._limits and key not in self._seen_running:
                self._seen_running.add(key)
                limit, _ = self._limits[key]
                self._limits[key] = (limit, now)
        late = [k for k, (limit, t0) in self._limits.items()
                if k in self._seen_running and now - t0 > limit
                or k not in self._seen_running and now - t0 > 2 * limit]
        out: List[Tuple[int, Dict[str, Any]]] = []
        for key in late:
            if self._futures[key][1].status != "pending":
                continue  # it ended meanwhile: wait() reports it
            tid, fut = self._futures.pop(key)
            limit, _ = self._limits.pop(key)
            self._seen_running.discard(key)
            try:
                self.client.cancel([fut])
            except Exception:  # noqa: BLE001
                pass
            out.append((tid, _timeout_failure(limit)))
        return out

    def wait(self, timeout: Optional[float]) -> List[Tuple[int, Dict[str, Any]]]:
        if not self._futures:
            return []
        # (distributed.wait needs a default client; as_completed follows our own)
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._done.has_ready():
            late = self._overdue()
            if late:
                return late
            if deadline is not None and time.monotonic() >= deadline:
                return []
            time.sleep(0.005)
        done = self._done.next_batch(block=False)
        out: List[Tuple[int, Dict[str, Any]]] = self._overdue()
        for fut in done:
            if fut.key not in self._futures:
                continue  # cancelled past its time limit, reported then
            self._limits.pop(fut.key, None)
            self._seen_running.discard(fut.key)
            tid, _ = self._futures.pop(fut.key)
            if fut.status == "finished":
                try:
                    res = fut.result()
                except Exception as exc:  # noqa: BLE001
                    res = _failure("error", f"{type(exc).__name__}: {exc}")
            elif fut.status == "cancelled":
                res = _failure("worker", "the task was cancelled on the cluster")
            else:
                exc = fut.exception()
                kind = "worker" if type(exc).__name__ == "KilledWorker" else "error"
                res = _failure(kind, f"{type(exc).__name__}: {exc}")
            fut.release()
            out.append((tid, res))
        return out

    def close(self, kill: bool = False) -> None:
        futs = [f for _, f in self._futures.values()]
        if futs:
            try:
                self.client.cancel(futs)
            except Exception:  # noqa: BLE001
                pass
        self._futures.clear()
        self._limits.clear()
        self._seen_running.clear()
        self._done.clear()
        if self._own:
            self.client.close()


def _executing(dask_worker: Any) -> List[str]:
    """(Run on each Dask worker.) The keys of the tasks it is executing now."""
    return [str(ts.key) for ts in getattr(dask_worker.state, "executing", ())]


_SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")


class SchedulerAddressError(ConnectionError, ValueError):
    """A ``--scheduler`` address that cannot be one, or a scheduler that does not answer."""


def check_scheduler_address(address: Any) -> str:
    """``address`` if it can be a Dask scheduler's (``tcp://HOST:PORT``; also ``tls://``,
    ``ws://``, ``wss://``, ``ucx://``, ``inproc://…``, or ``HOST:PORT`` for tcp), else a
    :class:`SchedulerAddressError` saying what is wrong — before any connection is tried
    (a malformed one otherwise fails only after a minute, with a traceback)."""
    if not isinstance(address, str) or not address.strip():
        raise SchedulerAddressError(f"--scheduler: expected an address such as "
                                    f"tcp://HOST:8786, got {address!r}")
    addr = address.strip()
    scheme, sep, rest = addr.partition("://")
    if not sep:
        scheme, rest = "tcp", addr
    scheme = scheme.lower()
    bad = f"--scheduler {addr!r}: "
    if scheme not in _SCHEMES:
        raise SchedulerAddressError(bad + f"unknown scheme {scheme!r}, expected one of "
                                    + ", ".join(s + "://" for s in _SCHEMES))
    if scheme == "inproc":
        if not rest:
            raise SchedulerAddressError(bad + "inproc:// needs an address")
        return addr
    rest = rest.rstrip("/")
    if rest.startswith("["):  # [IPv6]:PORT
        host, close, tail = rest[1:].partition("]")
        if not close or not tail.startswith(":"):
            raise SchedulerAddressError(bad + "expected [IPV6]:PORT after the scheme")
        port = tail[1:]
    else:
        host, colon, port = rest.rpartition(":")
        if not colon:
            raise SchedulerAddressError(bad + "no port: expected " + scheme
                                        + "://HOST:PORT (the scheduler's default is 8786)")
    if not host or any(c in host for c in "/ ?#@"):
        raise SchedulerAddressError(bad + f"not a host name: {host!r}")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise SchedulerAddressError(bad + f"the port must be a number in 1-65535, got {port!r}")
    return addr if sep else f"tcp://{addr}"


def _connect(distributed: Any, address: str, timeout: float) -> Any:
    """A client of the scheduler at ``address``, or a :class:`ConnectionError` within about
    ``timeout`` seconds (also when something accepts the connection but never answers)."""
    import threading

    box: Dict[str, Any] = {}

    def connect() -> None:
        try:
            box["client"] = distributed.Client(address, timeout=timeout,
                                               set_as_default=False)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    th = threading.Thread(target=connect, name="aqmsim-dask-connect", daemon=True)
    th.start()
    th.join(timeout + min(5.0, timeout))
    if th.is_alive():  # left behind: a daemon thread, closed with the process
        raise SchedulerAddressError(f"no answer from a Dask scheduler at {address} within "
                                    f"{timeout:g} s (is it a Dask scheduler?)")
    exc = box.get("error")
    if exc is not None:
        if isinstance(exc, (OSError, TimeoutError, asyncio_timeout_error())):
            raise SchedulerAddressError(f"could not reach the Dask scheduler at {address} "
                                        f"within {timeout:g} s: {exc or type(exc).__name__}") from None
        if isinstance(exc, (ValueError, TypeError)):
            raise SchedulerAddressError(f"--scheduler {address!r}: {exc}") from None
        raise exc
    return box["client"]


def asyncio_timeout_error() -> type:
    import asyncio

    return asyncio.TimeoutError


class SharedPool:
    """A pool started when first used and shared by several :func:`run_tasks` calls (pass
    it as ``pool``): ``aqmsim reproduce all`` starts its workers once for every paper, and
    not at all when every run is already in the stores. ``workers`` local processes
    (default: one per CPU), or the Dask cluster at ``scheduler``. After an error in the
    middle of a run it is closed, and starts afresh if used again. Use it as a context
    manager, or call :meth:`close`."""

    def __init__(self, workers: Optional[int] = None, scheduler: Optional[str] = None,
                 client: Any = None,
                 run_fn: Optional[Callable[[Any], Dict[str, Any]]] = None) -> None:
        self._workers, self._scheduler, self._client = workers, scheduler, client
        self._run_fn = run_fn or execute
        self._pool: Any = None

    @property
    def started(self) -> bool:
        return self._pool is not None

    def _get(self) -> Any:
        if self._pool is None:
            if self._scheduler is not None or self._client is not None:
                self._pool = DaskPool(self._scheduler, client=self._client, run_fn=self._run_fn)
            else:
                self._pool = LocalPool(self._workers or os.cpu_count() or 1, run_fn=self._run_fn)
        return self._pool

    def describe(self) -> str:
        return self._get().describe()

    def free(self) -> int:
        return self._get().free()

    def submit(self, tid: int, payload: Any, timeout: Optional[float] = None) -> None:
        self._get().submit(tid, payload, timeout=timeout)

    def wait(self, timeout: Optional[float]) -> List[Tuple[int, Dict[str, Any]]]:
        return self._get().wait(timeout)

    def queue_for(self, run_s: float) -> None:
        if hasattr(self._pool, "queue_for"):
            self._pool.queue_for(run_s)

    def close(self, kill: bool = False) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.close(kill=kill)

    def __enter__(self) -> "SharedPool":
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        self.close(kill=exc_type is not None)
