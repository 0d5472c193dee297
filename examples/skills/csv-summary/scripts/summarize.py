"""Summarize a CSV file: rows, and per column its kind, empty cells and range or common values.

    python3 summarize.py FILE.csv [--delimiter ';']

Standard library only, so it runs wherever python3 does. Exit code 2 (with a message) when the
file cannot be read or is not CSV.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter


def kind(values: list[str]) -> str:
    """``integer``, ``number`` or ``text``: the narrowest kind every non-empty value has."""
    try:
        for v in values:
            int(v)
        return "integer"
    except ValueError:
        pass
    try:
        for v in values:
            float(v)
        return "number"
    except ValueError:
        return "text"


def describe(name: str, cells: list[str]) -> str:
    """One line about a column."""
    filled = [c.strip() for c in cells if c.strip()]
    what = kind(filled) if filled else "empty"
    line = f"{name}: {what}, {len(cells) - len(filled)} empty"
    if what in ("integer", "number"):
        numbers = [float(v) for v in filled]
        low, high = min(numbers), max(numbers)
        show = (lambda x: str(int(x))) if what == "integer" else (lambda x: f"{x:g}")
        line += f", min {show(low)}, max {show(high)}, mean {sum(numbers) / len(numbers):.4g}"
    elif what == "text":
        common = ", ".join(f"{value!r} ({count})" for value, count in Counter(filled).most_common(3))
        line += f", {len(set(filled))} distinct, most common: {common}"
    return line


def main(argv: list[str] | None = None) -> int:
    """Print the summary of the file named on the command line."""
    parser = argparse.ArgumentParser(description="Summarize a CSV file.")
    parser.add_argument("file")
    parser.add_argument("--delimiter", default=",")
    args = parser.parse_args(argv)
    try:
        with open(args.file, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.reader(f, delimiter=args.delimiter))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        print(f"cannot read {args.file} as CSV: {exc}", file=sys.stderr)
        return 2
    if not rows:
        print(f"{args.file}: empty file, no header row")
        return 0
    header, data = rows[0], rows[1:]
    print(f"{args.file}: {len(data)} rows, {len(header)} columns")
    for i, name in enumerate(header):
        print(describe(name, [row[i] if i < len(row) else "" for row in data]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
