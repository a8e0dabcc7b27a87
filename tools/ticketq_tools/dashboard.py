#!/usr/bin/env python3
"""The fleet dashboard: one small web page, served by one command, that shows the ticketq
queues on a Redis/Valkey server (what bull-board, rq-dashboard and Flower show their users).

    ticketq dashboard [--url redis://[:PASSWORD@]host:port/db] [--prefix tq] [--queue Q ...]
                    [--port 9466] [--bind 127.0.0.1] [--interval 2] [--history 150]
                    [--lanes 8] [--rows 20] [--lane-scan 2000] [--allow-actions]
    ticketq dashboard --demo [--screenshot docs/dashboard.png]   # a throwaway server, filled

Panels, per queue (docs/fleet.md, "Dashboard", says what each number is): queued of
capacity, leased, dead, the oldest queued ticket's age, queued per class (by name, as
fleetctl shows them), lanes (weight, queued, held, and how far each is from its fair share;
the N busiest when there are more), a keyed lane queue's busiest lanes (key, queued, in
flight, weight, bound, ceiling, paused; found by a rolling walk of at most --lane-scan
fields a sample: keyed_lanes), leased tickets with their expiry (server clock), dead
letters (read, never taken) with a requeue button, and rates over time (pushed, popped,
acked, returned, buried per second between samples) as an inline SVG. The numbers come from
a sampler thread in this process that reads the server every --interval seconds and keeps
the last --history samples; the page fetches them (GET /api/state, JSON) and draws them.

Read-only unless started with --allow-actions. Then requeue is POST /api/requeue only,
with the per-process token the page carries (header X-Ticketq-Token) and an Origin, if
sent, equal to the page's: another site cannot read the token (same-origin policy), so it
cannot requeue. Without the flag every POST is refused (403). Bound to 127.0.0.1 by
default; on a loopback address a request whose Host is not a loopback name is refused (421),
so a DNS-rebinding page cannot read it. Every name from Redis (queue names are user data)
is put into the page as text (textContent), never as markup, and the page's
Content-Security-Policy allows only its own script.

The connection is fleetctl's: --url (default redis://127.0.0.1:6379/0), --prefix, --timeout;
the URL's password is shown masked (redis://:***@host:port/db). Errors and exit codes are
fleetctl's (docs/fleet.md, "Exit codes"): 2 usage, 4 unreachable, 5 password, 130 Ctrl-C.
"""

import argparse
import collections
import hmac
import json
import os
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from ticketq_tools import fleetctl  # noqa: E402  (puts lib/ on sys.path in a checkout)

RATE_KEYS = ("pushed", "popped", "acked", "returned", "buried", "expired")
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def lane_rows(per_lane, top):
    """The lanes of a lane queue for the page: the `top` busiest (most tickets held: queued
    or leased; ties by lane), each with weight, queued, held, bound, `share` (its fair share
    of the pops now: weight / the weights of the lanes that have tickets queued, 0 if it has
    none), `backlog` (its part of the queued tickets) and `off` = backlog - share: how far
    it is from its fair share, as a fraction (> 0: it holds more of the backlog than its
    share of the pops, so it drains slower than it fills). Returns (rows, how many lanes
    were left out, tickets those held). `per_lane`: fleetctl.stats()'s list, whatever the
    lanes' names (numbers, or keys)."""
    lanes = list(per_lane or ())
    active_w = sum(l["weight"] for l in lanes if l["queued"] > 0)
    queued = sum(l["queued"] for l in lanes)
    rows = []
    for l in lanes:
        share = l["weight"] / float(active_w) if active_w and l["queued"] > 0 else 0.0
        backlog = l["queued"] / float(queued) if queued else 0.0
        rows.append({"lane": l["lane"], "weight": l["weight"], "queued": l["queued"],
                     "held": l["held"], "bound": l.get("bound"), "share": share,
                     "backlog": backlog, "off": backlog - share})
    rows.sort(key=lambda r: (-r["held"], str(r["lane"])))
    rest = rows[top:]
    return rows[:top], len(rest), sum(r["held"] for r in rest)


def keyed_lanes(q, top, scan, memo):
    """The busiest lanes of a keyed lane queue `q` with bounded reads, whatever its lane
    count L: at most `scan` fields of its lanes hash are walked per call (HSCAN steps of
    keyed.lua's kscan, at most 1000 each), continuing from where the last call stopped
    (`memo`, a dict kept per queue: the cursor and the last rows' keys), plus one klane
    read per row. The rows are the `top` lanes holding the most tickets (queued or leased;
    ties by the key's text) among the lanes walked this call and the rows shown last time
    (read again, so their numbers are now's): when a walk of all L lanes fits in `scan`
    (about scan / 2 lanes) that is exactly fleetctl's busiest; past that, each lane is
    walked once every ceil(2L / scan) calls and a lane shown stays while it stays among the
    busiest. Server calls per sample: ceil(scan / 1000) kscan, at most 2 * top klane, one kinfo. Each row: key (int or str, as the server names it), queued, leased (in flight),
    held, weight, bound, ceiling, paused. Returns (rows, {"lanes": L, "walked": lanes
    walked this call, "complete": whether one call walked them all})."""
    import ticketq.fleet as tf

    fn = "tq%d_kscan" % tf.VERSION
    cur = memo.get("cursor", "0")
    start = cur
    seen = {}
    budget = scan
    complete = False
    while budget > 0:
        n = min(1000, budget)
        r = q.conn.execute_command("FCALL", fn, len(q.keys), *(list(q.keys) + [cur, n]))
        budget -= n
        cur = tf._text(r[0])
        for j in range(1, len(r), 3):
            seen[tf._reply_key(r[j])] = r[j + 1] + r[j + 2]  # queued + leased
        if cur == "0":
            complete = start == "0"
            break
    memo["cursor"] = cur
    walked = len(seen)
    read = {}
    for k in memo.get("keys", ()):  # last time's rows, read again: now's numbers
        read[k] = q.lane(k)
        seen[k] = read[k]["held"] if read[k]["exists"] else -1
    best = sorted([k for k in seen if seen[k] > 0], key=lambda k: (-seen[k], str(k)))[:top]
    rows = []
    for k in best:
        d = read.get(k) or q.lane(k)
        if d["exists"]:
            rows.append({"key": k, "queued": sum(d["queued"]), "leased": d["leased"], "held": d["held"],
                         "weight": d["weight"], "bound": d["bound"], "ceiling": d["ceiling"],
                         "paused": d["paused"]})
    rows.sort(key=lambda x: (-x["held"], str(x["key"])))
    memo["keys"] = [x["key"] for x in rows]
    return rows, {"lanes": q.lane_info()["lanes"], "walked": walked, "complete": complete}


def rates(history):
    """Per-second rates between consecutive samples [(server ms, totals)]: a list of
    {"t": ms, "pushed": r, ...}. A counter that went down (the queue was made again) gives
    no rate for that step."""
    out = []
    for (t0, a), (t1, b) in zip(history, list(history)[1:]):
        dt = (t1 - t0) / 1000.0
        if dt <= 0:
            continue
        row = {"t": t1}
        for k in RATE_KEYS:
            d = b[k] - a[k]
            row[k] = d / dt if d >= 0 else None
        out.append(row)
    return out


class Sampler:
    """Reads the server every `interval` seconds (a daemon thread) and keeps the last
    `history` samples of each queue's totals; snapshot() is what GET /api/state returns."""

    def __init__(self, url, prefix="tq", names=None, timeout=1.0, interval=2.0, history=150,
                 top_lanes=8, rows=20, lane_scan=2000):
        self.url, self.prefix, self.names = url, prefix, names
        self.interval, self.top_lanes, self.rows = interval, top_lanes, rows
        self.lane_scan = lane_scan
        self.keyed_memo = {}  # queue name -> keyed_lanes' cursor and last rows
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # fleetctl's connection (no retries, --timeout to connect), and a read timeout, so a
        # server gone silent shows as an error on the page instead of a sampler stuck for ever
        self.conn = redis.Redis.from_url(url, socket_connect_timeout=timeout,
                                         socket_timeout=max(5.0, timeout), retry=Retry(NoBackoff(), 0))
        self.lock = threading.Lock()
        self.open = {}
        self.hist = {}
        self.maxlen = history
        self.state = {"ok": False, "error": "not sampled yet", "queues": []}
        self._stop = threading.Event()
        self.thread = None

    def _queue(self, name):
        return fleetctl.open_cached(self.open, self.conn, name, self.prefix)

    def sample(self):
        """Read every queue now; returns the new state (also kept for snapshot())."""
        with self.lock:
            try:
                t = self.conn.time()
                now = int(t[0]) * 1000 + int(t[1]) // 1000
                names = self.names or [n for n, _ in fleetctl.queues(self.conn, self.prefix)]
                qs = []
                for name in names:
                    qs.append(self._one(name, now))
                self.state = {"ok": True, "error": None, "server_ms": now, "queues": qs}
            except Exception as e:
                code, msg = fleetctl.explain(e, self.url, None, self.prefix)
                self.open.clear()
                self.state = dict(self.state, ok=False, error=msg.replace(self.url, fleetctl.safe_url(self.url)))
            return self.state

    def _one(self, name, now):
        try:
            q = self._queue(name)
            s = fleetctl.stats(self.conn, q)
        except Exception as e:
            self.open.pop(name, None)
            return {"name": name, "error": fleetctl.explain(e, self.url, name, self.prefix)[1]}
        h = self.hist.setdefault(name, collections.deque(maxlen=self.maxlen))
        if h and any(s["totals"][k] < h[-1][1][k] for k in RATE_KEYS):
            h.clear()  # made again since: its counters started over
        h.append((now, s["totals"]))
        lanes, more, more_held = lane_rows(s["per_lane"], self.top_lanes)
        keyed, walk = [], None
        if getattr(q, "keyed", False):
            keyed, walk = keyed_lanes(q, self.top_lanes, self.lane_scan, self.keyed_memo.setdefault(name, {}))
        return {"name": name, "error": None, "stats": s, "lanes": lanes, "lanes_more": more,
                "lanes_more_held": more_held, "keyed_lanes": keyed, "keyed_walk": walk,
                "leased": fleetctl.leased(self.conn, q)[:self.rows],
                "dead_letters": fleetctl.dead_letters(self.conn, q, self.rows),
                "rates": rates(h)}

    def requeue(self, name, count):
        """fleetctl requeue of `name`'s dead letters (at most `count`), then a new sample."""
        with self.lock:
            q = self._queue(name)
            done = fleetctl.requeue(q, count)
        self.sample()
        return done

    def snapshot(self):
        with self.lock:
            return self.state

    def _run(self):
        while not self._stop.wait(self.interval):
            self.sample()

    def start(self):
        self.sample()
        self.thread = threading.Thread(target=self._run, name="ticketq-dashboard-sampler", daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self.thread is not None:
            self.thread.join(self.interval + 5)
        self.conn.close()


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="ticketq-token" content="%(token)s">
<meta name="ticketq-interval" content="%(interval)d">
<title>ticketq dashboard</title>
<link rel="stylesheet" href="/dashboard.css">
<script src="/dashboard.js" defer></script>
</head><body>
<header><h1>ticketq</h1><span id="server"></span> <span id="mode"></span>
<span id="sampled"></span></header>
<p id="error" hidden></p>
<nav id="index"></nav>
<main id="queues"><p>Loading&hellip; (this page needs JavaScript)</p></main>
</body></html>
"""

CSS = """
body{font:14px/1.35 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
header{background:#1b1f24;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:baseline}
header h1{font-size:18px;margin:0}
#mode{padding:1px 8px;border-radius:8px;background:#445}
#mode.actions{background:#a33}
#error{background:#fdd;color:#700;padding:8px 16px;margin:0}
nav{padding:6px 16px}
nav a{margin-right:12px}
main{padding:0 16px 16px;display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:16px}
section.queue{background:#fff;border:1px solid #d8dce2;border-radius:6px;padding:8px 12px}
section.queue h2{font-size:16px;margin:4px 0 8px}
h3{font-size:13px;margin:10px 0 4px;color:#445}
table{border-collapse:collapse;font-size:12px;width:100%}
td,th{padding:1px 6px;text-align:right;border-bottom:1px solid #eee;white-space:nowrap}
td:first-child,th:first-child{text-align:left}
.kpi{display:flex;gap:14px;flex-wrap:wrap}
.kpi div{background:#eef1f5;border-radius:4px;padding:3px 8px}
.kpi b{font-size:16px}
.bar{display:inline-block;height:8px;background:#4a7bd0;vertical-align:middle}
.bar.share{background:#bbb}
.over{color:#a33}.under{color:#286}
svg{background:#fbfcfd;border:1px solid #eee;width:100%;height:auto}
button{font-size:12px}
.note{color:#667;font-size:12px}
"""

JS = r"""
"use strict";
// Everything from the server is put into the page as text (textContent), never as markup:
// queue names and lane keys are user data.
const TOKEN = document.querySelector('meta[name="ticketq-token"]').content;
const INTERVAL = +document.querySelector('meta[name="ticketq-interval"]').content || 2;
const CLASSES = ["CRITICAL", "HIGH", "NORMAL", "LOW"];
const RESULTS = {};  // queue name -> the last requeue's answer on this page
const COLORS = {pushed: "#4a7bd0", popped: "#2a9d5c", acked: "#7a5cc0", returned: "#d08a2a",
                buried: "#c03a3a", expired: "#888"};

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
function table(head, rows) {
  const t = el("table", {}, el("tr", {}, ...head.map(h => el("th", {}, h))));
  for (const r of rows) t.append(el("tr", {}, ...r.map(c => el("td", {}, c))));
  return t;
}
function secs(ms) { return ms == null ? "-" : (ms / 1000).toFixed(1) + " s"; }
function pct(x) { return (100 * x).toFixed(0) + "%"; }
function age(a) {  // stats' oldest_age_ms: the oldest queued ticket's age lies in [min, max]
  if (!a) return "(empty)";
  if (a.max == null) return "at least " + secs(a.min);
  return secs(a.min) + " to " + secs(a.max);
}

function chart(rates) {
  const NS = "http://www.w3.org/2000/svg", W = 520, H = 110;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("width", W); svg.setAttribute("height", H);
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("class", "rates");
  let top = 1;
  for (const r of rates) for (const k in COLORS) if (r[k] != null && r[k] > top) top = r[k];
  const n = Math.max(rates.length - 1, 1);
  for (const k in COLORS) {
    const pts = rates.map((r, i) => r[k] == null ? null :
      (i * W / n).toFixed(1) + "," + (H - 4 - (H - 16) * r[k] / top).toFixed(1)).filter(p => p);
    if (!pts.length) continue;
    const p = document.createElementNS(NS, "polyline");
    p.setAttribute("points", pts.join(" ")); p.setAttribute("fill", "none");
    p.setAttribute("stroke", COLORS[k]); p.setAttribute("stroke-width", "1.5");
    p.setAttribute("data-series", k);
    svg.append(p);
  }
  const lbl = document.createElementNS(NS, "text");
  lbl.setAttribute("x", 4); lbl.setAttribute("y", 11); lbl.setAttribute("font-size", "10");
  lbl.textContent = "max " + top.toFixed(1) + "/s";
  svg.append(lbl);
  return svg;
}

async function requeue(name, button) {
  button.disabled = true;
  const r = await fetch("/api/requeue", {method: "POST", headers: {"Content-Type": "application/json",
    "X-Ticketq-Token": TOKEN}, body: JSON.stringify({queue: name})});
  const body = await r.json();
  // kept across redraws (each refresh rebuilds the panels), shown beside the button
  RESULTS[name] = {status: String(r.status),
                   text: r.ok ? "requeued " + body.requeued.length : "refused: " + body.error};
  await refresh();
}

function queuePanel(q, actions) {
  const sec = el("section", {"class": "queue", "data-queue": q.name, id: "q-" + q.name});
  sec.append(el("h2", {}, q.name));
  if (q.error) { sec.append(el("p", {"class": "error"}, q.error)); return sec; }
  const s = q.stats;
  sec.querySelector("h2").append(el("span", {"class": "note"}, " " + s.kind + ", digest " + s.digest));
  sec.append(el("div", {"class": "kpi"},
    el("div", {"data-k": "queued"}, "queued ", el("b", {}, s.queued), " / " + s.capacity),
    el("div", {"data-k": "leased"}, "leased ", el("b", {}, s.leased)),
    el("div", {"data-k": "dead"}, "dead ", el("b", {}, s.dead)),
    el("div", {"data-k": "oldest"}, "oldest ", el("b", {}, age(s.oldest_age_ms))),
    el("div", {"data-k": "expiry"}, "next expiry ", el("b", {}, secs(s.next_expiry_ms)))));
  sec.append(el("h3", {}, "Classes"));
  sec.append(table(CLASSES, [CLASSES.map(c => s.per_class[c])]));
  if (q.lanes.length) {
    sec.append(el("h3", {}, "Lanes (busiest " + q.lanes.length + ")"));
    const t = table(["lane", "weight", "queued", "held", "bound", "fair share", "backlog", "off share"],
      q.lanes.map(l => [String(l.lane), l.weight, l.queued, l.held, l.bound == null ? "-" : l.bound,
        pct(l.share), pct(l.backlog), (l.off > 0 ? "+" : "") + (100 * l.off).toFixed(0) + " pts"]));
    t.classList.add("lanes");
    t.querySelectorAll("tr").forEach((tr, i) => {
      if (!i) return;
      const l = q.lanes[i - 1];
      tr.dataset.lane = String(l.lane);
      tr.lastChild.className = l.off > 0.05 ? "over" : l.off < -0.05 ? "under" : "";
    });
    sec.append(t);
    if (q.lanes_more) sec.append(el("p", {"class": "note"}, "and " + q.lanes_more + " more lanes holding " + q.lanes_more_held + " tickets"));
  }
  if (q.keyed_walk) {
    const w = q.keyed_walk;
    sec.append(el("h3", {}, "Keyed lanes (busiest " + q.keyed_lanes.length + " of " + w.lanes + ")"));
    const t = table(["key", "queued", "in flight", "held", "weight", "bound", "ceiling", "paused"],
      q.keyed_lanes.map(l => [String(l.key), l.queued, l.leased, l.held, l.weight, l.bound, l.ceiling,
        l.paused ? "paused" : ""]));
    t.classList.add("keyed");
    t.querySelectorAll("tr").forEach((tr, i) => { if (i) tr.dataset.key = String(q.keyed_lanes[i - 1].key); });
    sec.append(t);
    sec.append(el("p", {"class": "note keyed-walk"}, w.complete ? "every lane read at this sample" :
      "busiest of the " + w.walked + " lanes read at this sample and those shown before (a rolling walk of all " + w.lanes + ")"));
  }
  sec.append(el("h3", {}, "Rates (per second, " + q.rates.length + " samples)"));
  const last = q.rates.length ? q.rates[q.rates.length - 1] : null;
  const legend = el("div", {"class": "kpi rates-now"});
  for (const k in COLORS) legend.append(el("div", {"data-rate": k, style: "color:" + COLORS[k]},
    k + " ", el("b", {}, last && last[k] != null ? last[k].toFixed(1) : "-")));
  sec.append(legend, chart(q.rates));
  sec.append(el("h3", {}, "Leased (" + s.leased + ")"));
  sec.append(table(["id", "class", "seq", "lane", "deliveries", "expires in"],
    q.leased.map(t => [t.id, t.class, t.seq, t.lane == null ? "-" : t.lane, t.deliveries, secs(t.expires_in_ms)])));
  sec.lastChild.classList.add("leased");
  const dh = el("h3", {}, "Dead letters (" + s.dead + ")");
  sec.append(dh);
  if (actions) {
    const res = RESULTS[q.name] || {status: "", text: ""};
    const out = el("span", {"class": "result", "data-status": res.status}, res.text);
    const row = el("div", {});
    if (s.dead > 0) {
      const b = el("button", {"class": "requeue", type: "button"}, "requeue all " + s.dead);
      b.addEventListener("click", () => requeue(q.name, b));
      row.append(b, " ");
    }
    row.append(out);
    sec.append(row);
  }
  sec.append(table(["id", "class", "seq", "lane", "deliveries"],
    q.dead_letters.map(t => [t.id, t.class, t.seq, t.lane == null ? "-" : String(t.lane), t.deliveries])));
  sec.lastChild.classList.add("dead");
  return sec;
}

async function refresh() {
  let st;
  try {
    const r = await fetch("/api/state", {cache: "no-store"});
    st = await r.json();
  } catch (e) {
    st = {ok: false, error: "the dashboard process does not answer: " + e, queues: null};
  }
  document.getElementById("server").textContent = st.server || "";
  const mode = document.getElementById("mode");
  mode.textContent = st.actions ? "actions allowed" : "read-only";
  mode.className = st.actions ? "actions" : "";
  document.getElementById("sampled").textContent = st.server_ms ?
    "sampled " + new Date(st.server_ms).toISOString().replace("T", " ").slice(0, 19) + " UTC (server clock)" : "";
  const err = document.getElementById("error");
  err.hidden = !st.error; err.textContent = st.error || "";
  if (!st.queues) return;
  const main = document.getElementById("queues"), nav = document.getElementById("index");
  main.replaceChildren(...st.queues.map(q => queuePanel(q, st.actions)));
  if (!st.queues.length) main.append(el("p", {}, "No ticketq queues under prefix " + st.prefix));
  nav.replaceChildren(...st.queues.map(q => el("a", {href: "#q-" + q.name}, q.name)));
  document.body.dataset.refreshed = String((+document.body.dataset.refreshed || 0) + 1);
}

refresh();
setInterval(refresh, INTERVAL * 1000);
"""

CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; "
       "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


class Dashboard:
    """The web server: ThreadingHTTPServer (the standard library) on `bind`:`port` (0: a free
    one) over `sampler`. actions=True allows POST /api/requeue with `token`."""

    def __init__(self, sampler, bind="127.0.0.1", port=9466, actions=False):
        self.sampler, self.actions = sampler, actions
        self.token = secrets.token_urlsafe(32) if actions else ""
        dash = self

        class Handler(BaseHTTPRequestHandler):
            server_version = "ticketq-dashboard"

            def log_message(self, fmt, *args):  # quiet: one line per request is noise
                pass

            def _send(self, code, body, ctype):
                if isinstance(body, str):
                    body = body.encode("utf-8")
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.send_header("X-Content-Type-Options", "nosniff")
                self.send_header("Referrer-Policy", "no-referrer")
                self.send_header("Content-Security-Policy", CSP)
                self.end_headers()
                self.wfile.write(body)

            def _json(self, code, obj):
                self._send(code, json.dumps(obj, sort_keys=True), "application/json")

            def _host_ok(self):
                host = (self.headers.get("Host") or "").rsplit(":", 1)[0] if not (
                    self.headers.get("Host") or "").startswith("[") else self.headers["Host"].split("]")[0] + "]"
                return dash.bind not in LOOPBACK or host in LOOPBACK

            def do_GET(self):
                if not self._host_ok():
                    return self._send(421, "this dashboard answers only to a loopback Host\n", "text/plain")
                path = self.path.split("?")[0]
                if path == "/":
                    return self._send(200, PAGE % {"token": dash.token, "interval": max(1, round(dash.sampler.interval))},
                                      "text/html; charset=utf-8")
                if path == "/dashboard.js":
                    return self._send(200, JS, "text/javascript; charset=utf-8")
                if path == "/dashboard.css":
                    return self._send(200, CSS, "text/css; charset=utf-8")
                if path == "/api/state":
                    st = dict(dash.sampler.snapshot(), actions=dash.actions, prefix=dash.sampler.prefix,
                              server=fleetctl.safe_url(dash.sampler.url), interval=dash.sampler.interval)
                    return self._json(200, st)
                return self._send(404, "not found\n", "text/plain")

            def do_POST(self):
                if not self._host_ok():
                    return self._send(421, "this dashboard answers only to a loopback Host\n", "text/plain")
                if self.path != "/api/requeue":
                    return self._json(404, {"error": "no such action"})
                if not dash.actions:
                    return self._json(403, {"error": "read-only dashboard: start it with --allow-actions to requeue"})
                origin = self.headers.get("Origin")
                if origin is not None and origin != "http://" + (self.headers.get("Host") or ""):
                    return self._json(403, {"error": "cross-origin request refused"})
                if not hmac.compare_digest(self.headers.get("X-Ticketq-Token", ""), dash.token):
                    return self._json(403, {"error": "missing or wrong X-Ticketq-Token (reload the page)"})
                try:
                    n = int(self.headers.get("Content-Length") or 0)
                    body = json.loads(self.rfile.read(min(n, 65536)) or b"{}")
                    if not isinstance(body, dict):
                        raise ValueError
                except (ValueError, TypeError):
                    return self._json(400, {"error": 'a JSON body {"queue": NAME[, "count": N]}'})
                name = body.get("queue")
                if not isinstance(name, str):
                    return self._json(400, {"error": '"queue": the queue\'s name, a string (a JSON body '
                                                     '{"queue": NAME[, "count": N]})'})
                count = body.get("count", 1 << 29)
                # fleetctl requeue --count's range: at least 1 (fleetctl: "--count 0: at least 1"),
                # at most 2**29 (all); a whole JSON number, not a bool, a string or 1.5
                if type(count) is not int or not 1 <= count <= 1 << 29:
                    return self._json(400, {"error": '"count": %s: at most this many dead letters, a whole number '
                                                     '1..%d (leave it out for all)' % (json.dumps(count), 1 << 29)})
                if name not in [q["name"] for q in dash.sampler.snapshot()["queues"]]:
                    return self._json(404, {"error": "no queue %s on this dashboard" % name})
                try:
                    done = dash.sampler.requeue(name, count)
                except Exception as e:
                    code, msg = fleetctl.explain(e, dash.sampler.url, name, dash.sampler.prefix)
                    return self._json(409 if code == fleetctl.EXIT_REFUSED else 502, {"error": msg})
                return self._json(200, {"requeued": [{"id": i, "class": c, "seq": s, "lane": l}
                                                     for i, c, s, l in done]})

        self.bind = bind
        self.httpd = ThreadingHTTPServer((bind, port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = None

    @property
    def url(self):
        host = "[%s]" % self.bind if ":" in self.bind else self.bind
        return "http://%s:%d/" % ("127.0.0.1" if self.bind in ("0.0.0.0", "") else host, self.port)

    def start(self):
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="ticketq-dashboard", daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def chromium_exe():
    """Debian's headless-capable chromium (tools/setup installs it), or None."""
    import shutil

    for name in ("chromium", "chromium-browser", "google-chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    return None


def screenshot(url, path, size=(1280, 1500), wait_ms=4000):
    """A PNG of the page at `url`, taken by headless Chromium after its scripts ran (it
    waits `wait_ms` of virtual time). RuntimeError if chromium is missing or fails."""
    import subprocess
    import tempfile

    exe = chromium_exe()
    if not exe:
        raise RuntimeError("chromium not found (tools/setup installs Debian's chromium)")
    with tempfile.TemporaryDirectory(prefix="ticketq-chromium-") as prof:
        cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--hide-scrollbars", "--user-data-dir=" + prof, "--window-size=%d,%d" % size,
               "--virtual-time-budget=%d" % wait_ms, "--screenshot=" + os.path.abspath(path), url]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    if r.returncode != 0 or not os.path.exists(path):
        raise RuntimeError("chromium failed (%d): %s" % (r.returncode, r.stdout.decode(errors="replace")[-500:]))
    return path


def demo_fill(conn, seconds=6.0, stop=None):
    """Fills a demo server (the --demo and the docs' screenshot): a plain queue and a lane
    queue, some pops with leases, acks, dead letters, for `seconds` of activity (or, with
    `stop` a threading.Event, until it is set). Returns the tickets pushed."""
    import random

    from ticketq.fleet import FleetQueue, FleetLaneQueue

    rng = random.Random(7)
    devices = ["gw-north", "gw-south", "sensor-7", "sensor-9", "sensor-12", "relay <3>"]
    try:
        jobs = FleetQueue(conn, "jobs")
        up = FleetLaneQueue(conn, "uplinks")
        dev = FleetLaneQueue(conn, "devices")
    except Exception:  # the first call: make them
        jobs = FleetQueue(conn, "jobs", 500, max_deliveries=1)
        up = FleetLaneQueue(conn, "uplinks", 400, [4, 2, 1, 1], [200, 100, 50, 50])
        dev = FleetLaneQueue(conn, "devices", 400)  # keyed lanes: one per device
        dev.set_lane("gw-north", weight=3)
        dev.pause("sensor-9")
    for i in range(3):  # three dead letters in jobs: leased with a 1 ms lease, run out
        jobs.push(900 + i, 1)
    for _ in range(3):
        jobs.pop(1)
    time.sleep(0.01)
    jobs.info()
    end = time.monotonic() + seconds
    n = 0
    while (not stop.is_set()) if stop is not None else time.monotonic() < end:
        for _ in range(rng.randint(5, 15)):
            jobs.push(n % 100000, rng.choice((0, 1, 1, 1, 2, 3)))
            up.push(n % 100000, rng.choice((1, 1, 2)), rng.choice((0, 0, 0, 1, 1, 2, 3)))
            if len(dev) < 300:
                dev.push(n % 100000, 1, rng.choice(devices[:1] * 3 + devices))
            n += 1
        for _ in range(rng.randint(3, 12)):
            for q in (jobs, up, dev):
                try:
                    q.pop(30000)
                    if rng.random() < 0.8:
                        q.ack(q.last_lease)
                except Exception:  # empty, or full: a demo goes on
                    pass
                if len(q) > 300:
                    q.pop()
        time.sleep(0.25)
    return n


def parser():
    p = argparse.ArgumentParser(prog=os.path.basename(sys.argv[0]) or "dashboard",
                                description="Serve a web page showing the ticketq queues on a "
                                "Redis/Valkey server: classes, lanes, leased tickets, dead letters, "
                                "rates. Read-only unless --allow-actions. Exit codes: docs/fleet.md.")
    p.add_argument("--url", default="redis://127.0.0.1:6379/0",
                   help="redis://[[user]:password@]host:port/db (default redis://127.0.0.1:6379/0)")
    p.add_argument("--prefix", default="tq", help="key prefix (default tq)")
    p.add_argument("--timeout", type=float, default=1.0, help="seconds to connect (default 1)")
    p.add_argument("--queue", dest="queues", action="append", metavar="Q",
                   help="a queue to show (repeat; default: every queue under --prefix, found at each sample)")
    p.add_argument("--bind", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=9466, help="TCP port (default 9466; 0: a free one)")
    p.add_argument("--interval", type=float, default=2.0, help="seconds between samples (default 2)")
    p.add_argument("--history", type=int, default=150, help="samples kept for the rates (default 150)")
    p.add_argument("--lanes", type=int, default=8, help="lanes shown per queue, the busiest (default 8)")
    p.add_argument("--rows", type=int, default=20, help="leased tickets and dead letters listed per queue (default 20)")
    p.add_argument("--lane-scan", type=int, default=2000,
                   help="keyed lane queues: fields of the lanes hash walked per sample (default 2000, "
                   "about 1000 lanes; 1 to 100000)")
    p.add_argument("--allow-actions", action="store_true",
                   help="allow requeueing dead letters from the page (POST, with the page's token)")
    p.add_argument("--demo", action="store_true",
                   help="start a throwaway redis-server (a checkout's tests/fleet_server.py), fill "
                   "two demo queues, and show them (--url is ignored)")
    p.add_argument("--screenshot", metavar="PNG",
                   help="take a PNG of the page with headless chromium and exit (as docs/dashboard.png)")
    return p


def main(argv=None):
    p = parser()
    a = p.parse_args(argv)
    for opt in ("history", "lanes", "rows"):
        if getattr(a, opt) < 1:
            p.error("--%s %d: at least 1" % (opt, getattr(a, opt)))
    if not 0.1 <= a.interval <= 3600:
        p.error("--interval %s: 0.1 to 3600 seconds" % a.interval)
    if not 0 <= a.port < 65536:
        p.error("--port %d: 0..65535" % a.port)
    if not 1 <= a.lane_scan <= 100000:
        p.error("--lane-scan %d: 1..100000" % a.lane_scan)
    if a.timeout <= 0:
        p.error("--timeout %s: more than 0 seconds" % a.timeout)
    srv = traffic = None
    sampler = dash = None
    stop = threading.Event()
    try:
        try:
            if a.demo:
                tests = os.path.join(os.path.dirname(HERE), "tests")
                if not os.path.exists(os.path.join(tests, "fleet_server.py")):
                    p.error("--demo needs a checkout (tests/fleet_server.py)")
                sys.path.insert(0, tests)
                import fleet_server

                srv = fleet_server.RedisServer().start()
                a.url = srv.url
                demo_fill(srv.client(), 1.0)
            conn = fleetctl.connect(a.url, a.timeout)
            conn.ping()  # reachable, and the password good, before serving anything
            conn.close()
            sampler = Sampler(a.url, a.prefix, a.queues, a.timeout, a.interval, a.history, a.lanes,
                              a.rows, a.lane_scan)
            sampler.start()
            dash = Dashboard(sampler, a.bind, a.port, a.allow_actions).start()
        except (ValueError, TypeError) as e:
            p.error(str(e).replace(a.url, fleetctl.safe_url(a.url)))
        except OSError as e:  # the port taken, or the address not ours
            if not any(c.__module__.startswith("redis") for c in type(e).__mro__):
                print("%s: cannot serve on %s:%d: %s" % (p.prog, a.bind, a.port, e), file=sys.stderr)
                return fleetctl.EXIT_USAGE
            raise
        if a.demo:  # traffic for as long as it runs; a few samples of it first, for the rates
            traffic = threading.Thread(target=demo_fill, args=(srv.client(), 0, stop), daemon=True)
            traffic.start()
            time.sleep(max(4 * a.interval, 4.0))
        if a.screenshot:
            screenshot(dash.url, a.screenshot)
            print("== wrote %s" % a.screenshot)
            return 0
        print("== dashboard of %s on %s (%s)" % (
            fleetctl.safe_url(a.url), dash.url, "actions allowed" if a.allow_actions else "read-only"))
        if a.bind not in LOOPBACK:
            print("== warning: serving on %s, not loopback: whoever reaches it sees the queues%s (it has "
                  "no login; an SSH tunnel to 127.0.0.1 is safer)" % (
                      a.bind, " and may requeue" if a.allow_actions else ""))
        sys.stdout.flush()
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        if not isinstance(e, (fleetctl.Failure, OSError)) and not any(
                c.__module__.startswith("redis") for c in type(e).__mro__):
            raise
        code, msg = fleetctl.explain(e, a.url, None, a.prefix)
        print("%s: %s" % (p.prog, msg.replace(a.url, fleetctl.safe_url(a.url))), file=sys.stderr)
        return code
    finally:
        stop.set()
        if traffic is not None:
            traffic.join(10)
        if dash is not None:
            dash.stop()
        if sampler is not None:
            sampler.stop()
        if srv is not None:
            srv.close()


if __name__ == "__main__":
    sys.exit(main())
