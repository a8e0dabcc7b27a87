"""Prometheus metrics of fleet queues, in the text exposition format, made and served by the
prometheus_client package (requirements-dev.txt): `fleetctl exporter` and the gateway's
--metrics-port use it. docs/fleet.md ("Metrics") lists every metric.

Each scrape reads the queues from the server (their info and lanes calls, and two HGETs of
meta): the numbers are the server's at that moment, whoever pushes and pops. The latency of
every server call this process makes (its scrapes, and the gateway's own calls) goes into
one histogram, by call.
"""
import time

from prometheus_client import CollectorRegistry, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

# The queue reads (open_cached, queues, stats, CLASSES) are fleetctl's, handed in as `ctl` by
# its two users, fleetctl's exporter and the gateway: this module imports neither, so
# fleetctl (which imports it for `exporter`) and it make no import circle
# (tests/test_import_cycles.py).

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


def timed_client(url, latency, **kw):
    """A redis-py client for `url` (kw: redis.Redis.from_url's) whose every command's time,
    reply or error, is observed in `latency` (a Histogram labelled op: the ticketq function
    for FCALL, as tq1_pop, else the command, as HGET)."""
    return timed_class(latency).from_url(url, **kw)


def timed_class(latency):
    """redis.Redis whose every command's time is observed in `latency` (timed_client's; for
    redis-py's Sentinel.master_for(..., redis_class=...), gateway --sentinel)."""
    import redis

    class TimedRedis(redis.Redis):
        def execute_command(self, *args, **options):
            op = args[0]
            if isinstance(op, bytes):
                op = op.decode()
            op = str(op).upper()
            if op == "FCALL" and len(args) > 1:
                op = args[1].decode() if isinstance(args[1], bytes) else str(args[1])
            t = time.perf_counter()
            try:
                return redis.Redis.execute_command(self, *args, **options)
            finally:
                latency.labels(op).observe(time.perf_counter() - t)

    return TimedRedis


def new_latency(registry=None):
    # Not registered by default: register it after the collectors whose calls it times, so a
    # scrape shows the calls that scrape made (collectors are read in registration order).
    return Histogram("ticketq_server_call_seconds", "Time of one call to the Redis/Valkey server "
                     "(reply or error), seconds, by call", ["op"], registry=registry, buckets=BUCKETS)


class QueueCollector:
    """Collects the queues `names` (None: every queue under `prefix`, found by fleetctl's
    list at each scrape) through redis-py client `conn`, read with `ctl` (the module
    ticketq_tools.fleetctl). A queue is opened once and kept; one that fails to read is left
    out of that scrape and counted in ticketq_scrape_errors_total."""

    def __init__(self, conn, names=None, prefix="tq", *, ctl):
        self.conn, self.names, self.prefix, self.ctl = conn, names, prefix, ctl
        self.open = {}
        self.errors = 0

    def _queue(self, name):
        return self.ctl.open_cached(self.open, self.conn, name, self.prefix)

    def collect(self):
        g = {}

        def fam(kind, name, doc, labels):
            if name not in g:
                g[name] = kind(name, doc, labels=labels)
            return g[name]

        names = self.names
        ok = 1
        if names is None:
            try:
                names = [n for n, _ in self.ctl.queues(self.conn, self.prefix)]
            except Exception:
                names, ok = [], 0
                self.errors += 1
        for name in names:
            try:
                q = self._queue(name)
                s = self.ctl.stats(self.conn, q)
            except Exception:
                self.open.pop(name, None)
                self.errors += 1
                ok = 0
                continue
            for c in self.ctl.CLASSES:
                fam(GaugeMetricFamily, "ticketq_queued", "Tickets queued (not leased), by class",
                    ["queue", "class"]).add_metric([name, c], s["per_class"][c])
            for key, doc in (("leased", "Tickets leased now"), ("dead", "Dead letters on the list"),
                             ("capacity", "The queue's capacity")):
                fam(GaugeMetricFamily, "ticketq_" + key, doc, ["queue"]).add_metric([name], s[key])
            fam(GaugeMetricFamily, "ticketq_next_lease_expiry_seconds", "Seconds to the next lease "
                "expiry by the server's clock (absent: no lease)", ["queue"])
            if s["next_expiry_ms"] is not None:
                g["ticketq_next_lease_expiry_seconds"].add_metric([name], s["next_expiry_ms"] / 1000.0)
            fam(GaugeMetricFamily, "ticketq_oldest_age_seconds", "Age of the oldest queued ticket by "
                "the server's clock, seconds: at least this (the lower bound of fleet/age.lua's marks; "
                "absent: nothing queued)", ["queue"])
            if s["oldest_age_ms"] is not None:
                g["ticketq_oldest_age_seconds"].add_metric([name], s["oldest_age_ms"]["min"] / 1000.0)
            for key, doc in (("pushed", "Tickets pushed"), ("popped", "Pops that took a ticket"),
                             ("acked", "Acks that held their lease"),
                             ("returned", "Leases ended without an ack (released or expired) "
                              "whose ticket went back to the queue"),
                             ("buried", "Tickets dead-lettered"), ("expired", "Leases that ran out")):
                fam(CounterMetricFamily, "ticketq_" + key, doc + ", since the queue was made "
                    "(the server's count)", ["queue"]).add_metric([name], s["totals"][key])
            for l in s["per_lane"] or ():
                for key in ("queued", "held", "weight"):
                    fam(GaugeMetricFamily, "ticketq_lane_" + key, {
                        "queued": "Tickets queued in a lane", "held": "Tickets of a lane, queued "
                        "or leased (its bound counts them)", "weight": "A lane's weight"}[key],
                        ["queue", "lane"]).add_metric([name, str(l["lane"])], l[key])
        for f in g.values():
            yield f
        up = GaugeMetricFamily("ticketq_up", "1 if every queue was read at the last scrape, else 0")
        up.add_metric([], ok)
        yield up
        e = CounterMetricFamily("ticketq_scrape_errors", "Queue reads that failed during scrapes")
        e.add_metric([], self.errors)
        yield e


class GatewayCollector:
    """The gateway's own counts (ticketq gateway's Gateway object `gw`)."""

    def __init__(self, gw):
        self.gw = gw

    def collect(self):
        gw = self.gw
        j = CounterMetricFamily("ticketq_gateway_jobs", "Jobs the gateway handled, by outcome: "
                                "acked, released (failed on the board), refused (board full)",
                                labels=["outcome"])
        j.add_metric(["acked"], gw.acked)
        j.add_metric(["released"], gw.released)
        j.add_metric(["refused"], gw.refused)
        yield j
        x = CounterMetricFamily("ticketq_gateway_lease_expiries", "Jobs that ran on the board "
                                "after their lease had run out (acked late: run again elsewhere)")
        x.add_metric([], gw.late)
        yield x
        h = GaugeMetricFamily("ticketq_gateway_on_board", "Jobs on the board now (leased by the gateway)")
        h.add_metric([], len(gw.held))
        yield h


def serve(port, addr="127.0.0.1", registry=None):
    """Serve `registry` on http://addr:port/metrics in a daemon thread; returns the port
    bound (port 0: a free one)."""
    server, _ = start_http_server(port, addr, registry)
    return server.server_port


def exporter(ctl, url, names=None, prefix="tq", port=9464, addr="127.0.0.1", timeout=1.0):
    """`ticketq fleet exporter`: (registry, port) with the queues' collector (read with `ctl`,
    the module ticketq_tools.fleetctl) and the latency of the scrapes' server calls, served."""
    reg = CollectorRegistry()
    latency = new_latency()
    conn = timed_client(url, latency, socket_connect_timeout=timeout, socket_timeout=10)
    reg.register(QueueCollector(conn, names, prefix, ctl=ctl))
    reg.register(latency)
    return reg, serve(port, addr, reg)
