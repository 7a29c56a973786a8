"""Writes that fail: every write of the store goes through here, so that a full disk, a
file size limit, a read-only file system or a missing permission ends in one
:class:`~aqmsim.store.StoreError` naming the store — and files reach their place only
whole (written under a temporary name, synced, renamed)."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

from .schema import TMP_MARK, PathLike, StoreError, _db_path, _duckdb

__all__ = ["check_writable"]

#: ``os.write`` as the store's file writes call it (tests replace it to fill the disk).
_os_write = os.write


def _write_all_atomic(files: Sequence[Tuple[Path, bytes]], made: Optional[set] = None) -> None:
    """Write each (path, data) through a temporary file and a rename, synced: all written,
    then all synced (the
    first fsync commits the file system's journal for the others too), then all renamed.
    ``made``: directories known to exist (updated)."""
    pending: List[Tuple[int, Path, Path]] = []
    ok = False
    try:
        for path, data in files:
            if made is None or path.parent not in made:
                path.parent.mkdir(parents=True, exist_ok=True)
                if made is not None:
                    made.add(path.parent)
            tmp = path.with_name(f"{path.name}{TMP_MARK}{os.getpid()}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            pending.append((fd, tmp, path))
            view = memoryview(data)
            while view:
                n = _os_write(fd, view)
                view = view[n:]
        for fd, _, _ in pending:
            os.fsync(fd)
        ok = True
    finally:
        for fd, tmp, _ in pending:
            os.close(fd)
            if not ok:  # (a full disk: give the space back at once)
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
    for _, tmp, path in pending:
        os.replace(tmp, path)



def _writable(path: Path) -> bool:
    """Whether this process may write in the existing directory or file ``path`` (always
    true for root, whatever the mode bits: a read-only file system still fails later)."""
    return os.access(path, os.W_OK | (os.X_OK if path.is_dir() else 0))


def _not_writable(root: Path, why: Any = None) -> StoreError:
    return StoreError(f"{root}: cannot write to this store directory (read-only, or no "
                      "permission): a sweep with runs to do needs to write its results there; "
                      "give another with --store" + (f" ({why})" if why else ""))


#: errno values of a write that found no room: a full disk, a file size limit
#: (RLIMIT_FSIZE), a quota
_SPACE_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
_SPACE_WORDS = ("no space left", "file too large", "disk quota exceeded")
_NO_WRITE_WORDS = _SPACE_WORDS + ("permission denied", "read-only file system")


def _no_space(root: Path, detail: str) -> StoreError:
    return StoreError(f"{root}: no space left to write this store ({detail}); every run "
                      "recorded before is kept: free some space (or give another --store) "
                      "and run the same command again to finish the rest")


def _write_error(root: Path, exc: BaseException) -> Optional[StoreError]:
    """The :class:`StoreError` of a write to the store at ``root`` that failed with
    ``exc``, or None when ``exc`` is not a failed write (a bug: raised as it is)."""
    text = " ".join(str(exc).split())
    low = text.lower()
    if isinstance(exc, OSError):
        detail = exc.strerror or text
        if exc.filename:
            detail += f": {exc.filename}"
        if exc.errno in _SPACE_ERRNOS:
            return _no_space(root, detail)
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return _not_writable(root, detail)
        return StoreError(f"{root}: cannot write this store: {detail}")
    duckdb = _duckdb()
    if not isinstance(exc, duckdb.Error):
        return None
    if any(w in low for w in _SPACE_WORDS):
        return _no_space(root, text)
    if any(w in low for w in _NO_WRITE_WORDS):
        return _not_writable(root, text)
    if (isinstance(exc, (duckdb.IOException, duckdb.FatalException))
            or any(w in low for w in ("could not write", "failed to commit", "invalidated"))):
        return StoreError(f"{root}: cannot write this store: {text}")
    return None



def check_writable(path: PathLike) -> None:
    """A :class:`StoreError` naming the store directory ``path`` (or its ``runs.duckdb``)
    when this process may not write the store there: the directory (or, when it does not
    exist yet, its nearest existing parent), the database and its write-ahead log."""
    db = _db_path(path)
    root = db.parent
    probe = root
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise StoreError(f"{probe}: not a directory, so no store can be made at {root}")
    targets = [probe] + [f for f in (db, db.with_name(db.name + ".wal")) if f.exists()]
    for t in targets:
        if not _writable(t):
            raise _not_writable(root, f"{t} is not writable")

