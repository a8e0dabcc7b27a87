#!/usr/bin/env python3
"""Fleet tier on Redis Cluster: what a second and third master buy (issue 21).

    ticketq bench-cluster        # ~1-2 min: docs/fleet-cluster.{md,json}
    ticketq bench-cluster --smoke --out build/fleet-cluster

Starts two clusters of Debian's redis-server on loopback (tests/fleet_server.py's Cluster:
no replicas, the slots split evenly, ticketq's library on every master), one of 1 master and
one of 3, and runs the same work on each, interleaved, medians of the rounds: Q queues
(default 6) whose names put their hash slots evenly on the masters, P client processes
(default 4, redis-py's RedisCluster), each owning Q/P of the queues; each process pushes its
share of N jobs (push_many, 1000 a call, spread over its queues) then processes them
(ack_pop at concurrency 50, lease 60 s, queue after queue). Figures: pushes/s and processed
jobs/s over all processes (from the barrier to the last one done). A queue lives in one slot
(its keys share a hash tag), so a queue never spans masters: scaling comes from spreading
queues (or a lane queue per source) over slots. On a machine with fewer cores than masters
plus clients, the masters compete for the same cores: the figure then says what cluster mode
costs, not what more machines buy. A benchmark, never a test.
"""
import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for _p in (os.path.join(ROOT, "tests"), os.path.join(ROOT, "lib"), os.path.join(ROOT, "tools")):
    if _p not in sys.path:
        sys.path.insert(0, _p)


def names(nodes, q):
    """q queue names whose slots fall evenly on the cluster's masters (slot ranges as
    fleet_server.Cluster splits them)."""
    from redis.crc import key_slot

    per = 16384 // nodes
    want = dict((m, 0) for m in range(nodes))
    out = []
    i = 0
    while len(out) < q:
        name = "bench%d" % i
        i += 1
        m = min(key_slot(("tq{%s}:meta" % name).encode()) // per, nodes - 1)
        if want[m] < (q + nodes - 1) // nodes:
            want[m] += 1
            out.append(name)
    return out


def worker(port, mine, n, barrier, done):
    from redis.cluster import RedisCluster
    from ticketq.fleet import FleetQueue

    conn = RedisCluster(host="127.0.0.1", port=port)
    qs = [FleetQueue(conn, name) for name in mine]
    barrier.wait()
    t0 = time.time()
    for s in range(0, n, 1000):
        k = min(1000, n - s)
        qs[(s // 1000) % len(qs)].push_many([(s + j, j % 4) for j in range(k)])
    t1 = time.time()
    got = 0
    for q in qs:
        toks = []
        while 1:
            acked, jobs = q.ack_pop(toks, 50, 60000)
            if not jobs:
                break
            got += len(jobs)
            toks = [j[3] for j in jobs]
    done.put((t0, t1, time.time(), got))


def measure(cluster, nodes, queues, procs, n):
    from ticketq.fleet import FleetQueue

    conn = cluster.client()
    qn = names(nodes, queues)
    for name in qn:
        q = FleetQueue(conn, name, 1 << 24)
        q.destroy()
        FleetQueue(conn, name, 1 << 24)
    conn.close()
    barrier = mp.Barrier(procs + 1)
    done = mp.Queue()
    share = n // procs
    ps = [mp.Process(target=worker, args=(cluster.nodes[0].port, qn[i::procs], share, barrier, done))
          for i in range(procs)]
    for p in ps:
        p.start()
    barrier.wait()
    t0 = time.time()
    res = [done.get(timeout=600) for _ in ps]
    for p in ps:
        p.join(60)
    assert sum(r[3] for r in res) == share * procs, res
    push_end = max(r[1] for r in res)
    end = max(r[2] for r in res)
    return {"push": share * procs / (push_end - t0), "processed": share * procs / (end - push_end)}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--smoke", action="store_true", help="seconds: 1 round of 2000 jobs")
    p.add_argument("--rounds", type=int, default=None)
    p.add_argument("--jobs", type=int, default=None)
    p.add_argument("--queues", type=int, default=6)
    p.add_argument("--procs", type=int, default=4)
    p.add_argument("--out", default=os.path.join(ROOT, "docs"))
    a = p.parse_args(argv)
    rounds = a.rounds or (1 if a.smoke else 5)
    n = a.jobs or (2000 if a.smoke else 40000)
    import fleet_server

    exe = fleet_server.redis_server_exe()
    raw = {1: [], 3: []}
    clusters = {}
    try:
        for k in (1, 3):
            clusters[k] = fleet_server.Cluster(k, exe=exe).start()
        for r in range(rounds):
            for k in ((1, 3) if r % 2 == 0 else (3, 1)):
                raw[k].append(measure(clusters[k], k, a.queues, a.procs, n))
                print("round %d/%d %d master(s): push %8.0f/s  processed %8.0f/s" % (
                    r + 1, rounds, k, raw[k][-1]["push"], raw[k][-1]["processed"]), flush=True)
    finally:
        for c in clusters.values():
            c.close()
    med = dict((k, dict((f, statistics.median(x[f] for x in v)) for f in ("push", "processed")))
               for k, v in raw.items())
    load = os.getloadavg()[0]
    res = {"when": time.strftime("%Y-%m-%d"), "rounds": rounds, "jobs": n, "queues": a.queues,
           "procs": a.procs, "cpus": os.cpu_count(), "load_1min": load, "raw": raw, "median": med,
           "smoke": a.smoke}
    md = ["# Fleet tier on Redis Cluster: 1 master against 3", "",
          "Generated by `tools/bench/fleet_cluster.py`%s on %s: %d queues spread evenly over the masters' "
          "slots, %d client processes (RedisCluster), %d jobs pushed (push_many, 1000 a call) then processed "
          "(ack_pop, concurrency 50) per measurement, %d interleaved rounds, medians; every master and client "
          "on one machine of %d CPUs (1-minute load %.1f at the end)." % (
              " --smoke" if a.smoke else "", res["when"], a.queues, a.procs, n, rounds, res["cpus"], load), "",
          "| masters | pushes/s | processed jobs/s |", "| ---: | ---: | ---: |"]
    for k in (1, 3):
        md.append("| %d | %.0f | %.0f |" % (k, med[k]["push"], med[k]["processed"]))
    md += ["", "3 masters against 1: pushes %.2fx, processed %.2fx." % (
        med[3]["push"] / med[1]["push"], med[3]["processed"] / med[1]["processed"])]
    if res["cpus"] < 3 + a.procs:
        md += ["", "Read with care: here %d CPUs run 3 masters and %d clients, so the masters of the "
               "3-master cluster share the cores the single master had; the ratio is what cluster mode "
               "and the spread cost on one machine, not what a second and third machine buy, which is not "
               "measured here (each queue lives in one slot and no call spans two, so queues on "
               "different masters do not wait for each other)." % (
                   res["cpus"], a.procs)]
    md.append("")
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "fleet-cluster.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    with open(os.path.join(a.out, "fleet-cluster.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
