"""CSV in and out of table files (``reverie table import`` / ``export``).

Import reads a CSV with a header row. A missing table is created with the header's columns, typed
INTEGER or REAL when every non-empty value of the column is such a number, else TEXT (empty cells
of a numeric column become NULL); an existing table gets the rows by column name. Everything is
one transaction through the same guarded writer as ``table_write``, logged with origin ``owner``.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import IO, Any

import apsw

from .guard import open_table_file, time_limit
from .store import TableError, TableStore, quote_ident

MAX_CSV_BYTES = 200 * 1024 * 1024
EXPORT_SECONDS = 300.0
_INT = re.compile(r"^[+-]?\d{1,18}$")


def _float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip().lower() not in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity")


def _column_type(values: list[str]) -> str:
    filled = [v.strip() for v in values if v.strip()]
    if filled and all(_INT.match(v) for v in filled):
        return "INTEGER"
    if filled and all(_float(v) for v in filled):
        return "REAL"
    return "TEXT"


def _convert(value: str, kind: str) -> Any:
    if kind == "TEXT":
        return value
    value = value.strip()
    if not value:
        return None
    return int(value) if kind == "INTEGER" else float(value)


def read_csv(path: Path, delimiter: str | None = None) -> tuple[list[str], list[list[str]]]:
    try:
        if path.stat().st_size > MAX_CSV_BYTES:
            raise TableError(f"{path} is larger than {MAX_CSV_BYTES // 1024 // 1024} MiB")
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise TableError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise TableError(f"{path} is not UTF-8 text (byte {exc.start})") from None
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text[:20_000], delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as exc:
        raise TableError(f"{path}: not valid CSV: {exc}") from None
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise TableError(f"{path} is empty: a header row naming the columns is needed")
    header = [h.strip() for h in rows[0]]
    if any(not h for h in header) or len(set(h.lower() for h in header)) != len(header):
        raise TableError(f"{path}: the header needs distinct, non-empty column names (got {header})")
    body = rows[1:]
    for n, row in enumerate(body, 2):
        if len(row) != len(header):
            raise TableError(f"{path}: line {n} has {len(row)} values, the header has {len(header)}")
    return header, body


def default_table_name(path: Path) -> str:
    name = re.sub(r"\W+", "_", path.stem).strip("_") or "data"
    return name if not name[0].isdigit() else f"t_{name}"


def import_csv(store: TableStore, file: str, csv_path: Path, *, table: str | None = None,
               delimiter: str | None = None, dry_run: bool = False) -> dict:
    header, body = read_csv(csv_path, delimiter)
    table = table or default_table_name(csv_path)
    existing = None
    if store.path_of(file).exists():
        existing = next((t for t in store.schema(file)["tables"] if t["name"].lower() == table.lower()), None)
    if existing is not None:
        known = {c["name"].lower(): c for c in existing["columns"]}
        missing = [h for h in header if h.lower() not in known]
        if missing:
            raise TableError(f"table {table!r} has no column(s) {', '.join(missing)}; "
                             f"its columns: {', '.join(c['name'] for c in existing['columns'])}")
        kinds = [(known[h.lower()]["type"] or "TEXT").upper() for h in header]
        kinds = ["INTEGER" if "INT" in k else "REAL" if k in ("REAL", "FLOAT", "DOUBLE") else "TEXT" for k in kinds]
    else:
        kinds = [_column_type([r[i] for r in body]) for i in range(len(header))]
    plan = {"file": file, "table": table, "create": existing is None, "rows": len(body),
            "columns": [{"name": h, "type": k} for h, k in zip(header, kinds)], "source": str(csv_path)}
    if dry_run:
        return {**plan, "dryRun": True}
    try:
        values = [[_convert(v, k) for v, k in zip(row, kinds)] for row in body]
    except ValueError as exc:
        raise TableError(f"{csv_path}: a value does not fit its column: {exc}") from None
    steps: list[tuple[str, Any, list | None]] = []
    if existing is None:
        cols = ", ".join(f"{quote_ident(h)} {k}" for h, k in zip(header, kinds))
        steps.append((f"CREATE TABLE {quote_ident(table)} ({cols})", None, None))
    insert = (f"INSERT INTO {quote_ident(table)} ({', '.join(quote_ident(h) for h in header)}) "
              f"VALUES ({', '.join('?' * len(header))})")
    if values:
        steps.append((insert, None, values))
    result = store.write_steps(file, steps, origin="owner", surface="cli", param_sets=len(values),
                               statement=f"-- import {csv_path.name} ({len(values)} rows)\n{insert}",
                               logged=values[:3], seconds=EXPORT_SECONDS)
    return {**plan, "inserted": len(values), "created": result["created"]}


def export_csv(store: TableStore, file: str, table: str, out: IO[str]) -> int:
    """Write every row of ``table`` as CSV (header first; BLOBs as hex). Returns the row count."""
    path = store.existing_path(file)
    tables = {t["name"].lower(): t for t in store.schema(file)["tables"]}
    if table.lower() not in tables:
        names = ", ".join(t["name"] for t in tables.values()) or "none"
        raise TableError(f"no table {table!r} in {file} (tables: {names})")
    found = tables[table.lower()]
    conn, guard = open_table_file(path, write=False)
    writer = csv.writer(out, lineterminator="\n")
    count = 0
    try:
        with time_limit(conn, EXPORT_SECONDS):
            writer.writerow([c["name"] for c in found["columns"]])
            for row in conn.execute(f"SELECT * FROM {quote_ident(found['name'])}"):
                writer.writerow([v.hex() if isinstance(v, bytes) else ("" if v is None else v) for v in row])
                count += 1
    except apsw.Error as exc:
        raise TableError(f"export of {table} stopped: {exc}") from None
    finally:
        conn.close()
    return count
