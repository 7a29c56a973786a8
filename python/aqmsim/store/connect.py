"""Connections to a store's database: made whole (a new database is linked into place),
one writer at a time (a second one waits, then names the process holding it), readers
on a snapshot while a writer holds the lock."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from builtins import open as builtins_open
from pathlib import Path
from typing import Any, Optional

from .faults import _NO_WRITE_WORDS, _write_error
from .schema import TMP_MARK, StoreError, _create_tables, _duckdb

__all__ = ["LOCK_WAIT"]

#: Seconds a writer waits for a store another process holds (a reader holds it for a
#: moment; another sweep for as long as it runs: then the error says which process).
LOCK_WAIT = 3.0


def _holder(message: str) -> str:
    """``pid N: its command line`` of the process DuckDB names as holding a lock."""
    import re

    m = re.search(r"\(PID (\d+)\)", message)
    if not m:
        return "another process"
    pid = m.group(1)
    try:
        with builtins_open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = " ".join(fh.read().decode("utf-8", "replace").replace("\0", " ").split())
    except OSError:
        cmd = ""
    if len(cmd) > 120:
        cmd = cmd[:117] + "..."
    return f"another process (pid {pid}{': ' + cmd if cmd else ''})"


def _create_db(db: Path, root: Path) -> None:
    """Make a new store database under a temporary name, then link it into place: a store
    never has a half-made database file (a disk that fills, or a kill, while DuckDB writes
    its first blocks would leave one that no later run could open). When another process
    made it meanwhile, theirs is the store. An empty file (an older aqmsim's failed start)
    is made again."""
    duckdb = _duckdb()
    for stale in root.glob(f"{db.name}{TMP_MARK}*"):  # left by killed processes
        pid = stale.name[len(db.name + TMP_MARK):].split(".")[0]
        if not pid.isdigit() or int(pid) == os.getpid() or not _alive(int(pid)):
            with contextlib.suppress(OSError):
                stale.unlink()
    with contextlib.suppress(OSError):
        if db.stat().st_size == 0 and not db.with_name(db.name + ".wal").exists():
            db.unlink()
    if db.exists():
        return
    tmp = db.with_name(f"{db.name}{TMP_MARK}{os.getpid()}")
    try:
        con = duckdb.connect(str(tmp))
        try:
            _create_tables(con)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, db)  # (never over a database another process has just made)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not db.exists():
                os.replace(tmp, db)
    except (OSError, duckdb.Error) as exc:
        err = _write_error(root, exc)
        if err is None:
            raise
        raise err from None
    finally:
        for f in (tmp, tmp.with_name(tmp.name + ".wal")):
            with contextlib.suppress(OSError):
                f.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _connect_write(db: Path, root: Path) -> Any:
    """A connection to ``db`` for writing; a :class:`StoreError` naming the store when
    another process holds it past :data:`LOCK_WAIT`, or it cannot be written."""
    duckdb = _duckdb()
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            return duckdb.connect(str(db))
        except duckdb.IOException as exc:
            msg = " ".join(str(exc).split())
            if "lock" in msg.lower():
                if time.monotonic() < deadline:
                    time.sleep(0.1)
                    continue
                raise StoreError(
                    f"{root}: in use by {_holder(msg)}: DuckDB lets one process write a "
                    "store at a time (another sweep writing to it, or an open connection); "
                    "run this sweep when it has finished, or give another --store") from None
            if any(w in msg.lower() for w in _NO_WRITE_WORDS):
                raise _write_error(root, exc) from None  # (no space, no permission)
            raise StoreError(f"{db}: {msg}") from None
        except duckdb.Error as exc:
            if any(w in str(exc).lower() for w in _NO_WRITE_WORDS):
                raise _write_error(root, exc) from None
            raise StoreError(f"{db}: not a usable DuckDB database: {exc}") from None



def _connect_read(db: Path):
    """A read-only connection, or one to a snapshot copy when a writer holds the lock."""
    duckdb = _duckdb()
    try:
        return duckdb.connect(str(db), read_only=True), None
    except duckdb.ConnectionException:
        pass  # this very process holds it open for writing
    except duckdb.IOException as exc:
        if "lock" not in str(exc).lower():
            raise StoreError(f"{db}: {exc}") from None
    last: Optional[BaseException] = None
    for attempt in range(8):
        tmp = tempfile.mkdtemp(prefix="aqmsim-store-")
        try:
            copy = Path(tmp) / db.name
            shutil.copyfile(db, copy)
            wal = db.with_name(db.name + ".wal")
            if wal.exists():
                shutil.copyfile(wal, copy.with_name(copy.name + ".wal"))
            con = duckdb.connect(str(copy), read_only=True)
            con.execute("SELECT count(*) FROM runs").fetchone()
            return con, tmp
        except (duckdb.Error, OSError) as exc:  # caught mid-checkpoint: try again
            last = exc
            shutil.rmtree(tmp, ignore_errors=True)
            time.sleep(0.1 * (attempt + 1))
    raise StoreError(f"{db}: locked by a writer and no consistent snapshot could be read "
                     f"({last})")
