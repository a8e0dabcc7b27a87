"""From raw results to figures: medians, ratios to the run's own baseline, the per-pair and
allocation figures, and the tables of one interpreter (time, memory, ops).
"""
import statistics

from ticketq_tools.bench.common import NAMES, fills


def fatal(R):
    """The errors that fail a stage: all but a MemoryError in a timed section of a
    baseline (a tuple queue that outgrows the micro:bit's heap near its capacity: a
    measured outcome, reported as such)."""
    return [e for e in R["errors"] if e not in R["tolerated"]]


def per_pair(c, R, ns):
    """{(x, cap, fill): ns per pair} from medians, the plain loop subtracted."""
    out = {}
    for key, runs in R["t"].items():
        none = statistics.median(r[0] for r in runs)
        t = statistics.median(r[1] for r in runs)
        out[key] = max(t - none, 0) * ns / c["n"]
    return out


def analyse(interp, c, R):
    ns = R["misc"].get("env", ("python", 1000))[1]  # nanoseconds per tick
    pp = per_pair(c, R, ns)
    base = c["base"]
    ratio = {}
    for (x, cap, fill), v in pp.items():
        b = pp.get((base, cap, fill))
        if b:
            ratio[(x, cap, fill)] = v / b
    A = {"pp": pp, "ratio": ratio, "long": {}, "memerr": R["memerr"]}
    for x, runs in R["long"].items():
        none = statistics.median(v[0] for v in runs)
        A["long"][x] = max(statistics.median(v[1] for v in runs) - none, 0) * ns / c["long_n"]
    # the emulated Pico: push and pop timed apart (ns per operation, the empty loops subtracted)
    A["tpo"] = {}
    for key, runs in R.get("tpo", {}).items():
        A["tpo"][key] = tuple(
            max(statistics.median(r[1][i] for r in runs) - statistics.median(r[0][i] for r in runs), 0) * ns / c["n"]
            for i in (0, 1))
    # ... and bytes per pair from gc.mem_free() around k pairs, under heap_lock where they ran
    A["lk"] = {}
    for (kind, x), (locked_, used, k) in R.get("lk", {}).items():
        if kind == "lk" and ("lk0", x) in R["lk"]:
            A["lk"][x] = (locked_, (used - R["lk"][("lk0", x)][1]) / k)
    # bytes per pair: kernel minus loop
    A["alloc"] = {}
    for x in c["impls"]:
        if x in R["a"] and x in R["a0"]:
            a, a0 = R["a"][x], R["a0"][x]
            A["alloc"][x] = ((a[0] - a0[0]) / c["k"], (a[1] - a0[1]) / c["k"])
    A["ops"] = {op: (v[0] / k, v[1] / k) for op, (v, k) in R["op"].items()}
    A["ops_first"] = {op: (v[0] / k, v[1] / k) for op, (v, k) in R["op0"].items()}
    A["ops_b"] = {op: (v[0] / k, v[1] / k) for op, (v, k) in R["opb"].items()}
    A["storage"] = {}
    m = c["mem_cap"]
    for x in c["impls"]:
        if (x, m) in R["s"] and (x, 2 * m) in R["s"]:
            s1, s2 = R["s"][(x, m)], R["s"][(x, 2 * m)]
            per = (s2 - s1) / m
            A["storage"][x] = (per, s1 - per * m, s1 / m)
    return A


def fmt_ratio(v):
    if v is None:
        return "—"
    return "%.3f" % v if v < 0.1 else "%.2f" % v if v < 10 else "%.1f" % v


def fill_name(cap, fill):
    return "%d · %d" % (cap, fill)


def speedups(c, A, other, x="tq"):
    """ticketq's (x's) speed-up over `other` (other time / x's time) per table cell."""
    out = {}
    for cap in c["caps"]:
        for f in fills(cap):
            if (x, cap, f) in A["memerr"] or (other, cap, f) in A["memerr"]:
                continue
            t = A["pp"].get((x, cap, f))
            o = A["pp"].get((other, cap, f))
            if t and o:
                out[(cap, f)] = o / t
    return out


def span(d):
    if not d:
        return "—"
    lo, hi = min(d.values()), max(d.values())
    return "%.2f–%.2fx" % (lo, hi) if abs(hi - lo) >= 0.005 else "%.2fx" % lo


def time_table(c, A):
    cols = [(cap, f) for cap in c["caps"] for f in fills(cap)]
    head = "| implementation | " + " | ".join(fill_name(cap, f) for cap, f in cols) + " |"
    rule = "| --- | " + " | ".join("---:" for _ in cols) + " |"
    rows = [head, rule]
    for x in c["impls"]:
        cells_ = [fmt_ratio(A["ratio"].get((x, cap, f))) if (x, cap, f) not in A["memerr"]
                  else "MemoryError" for cap, f in cols]
        name = NAMES[x] + (" (baseline)" if x == c["base"] else "")
        rows.append("| %s | %s |" % (name, " | ".join(cells_)))
    return "\n".join(rows)


def b(v):
    if v is None:
        return "—"
    if abs(v - round(v)) < 0.05:
        return "%d" % round(v)
    return "%.1f" % v


def memory_table(interp, c, A):
    cpy = interp == "cpython"
    if cpy:
        head = ("| implementation | peak B above the start over %d pairs (tracemalloc) "
                "| storage B per entry | fixed B |" % c["k"])
    else:
        head = ("| implementation | B allocated per push+pop pair (gc.mem_alloc, gc off) "
                "| storage B per entry | fixed B |")
    rows = [head, "| --- |" + " ---: |" * 3]
    for x in c["impls"]:
        al = A["alloc"].get(x)
        st = A["storage"].get(x)
        cells_ = [b(al[1] * c["k"] if cpy else al[0]) if al else "—"]
        cells_ += [b(st[0]) if st else "—", b(st[1]) if st else "—"]
        rows.append("| %s | %s |" % (NAMES[x], " | ".join(cells_)))
    return "\n".join(rows)


def ops_line(interp, A, key="ops"):
    ops = A.get(key)
    if not ops:
        return "not measured"
    if interp == "cpython":
        return ", ".join("%s %s B" % (op, b(ops[op][1])) for op in ("push", "pop", "peek", "remove")
                         if op in ops) + " (tracemalloc peak per operation, CPython boxes ints)"
    return ", ".join("%s %s B" % (op, b(ops[op][0])) for op in ("push", "pop", "peek", "remove") if op in ops)


# ---------------------------------------------------------------- report
