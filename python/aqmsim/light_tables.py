"""A run's tables as numpy columns, and CSV files written from them, without pandas.

``aqmsim run --out`` on a small scenario would otherwise spend a third of its time
importing pandas (~0.3 s) to build tables that are only written out and drawn. Here the
engine's columns are decoded straight into numpy arrays with the dtypes the DataFrames
get (:data:`aqmsim.results.SCHEMAS`), and written with the standard library's ``csv``
module exactly as ``DataFrame.to_csv(index=False)`` writes them (a test holds the two
byte for byte). Anything unusual — a column pandas would convert in its own way (missing
values in a number column, non-text values in a text column, columns of unequal length)
— is left to pandas: :func:`decode` returns None and the caller builds the DataFrame.

This module imports numpy only inside its functions (``import aqmsim`` stays light) and
imports nothing of aqmsim (the schema comes in as an argument).
"""

from __future__ import annotations

import csv
import mmap
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Tuple

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Columns", "decode", "write_csv", "split_column", "column_rows", "CSV_CELLS_LIGHT"]

#: Columns of one table: name -> 1-d numpy array (text as an object array of str).
Columns = Dict[str, "np.ndarray"]

#: Tables up to this many cells are written by :func:`write_csv`; larger ones by pandas,
#: whose writer goes in chunks (this one holds every cell's text at once).
CSV_CELLS_LIGHT = 200_000

_BUFFERS = (bytes, bytearray, mmap.mmap)


def _all_text(values: Any) -> bool:
    return all(isinstance(x, str) for x in values)


def split_column(v: Any) -> Optional[Tuple[Any, ...]]:
    """The one reader of the engine's column forms: ``("category", codes, names)`` for
    ``("category", codes bytes, names[, codes dtype])`` (codes little-endian u32 unless
    the dtype says otherwise), ``("array", values)`` for ``(dtype, buffer)`` (bytes, or a
    ``mmap`` of a drop log the engine spilled to a file), both numpy views without a copy;
    None for anything else (a list, an array)."""
    import numpy as np

    if isinstance(v, tuple):
        if len(v) in (3, 4) and v[0] == "category":
            return ("category", np.frombuffer(v[1], dtype=v[3] if len(v) == 4 else "<u4"),
                    list(v[2]))
        if len(v) == 2 and isinstance(v[1], _BUFFERS):
            return ("array", np.frombuffer(v[1], dtype=v[0]))
    return None


def column_rows(v: Any) -> int:
    """How many values one engine column holds, without decoding it."""
    split = split_column(v)
    return len(split[1]) if split is not None else len(v)


def _decode_column(v: Any) -> Optional["np.ndarray"]:
    """One engine column (see :func:`split_column`, or a list) as a numpy array, text as
    objects; None where pandas should decide."""
    import numpy as np

    split = split_column(v)
    if split is not None and split[0] == "category":
        _, codes, names = split
        if not _all_text(names) or (len(codes) and int(codes.max()) >= len(names)):
            return None
        return np.asarray(names, dtype=object)[codes.astype(np.intp)] if names \
            else np.empty(0, dtype=object)
    if split is not None:
        return split[1]
    if isinstance(v, tuple):
        return None
    if isinstance(v, np.ndarray):
        arr = v
    elif isinstance(v, (list, range)):
        arr = np.asarray(v)
    else:
        return None
    if arr.ndim != 1:
        return None
    if arr.dtype.kind in "UO":
        if not _all_text(arr.tolist()):
            return None  # missing or non-text values: as pandas converts them
        return arr.astype(object)
    return arr if arr.dtype.kind in "biuf" else None


def _typed(arr: "np.ndarray", dtype: Optional[str]) -> Optional["np.ndarray"]:
    """``arr`` with the schema's ``dtype`` where numpy's cast is what pandas' astype does
    (None for the rest — numbers to text, floats to ints — which pandas converts its way)."""
    import numpy as np

    if dtype is None or str(arr.dtype) == dtype:
        return arr
    if len(arr) == 0:
        return np.empty(0, dtype=dtype)
    kind = arr.dtype.kind
    if dtype == "object":
        return None  # numbers where text is expected: pandas' astype(str)
    # numpy's cast, as pandas' astype does it (the engine's u64 byte counts fit in i64)
    if dtype in ("int64", "float64") and kind in "iu" or dtype == "float64" and kind == "f":
        return arr.astype(dtype)
    return None


def decode(raw: Any, schema: Mapping[str, str]) -> Optional[Columns]:
    """The columns of one table from the engine's ``raw`` columns (a mapping, or None for
    a table the run did not fill), typed by ``schema`` ({column: dtype}) as
    :func:`aqmsim.results_tables._frame` types the DataFrame; None when only pandas can say."""
    import numpy as np

    if raw is None or (isinstance(raw, Mapping) and not raw):
        return {k: np.empty(0, dtype=dt) for k, dt in schema.items()}
    if not isinstance(raw, Mapping):
        return None  # a DataFrame already
    cols: Columns = {}
    for name, v in raw.items():
        arr = _decode_column(v)
        arr = None if arr is None else _typed(arr, schema.get(name))
        if arr is None:
            return None
        cols[str(name)] = arr
    if len({len(a) for a in cols.values()}) > 1:
        return None  # pandas raises its clear error
    return cols


def _cells(arr: "np.ndarray") -> "np.ndarray":
    """One column as ``DataFrame.to_csv`` formats it (pandas'
    ``get_values_for_csv`` with the default float_format, na_rep "" and minimal quoting):
    numbers through numpy's ``astype(str)`` (floats as the shortest repr: 0.1, 1e-05, inf,
    -0.0), NaN as an empty cell, text as it is."""
    import numpy as np

    if arr.dtype.kind == "f":
        out = arr.astype(str).astype(object)
        out[np.isnan(arr)] = ""
        return out
    if arr.dtype.kind in "biu":
        return arr.astype(str).astype(object)
    return arr


def write_csv(path: Path, cols: Columns) -> None:
    """Write ``cols`` to ``path`` as ``DataFrame(cols).to_csv(path, index=False)`` does:
    a header row, then one row per index, fields quoted only when they need it, lines
    ended by ``os.linesep`` (pandas' default)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator=os.linesep, quoting=csv.QUOTE_MINIMAL)
        writer.writerow(list(cols))
        writer.writerows(zip(*(_cells(a) for a in cols.values())))
