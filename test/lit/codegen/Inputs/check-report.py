"""Checks a `ccopt --emit=report --report-format=json` file (used by
emit-report-collectives.mlir): README's schema on every row, the rows'
collectives and NCCL algorithms in order (COLLECTIVE:NCCL_ALGORITHM, an
empty algorithm for any), busbw from nccl-tests' factors, and no time
below the lower bound.

usage: check-report.py REPORT.json COLLECTIVE:NCCL_ALGO...
"""
import json
import sys

SCHEMA = ("collective size_bytes count dtype redop algorithm protocol channels "
          "chunks time_us algbw_gbps busbw_gbps nccl_algorithm nccl_protocol "
          "nccl_time_us nccl_busbw_gbps bound_time_us speedup_vs_nccl "
          "fraction_of_bound runner_up runner_up_time_us wire_type wire_bytes "
          "uncompressed_time_us uncompressed_wire_bytes speedup_vs_uncompressed "
          "root collective_ranks").split()
FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n,
          "reduce_scatter": lambda n: (n - 1) / n,
          "all_gather": lambda n: (n - 1) / n,
          "all_to_all": lambda n: (n - 1) / n}

report = json.load(open(sys.argv[1]))
assert {"topology", "nodes", "ranks", "rows"} <= set(report), report.keys()
rows = report["rows"]
want = [arg.split(":") for arg in sys.argv[2:]]
assert [r["collective"] for r in rows] == [c for c, _ in want], \
    [r["collective"] for r in rows]
for row, (collective, nccl) in zip(rows, want):
    missing = [k for k in SCHEMA if k not in row]
    assert not missing, (collective, missing)
    if nccl:
        assert row["nccl_algorithm"] == nccl, (collective, row["nccl_algorithm"])
    assert row["nccl_protocol"] in ("LL", "LL128", "Simple"), row
    assert row["time_us"] > 0 and row["nccl_time_us"] > 0, row
    # Nothing beats the bound: neither ccopt's schedule nor NCCL's.
    assert 0 < row["bound_time_us"] <= row["time_us"] * (1 + 1e-9), row
    assert row["bound_time_us"] <= row["nccl_time_us"] * (1 + 1e-9), row
    assert abs(row["speedup_vs_nccl"] - row["nccl_time_us"] / row["time_us"]) < 1e-9, row
    n = row["collective_ranks"]
    if collective == "send_recv":
        assert n == 2, row
    else:
        assert n == report["ranks"], row
    if row["size_bytes"]:
        factor = FACTOR.get(collective, lambda n: 1.0)(n)
        algbw = row["size_bytes"] / row["time_us"] / 1e3
        assert abs(row["algbw_gbps"] - algbw) <= 1e-6 * algbw, row
        assert abs(row["busbw_gbps"] - algbw * factor) <= 1e-6 * algbw, row
    assert row["root"] == ({"broadcast": 2, "reduce": 5}.get(collective, -1)), row
    assert row["redop"] == {"reduce_scatter": "sum", "reduce": "max"}.get(collective, "none"), row
