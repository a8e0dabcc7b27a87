#!/usr/bin/env python3
"""Fleet queue benchmark: pushes and pops per second on one local redis-server, with 1, 4 and
16 client processes, each call a round trip or 50 calls pipelined per round trip, beside
BullMQ's published figures. A benchmark, not a test: nothing here passes or fails on speed.

    .venv/bin/python tools/bench/fleet.py            # ~1-2 minutes; writes docs/fleet-bench.md
                                                     #   and docs/fleet-bench.json
    .venv/bin/python tools/bench/fleet.py --quick --out build/fleet-bench   # smoke run

Each measurement starts its own redis-server (Debian's, no persistence, on a free loopback
port), loads the library, creates one queue (capacity 2**24, so no push is refused), then
the client processes (multiprocessing, fork) open it, wait at a barrier and each do their
share; the time runs from the barrier to the last process done. Operations:
    push       FleetQueue.push(id, class), classes round-robin
    pop        FleetQueue.pop() (no lease)
    processed  FleetQueue.pop(lease_ms) then ack(token): BullMQ's "processed" (take, complete)
"pipelined" sends 50 FCALLs of the same kind per round trip (redis-py pipeline, no MULTI);
every call still carries its replay numbers, as FleetQueue's own do. One row also runs
the board client (lib/ticketq_resp.py) on CPython. A second table does the same on a lane
queue (ticketq_fleetlanes.FleetLaneQueue, LANES weights, pushes spread round-robin over the
lanes; the pops drain the heaviest lane first, then skip its entries). The machine (CPU count, load) is
printed with the figures: on a shared 2-core machine the clients and the server compete.
"""
import argparse
import json
import multiprocessing as mp
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for _p in (os.path.join(ROOT, "lib"), os.path.join(ROOT, "tests"), os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

BATCH = 50
LANES = [4, 2, 1, 1]  # the lane queue's weights
BULLMQ = ("BullMQ, published (Apple Silicon laptop, Redis on the same machine, no-op jobs; "
          "docs/gitbook/guide/postgresql.md in taskforcesh/bullmq): add() ~7,500 jobs/s one at a "
          "time, ~38,000/s concurrent adds, ~52,000/s addBulk; processed ~6,000 jobs/s at "
          "concurrency 1, ~18,000/s at concurrency 8-32. Those are plain (unprioritized) jobs; "
          "BullMQ warns that prioritized adds, O(log n), are slower, and publishes no figure for them.")


def client(kind, port):
    if kind == "resp":
        import ticketq_resp

        return ticketq_resp.Redis("127.0.0.1", port)
    import redis

    return redis.Redis(port=port)


def worker(kind, port, name, op, n, pipelined, base, barrier, done, lanes=False):
    from ticketq_fleet import FleetQueue
    from ticketq_fleetlanes import FleetLaneQueue

    conn = client(kind, port)
    q = FleetLaneQueue(conn, name) if lanes else FleetQueue(conn, name)
    # push j: class j % 4, and for a lane queue lane j % lanes (the last argument)
    more = (lambda j: (j % len(LANES),)) if lanes else (lambda j: ())
    barrier.wait()
    if pipelined:
        pipe = conn.pipeline(transaction=False)
        for start in range(0, n, BATCH):
            k = min(BATCH, n - start)
            for j in range(k):
                if op == "push":
                    a = q._args(q._L + "push", (base + start + j, (start + j) % 4) + more(start + j), True)
                else:
                    a = q._args(q._L + "pop", (0,), True)
                pipe.execute_command(*a)
            r = pipe.execute()
            assert all((x >= 0) if op == "push" else (x[0] >= 0) for x in r)
    else:
        for j in range(n):
            if op == "push":
                q.push(base + j, j % 4, *more(j))
            elif op == "pop":
                q.pop()
            else:
                q.pop(60000)
                q.ack(q.last_lease)
    done.put(n)


def measure(srv, kind, clients, op, total, pipelined, name, lanes=False):
    n = total // clients
    barrier = mp.Barrier(clients + 1)
    done = mp.Queue()
    ps = [mp.Process(target=worker, args=(kind, srv.port, name, op, n, pipelined, c * n, barrier, done, lanes))
          for c in range(clients)]
    for p in ps:
        p.start()
    barrier.wait()
    t0 = time.perf_counter()
    got = sum(done.get(timeout=600) for _ in ps)
    secs = time.perf_counter() - t0
    for p in ps:
        p.join(60)
        if p.exitcode != 0:
            raise SystemExit("a %s client failed (exit %s)" % (op, p.exitcode))
    return got / secs


def run(quick):
    import fleet_server
    from ticketq_fleet import FleetQueue
    from ticketq_fleetlanes import FleetLaneQueue

    total = 1200 if quick else 24000
    out = {"total": total, "batch": BATCH, "lane_weights": LANES}
    plan = [("redis-py", c, p) for c in (1, 4, 16) for p in (False, True)] + [("resp", 1, False)]
    lane_plan = [("redis-py", 1, False), ("redis-py", 1, True), ("redis-py", 4, False), ("resp", 1, False)]
    for key, lanes, rows_plan in (("rows", False, plan), ("lane_rows", True, lane_plan)):
        rows = out[key] = []
        for kind, clients, pipelined in rows_plan:
            with fleet_server.RedisServer() as srv:
                conn = srv.client()
                if lanes:
                    FleetLaneQueue(conn, "bench", 1 << 24, LANES)
                else:
                    FleetQueue(conn, "bench", 1 << 24)
                row = {"client": kind, "clients": clients, "pipelined": pipelined}
                row["push"] = measure(srv, kind, clients, "push", total, pipelined, "bench", lanes)
                row["pop"] = measure(srv, kind, clients, "pop", total, pipelined, "bench", lanes)
                if not pipelined:
                    (FleetLaneQueue if lanes else FleetQueue)(conn, "bench").clear()
                    row["push_again"] = measure(srv, kind, clients, "push", total, False, "bench", lanes)
                    row["processed"] = measure(srv, kind, clients, "processed", total, False, "bench", lanes)
                rows.append(row)
                print("%-5s %-8s %2d client(s) %-10s push %8.0f/s  pop %8.0f/s%s" % (
                    "lanes" if lanes else "plain", kind, clients, "pipelined" if pipelined else "", row["push"],
                    row["pop"], "  processed %8.0f/s" % row["processed"] if "processed" in row else ""),
                    flush=True)
    out.update({"machine": machine(), "quick": quick, "when": time.strftime("%Y-%m-%d")})
    return out


def machine():
    import subprocess

    v = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.split()
    ver = [w[2:] for w in v if w.startswith("v=")]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "redis": ver[0] if ver else "?",
            "load_1min": load, "platform": platform.platform()}


def markdown(res):
    m = res["machine"]
    out = ["# Fleet queue throughput", "",
           "Generated by `tools/bench/fleet.py`%s on %s: redis-server %s on the same machine (%d CPUs, "
           "1-minute load %.1f at the start), CPython %s clients, %d operations per measurement, %d calls "
           "per pipelined round trip. Each figure is one run: on a small shared machine the clients and "
           "the server compete for the same cores, so read them as orders of magnitude." % (
               " --quick" if res["quick"] else "", res["when"], m["redis"], m["cpus"], m["load_1min"] or 0,
               m["python"], res["total"], res["batch"]),
           ""]
    out += table(res["rows"], "")
    out += ["", "The same on a lane queue (`FleetLaneQueue`, %d lanes of weights %s, pushes spread "
            "round-robin over the lanes). While the cursor's lane has a ticket a pop finds it with two "
            "sorted-set reads; the pops here drain the heaviest lane first, after which they skip its "
            "entries, reading the head of each lane left (docs/lanes.md, \"Cost per call\"):" % (
                len(res["lane_weights"]), ":".join(map(str, res["lane_weights"]))), ""]
    out += table(res["lane_rows"], "FleetLaneQueue, ")
    out += ["", "Beside it: " + BULLMQ, "",
            "What a fleet call does that a plain BullMQ add does not: it checks the queue's layout "
            "version, the types of its ten keys (~12 us of the server's time a call, measured once: "
            "62 against 50 us in INFO commandstats) and its capacity (queued plus leased), keeps the id index for remove, the digest and "
            "the aging count, and records its reply for replay after a dropped connection; a pop "
            "also returns expired leases first. Each is one FCALL, one round trip, O(log n) in the "
            "server.", ""]
    return "\n".join(out)


def table(rows, what):
    out = ["| client | clients | pipelined | push/s | pop/s | processed/s (pop with lease + ack) |",
           "| --- | ---: | --- | ---: | ---: | ---: |"]
    for r in rows:
        out.append("| %s%s | %d | %s | %.0f | %.0f | %s |" % (
            what, "redis-py" if r["client"] == "redis-py" else "ticketq_resp (board client, on CPython)",
            r["clients"], "50 a round trip" if r["pipelined"] else "no", r["push"], r["pop"],
            "%.0f" % r["processed"] if "processed" in r else "-"))
    return out


FLEET_BEGIN = "<!-- fleet section: generated by tools/bench/fleet.py from docs/fleet-bench.json -->"
FLEET_END = "<!-- end of the generated fleet section -->"
BENCH_MD = os.path.join(ROOT, "BENCHMARKS.md")


def section(res):
    """BENCHMARKS.md's fleet section, from a run's fleet-bench.json: the plain queue's table
    and BullMQ's published figures beside it; the lane table and the method stay in
    docs/fleet-bench.md."""
    m = res["machine"]
    out = [FLEET_BEGIN, "", "## Fleet tier (Redis)", "",
           "Pushes and pops per second of `FleetQueue` (lib/ticketq_fleet.py) on one local "
           "redis-server %s, CPython %s clients, measured on %s by `tools/bench/fleet.py` (one run "
           "each, %d CPUs shared by clients and server: orders of magnitude). Lane queues and the "
           "method: [docs/fleet-bench.md](docs/fleet-bench.md)." % (
               m["redis"], m["python"], res["when"], m["cpus"]), ""]
    out += table(res["rows"], "")
    out += ["", "Beside it: " + BULLMQ, "", FLEET_END]
    return "\n".join(out)


def splice(text, res):
    """text (BENCHMARKS.md) with its fleet section replaced by section(res), or added at the
    end when it has none."""
    if FLEET_BEGIN in text:
        a, z = text.index(FLEET_BEGIN), text.index(FLEET_END) + len(FLEET_END)
        return text[:a] + section(res) + text[z:]
    return text.rstrip("\n") + "\n\n" + section(res) + "\n"


def committed():
    """The committed run (docs/fleet-bench.json), or None."""
    path = os.path.join(ROOT, "docs", "fleet-bench.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="seconds-long smoke run")
    p.add_argument("--out", default=os.path.join(ROOT, "docs"), help="folder for fleet-bench.md and .json")
    a = p.parse_args(argv)
    res = run(a.quick)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "fleet-bench.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    with open(os.path.join(a.out, "fleet-bench.md"), "w") as f:
        f.write(markdown(res))
    print("wrote %s" % os.path.join(a.out, "fleet-bench.md"))
    if not a.quick and os.path.abspath(a.out) == os.path.join(ROOT, "docs") and os.path.exists(BENCH_MD):
        with open(BENCH_MD) as f:
            text = f.read()
        with open(BENCH_MD, "w") as f:
            f.write(splice(text, res))
        print("updated the fleet section of %s" % BENCH_MD)
    return 0


if __name__ == "__main__":
    sys.exit(main())
