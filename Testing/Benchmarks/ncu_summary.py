# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
"""Sums an Nsight Compute CSV (ncu --metrics gpu__time_duration.sum --csv) by kernel.

usage: python3 ncu_summary.py FILE.csv
Prints a Markdown table: kernel (namespaces dropped, nested template arguments elided),
launches, total and mean microseconds, share of the kernels' total; then the launch count and
the total. Lines of the profiled program's own output around the CSV are skipped.
"""
import csv
import re
import sys
from collections import defaultdict


def short_name(name):
    name = re.sub(r"^void ", "", name)
    name = re.sub(r"\b[A-Za-z_]\w*::", "", name)
    depth = 0
    kept = []
    for ch in name:
        if ch == "(" and depth == 0:
            break
        if ch == "<":
            depth += 1
            if depth <= 2:
                kept.append(ch)
            continue
        if ch == ">":
            depth -= 1
            if depth <= 1:
                kept.append(ch)
            continue
        if depth <= 1:
            kept.append(ch)
    return "".join(kept).strip()


def main(path):
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]
    rows = list(csv.reader(lines))
    if not rows:
        print("no ncu rows in", path)
        return 1
    header = rows[0]
    name_col = header.index("Kernel Name")
    # Either one column per metric, or "Metric Name"/"Metric Value" rows (ncu's raw/details pages).
    if "gpu__time_duration.sum" in header:
        value_col = header.index("gpu__time_duration.sum")
        data = [(r[name_col], r[value_col]) for r in rows[1:]]
    else:
        metric_col = header.index("Metric Name")
        value_col = header.index("Metric Value")
        data = [(r[name_col], r[value_col]) for r in rows[1:] if r[metric_col] == "gpu__time_duration.sum"]
    total = defaultdict(float)
    count = defaultdict(int)
    for kernel, value in data:
        try:
            ns = float(value.replace(",", ""))
        except ValueError:
            continue  # the units row
        key = short_name(kernel)
        total[key] += ns / 1000.0
        count[key] += 1
    grand = sum(total.values())
    print("| kernel | launches | total us | mean us | share |")
    print("|---|---:|---:|---:|---:|")
    for key in sorted(total, key=total.get, reverse=True):
        print(f"| {key[:110]} | {count[key]} | {total[key]:.1f} | {total[key] / count[key]:.2f} | "
              f"{100 * total[key] / grand:.1f}% |")
    print(f"\n{sum(count.values())} launches, {grand:.1f} us in kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
