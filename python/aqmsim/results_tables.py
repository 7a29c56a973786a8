"""The Results tables' schemas (the dtype of every known column) and how the engine's
columns become them: a pandas DataFrame (:func:`_frame`), a pyarrow column
(:func:`_arrow_column`), and back from Arrow or Parquet (:func:`frame_from_arrow`,
:func:`read_parquet`). :mod:`aqmsim.results` builds its tables with these and exports the
public ones. numpy, pandas and pyarrow are imported where a table is built, not here."""

from __future__ import annotations

import mmap
from typing import TYPE_CHECKING, Any, Dict

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TABLES", "TRACE_TABLES", "SCHEMAS", "frame_from_arrow", "read_parquet"]

TABLES = ("queue", "flows", "drops", "links")
#: Tables only some runs fill (``tcp`` and ``rtt``: ``monitor.tcp_flows``; ``delay_cdf``:
#: ``monitor.delays``; ``phases``: BBR flows); saved when not empty.
TRACE_TABLES = ("tcp", "rtt", "delay_cdf", "phases")

# dtype of every known column; columns the engine adds beyond these keep their own dtype.
SCHEMAS: Dict[str, Dict[str, str]] = {
    "queue": {
        "t": "float64", "link": "object", "len_pkts": "int64", "len_bytes": "int64",
        "avg": "float64", "p": "float64", "max_p": "float64",
        "min_th": "float64", "max_th": "float64", "delay": "float64", "count": "float64",
    },
    "drops": {
        "t": "float64", "link": "object", "flow": "int64", "reason": "object",
        "action": "object", "qlen_pkts": "int64",
    },
    "flows": {
        "flow": "int64", "label": "object", "src": "object", "dst": "object", "app": "object",
        "variant": "object", "start": "float64", "stop": "float64", "sent": "int64",
        "retransmitted": "int64", "timeouts": "int64", "received": "int64",
        "delivered": "int64", "throughput_bps": "float64", "goodput_bps": "float64",
        "mean_delay_s": "float64", "queue_arrivals": "int64", "queue_drops": "int64",
        "queue_marks": "int64", "queue_marks_departed": "int64",
        "delay_p50_s": "float64", "delay_p90_s": "float64", "delay_p99_s": "float64",
        "delay_max_s": "float64", "jitter_s": "float64", "size_bytes": "int64",
        "fct_s": "float64",
    },
    "links": {"t": "float64", "link": "object", "utilisation": "float64"},
    "tcp": {
        "t": "float64", "flow": "int64", "cwnd": "float64", "ssthresh": "int64",
        "srtt": "float64", "rttvar": "float64", "rto": "float64", "outstanding": "int64",
        "state": "object", "pacing_rate": "float64",
        "bbr_bw": "float64", "bbr_min_rtt": "float64",
    },
    "rtt": {"t": "float64", "flow": "int64", "rtt": "float64"},
    "delay_cdf": {"what": "object", "q": "float64", "delay_s": "float64"},
    "phases": {"t": "float64", "flow": "int64", "cc": "object", "phase": "object"},
}


def _column(v: Any) -> Any:
    """One engine column (read by :func:`aqmsim.light_tables.split_column`) as the
    DataFrame holds it: categories as ``pd.Categorical``, buffers as numpy arrays."""
    import numpy as np
    import pandas as pd

    from .light_tables import split_column

    split = split_column(v)
    if split is None:
        return v
    if split[0] == "array":
        return split[1]
    _, codes, names = split
    if not names:
        return pd.Categorical([])
    codes = codes.astype(np.int32)
    if len(set(names)) != len(names):
        # two categories named alike (the engine refuses the known case, a link listed
        # twice): decode the names rather than fail on the table
        return pd.Categorical(np.asarray(names, dtype=object)[codes])
    return pd.Categorical.from_codes(codes, categories=names)


def _unmapped(v: Any) -> Any:
    """``v`` (a table, a column or anything else of the raw results) with every ``mmap``
    buffer in it copied into ``bytes``."""
    if isinstance(v, mmap.mmap):
        return bytes(v)
    if isinstance(v, tuple):
        return tuple(_unmapped(x) for x in v)
    if isinstance(v, dict):
        return {k: _unmapped(x) for k, x in v.items()}
    return v


def _frame(name: str, columns: Any) -> pd.DataFrame:
    """Build one table from a dict of equal-length columns, with the schema's dtypes."""
    import numpy as np
    import pandas as pd

    schema = SCHEMAS.get(name, {})
    if columns is None:
        columns = {}
    if isinstance(columns, pd.DataFrame):
        df = columns.copy()
    else:
        cols = {k: _column(v) for k, v in dict(columns).items()}
        lengths = {k: len(v) for k, v in cols.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"results table {name!r}: columns of unequal length {lengths}")
        df = pd.DataFrame({k: v if isinstance(v, (np.ndarray, pd.Categorical)) else np.asarray(v)
                           for k, v in cols.items()})
        if not cols:
            df = pd.DataFrame({k: pd.Series([], dtype=dt) for k, dt in schema.items()})
    for col, dtype in schema.items():
        if col not in df.columns:
            continue
        try:
            if dtype == "object":
                if df[col].dtype != object:
                    df[col] = df[col].astype(str).astype(object)
            elif df[col].dtype != dtype:
                df[col] = df[col].astype(dtype)
        except (ValueError, TypeError):
            # e.g. an int column holding missing values: keep it as float
            df[col] = pd.to_numeric(df[col], errors="coerce")
    return df


#: pyarrow type names of the schema dtypes (object columns hold strings).
_ARROW_OF = {"float64": "float64", "int64": "int64", "object": "string"}


def _arrow_column(name: str, col: str, v: Any) -> Any:
    """One engine column (as :func:`_column` decodes it) as a pyarrow array of the
    schema's type where the values allow it."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    if isinstance(v, pd.Categorical):
        cats = np.asarray(v.categories, dtype=object)
        arr = pa.array(cats[np.asarray(v.codes)] if len(v) else np.empty(0, dtype=object))
    elif isinstance(v, np.ndarray):
        arr = pa.array(v)
    else:
        arr = pa.array(list(v))
    want = _ARROW_OF.get(SCHEMAS.get(name, {}).get(col, ""))
    if want is not None and str(arr.type) != want and not (want == "string" and pa.types.is_null(arr.type)):
        if want == "string":
            if not pa.types.is_string(arr.type):
                raise TypeError(f"{name}.{col}: {arr.type} values where text is expected")
        elif (pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type)) and arr.null_count == 0:
            arr = arr.cast(getattr(pa, want)(), safe=True)  # raises rather than change a value
        else:
            raise TypeError(f"{name}.{col}: {arr.type} cannot become {want} as is")
    return arr


def frame_from_arrow(name: str, table: Any) -> pd.DataFrame:
    """The DataFrame of Results table ``name`` from a pyarrow Table written by
    :meth:`Results.arrow` (or from any DataFrame's columns): the same columns, dtypes and
    values as :attr:`Results.queue` and the others give. Parquet brings text back as
    pandas' string dtype; Results tables hold it as objects."""
    import pandas as pd

    schema = SCHEMAS.get(name, {})
    meta = table.schema.metadata or {}
    if b"pandas" in meta or any(c not in schema for c in table.column_names):
        # written from a DataFrame (columns beyond the schema): pandas' own metadata
        return _frame(name, table.to_pandas())
    cols: Dict[str, Any] = {}
    typed = True
    for col, arr in zip(table.column_names, table.columns):
        values = arr.to_numpy()
        want = schema.get(col)
        if values.dtype == object or want == "object":
            values = pd.Series(values, dtype=object, copy=False)  # (not pandas' str dtype)
            typed = typed and want in (None, "object")
        else:
            typed = typed and want in (None, str(values.dtype))
        cols[col] = values
    df = pd.DataFrame(cols)
    return df if typed else _frame(name, df)


def read_parquet(name: str, path: Any) -> pd.DataFrame:
    """Results table ``name`` kept as a Parquet file (a path or a binary file object), as
    :func:`frame_from_arrow` makes it."""
    import pyarrow.parquet as pq

    return frame_from_arrow(name, pq.ParquetFile(path).read(use_threads=False))
