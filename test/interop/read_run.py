"""Reads run folders (contract >= 1.3) the way docs/log_format.md shows, with pandas (and pyarrow), DuckDB and
polars, from Parquet and from CSV, using only what each file says about itself (Parquet key-value metadata, the CSV
schema sidecar <table>.schema.json), never run.json. Prints one JSON object on stdout:

  {"versions": {...}, "runs": {RUN: {"metadata": {TABLE: {key: value}},
                                     "reads": {"pandas/parquet": {TABLE: summary}, "pandas/csv": ..., ...}}}}

A summary holds rows, dtypes and null counts per column, the distinct run_id values, the first row (as JSON
values), each time column of the first row converted to a timestamp from epoch_iso (as Unix milliseconds), and
whether the CSV read equals the Parquet read. test/runner/sinks/interop_test.ts checks it.

Usage: python3 test/interop/read_run.py RUN_DIR...
"""

import json
import math
import os
import sys

import duckdb
import pandas as pd
import polars as pl
import pyarrow
import pyarrow.parquet as pq

TABLES = ["requests", "attempts", "tools", "server"]
PREFIX = "accepted_goodput."


def parquet_meta(path):
    """The toolkit's key-value metadata of a Parquet file, keys without the prefix."""
    meta = pq.read_schema(path).metadata or {}
    return {k.decode()[len(PREFIX):]: v.decode() for k, v in meta.items() if k.decode().startswith(PREFIX)}


# --- the readers, as in docs/log_format.md -------------------------------------------------------------------


def pandas_parquet(run, table):
    return pd.read_parquet(f"{run}/{table}.parquet", dtype_backend="numpy_nullable")


def pandas_csv(run, table):
    s = json.load(open(f"{run}/{table}.schema.json"))
    df = pd.read_csv(f"{run}/{table}.csv", dtype=s["pandas_dtype"], keep_default_na=False, na_values=[""])
    for c in df.select_dtypes("string"):
        df[c] = df[c].str.removeprefix("'")
    return df


def duckdb_parquet(con, run, table):
    return con.sql(f"SELECT * FROM read_parquet('{run}/{table}.parquet')")


def duckdb_csv(con, run, table):
    s = json.load(open(f"{run}/{table}.schema.json"))
    cols = s["duckdb_columns"]
    rel = con.sql(
        f"SELECT * FROM read_csv('{run}/{table}.csv', header = true, columns = {cols}, allow_quoted_nulls = false)"
    )
    return rel.select(
        ", ".join(f"regexp_replace({c}, '^''', '') AS {c}" if t == "VARCHAR" else c for c, t in cols.items())
    )


def polars_parquet(run, table):
    return pl.read_parquet(f"{run}/{table}.parquet")


def polars_csv(run, table):
    s = json.load(open(f"{run}/{table}.schema.json"))
    df = pl.read_csv(f"{run}/{table}.csv", schema={c: getattr(pl, t) for c, t in s["polars_schema"].items()})
    return df.with_columns(pl.col(pl.String).str.strip_prefix("'"))


# --- summaries -------------------------------------------------------------------------------------------------


def plain(v):
    """A cell as a JSON value (NA, NaN and None as null)."""
    if v is None or v is pd.NA:
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    if hasattr(v, "item"):
        v = v.item()
    return v


def unix_ms(ts):
    """A timezone-aware timestamp (pandas, datetime) as Unix milliseconds, or None."""
    if ts is None or ts is pd.NaT or ts is pd.NA:
        return None
    if isinstance(ts, pd.Timestamp):
        return ts.value / 1e6
    return ts.timestamp() * 1000


def instants(units):
    return [c for c, u in units.items() if u == "ms since epoch_iso"]


def summary_pandas(df, meta, parquet_df=None):
    epoch = pd.Timestamp(meta["epoch_iso"])
    first = {}
    for c in instants(json.loads(meta["time_units"])):
        at = epoch + pd.to_timedelta(df[c], unit="ms")
        first[c] = unix_ms(at.iloc[0]) if len(df) else None
    out = {
        "rows": len(df),
        "dtypes": {c: str(t) for c, t in df.dtypes.items()},
        "nulls": {c: int(n) for c, n in df.isna().sum().items()},
        "run_ids": sorted(df["run_id"].dropna().unique().tolist()),
        "first_row": {c: plain(v) for c, v in df.iloc[0].items()} if len(df) else None,
        "first_times": first,
    }
    if parquet_df is not None:
        # pandas reads a CSV's "" (the empty string) as null, as it reads an empty field: compare with that.
        out["same_as_parquet"] = bool(df.equals(parquet_df.replace({"": pd.NA})))
    return out


def first(rel):
    """The first row of a DuckDB relation, or None."""
    rows = rel.limit(1).fetchall()
    return rows[0] if rows else None


def summary_duckdb(con, rel, meta, parquet_rel=None):
    cols = rel.columns
    con.register("t", rel)
    n = first(con.sql("SELECT count(*) FROM t"))[0]
    nulls = first(con.sql("SELECT " + ", ".join(f"count(*) - count({c})" for c in cols) + " FROM t"))
    ids = [r[0] for r in con.sql("SELECT DISTINCT run_id FROM t ORDER BY 1").fetchall()]
    first_row = first(con.sql("SELECT * FROM t"))
    epoch = meta["epoch_iso"]
    times = {}
    for c in instants(json.loads(meta["time_units"])):
        at = f"TIMESTAMPTZ '{epoch}' + to_microseconds(CAST(round({c} * 1000) AS BIGINT))"
        row = first(con.sql(f"SELECT {at} FROM t"))
        times[c] = unix_ms(row[0]) if row else None
    out = {
        "rows": n,
        "dtypes": {c: str(t) for c, t in zip(cols, rel.types)},
        "nulls": dict(zip(cols, nulls)),
        "run_ids": ids,
        "first_row": {c: plain(v) for c, v in zip(cols, first_row)} if first_row else None,
        "first_times": times,
    }
    if parquet_rel is not None:
        con.register("p", parquet_rel)
        diff = first(con.sql("SELECT count(*) FROM ((SELECT * FROM t EXCEPT ALL SELECT * FROM p) UNION ALL "
                             "(SELECT * FROM p EXCEPT ALL SELECT * FROM t))"))[0]
        out["same_as_parquet"] = diff == 0
    return out


def summary_polars(df, meta, parquet_df=None):
    from datetime import datetime

    epoch = datetime.fromisoformat(meta["epoch_iso"])
    first = {}
    for c in instants(json.loads(meta["time_units"])):
        at = df.select(pl.lit(epoch) + pl.duration(milliseconds=pl.col(c)))
        first[c] = unix_ms(at.item(0, 0)) if len(df) else None
    out = {
        "rows": df.height,
        "dtypes": {c: str(t) for c, t in df.schema.items()},
        "nulls": {c: int(n) for c, n in df.null_count().row(0, named=True).items()},
        "run_ids": sorted(df["run_id"].drop_nulls().unique().to_list()),
        "first_row": {c: plain(v) for c, v in df.row(0, named=True).items()} if df.height else None,
        "first_times": first,
    }
    if parquet_df is not None:
        out["same_as_parquet"] = df.equals(parquet_df)
    return out


def read_run(run):
    con = duckdb.connect()
    con.sql("SET TimeZone = 'UTC'")
    tables = [t for t in TABLES if os.path.exists(f"{run}/{t}.parquet")]
    metadata = {t: parquet_meta(f"{run}/{t}.parquet") for t in tables}
    reads = {f"{lib}/{fmt}": {} for lib in ["pandas", "duckdb", "polars"] for fmt in ["parquet", "csv"]}
    for t in tables:
        meta = metadata[t]
        # The CSV's sidecar carries what the Parquet metadata carries: read each with its own.
        side = json.load(open(f"{run}/{t}.schema.json"))
        side_meta = {"epoch_iso": side["epoch_iso"], "time_units": json.dumps(side["time_units"])}
        pq_pd = pandas_parquet(run, t)
        reads["pandas/parquet"][t] = summary_pandas(pq_pd, meta)
        reads["pandas/csv"][t] = summary_pandas(pandas_csv(run, t), side_meta, pq_pd)
        pq_dd = duckdb_parquet(con, run, t)
        reads["duckdb/parquet"][t] = summary_duckdb(con, pq_dd, meta)
        reads["duckdb/csv"][t] = summary_duckdb(con, duckdb_csv(con, run, t), side_meta, pq_dd)
        pq_pl = polars_parquet(run, t)
        reads["polars/parquet"][t] = summary_polars(pq_pl, meta)
        reads["polars/csv"][t] = summary_polars(polars_csv(run, t), side_meta, pq_pl)
    sidecars = {t: json.load(open(f"{run}/{t}.schema.json")) for t in tables}
    return {"metadata": metadata, "sidecars": sidecars, "reads": reads}


if __name__ == "__main__":
    versions = {"pandas": pd.__version__, "pyarrow": pyarrow.__version__, "duckdb": duckdb.__version__,
                "polars": pl.__version__}
    print(json.dumps({"versions": versions, "runs": {run: read_run(run) for run in sys.argv[1:]}}))
