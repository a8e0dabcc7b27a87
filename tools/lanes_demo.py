#!/usr/bin/env python3
"""The lanes demonstration: a chatty source and a quiet source in one class, two queues.

One seeded arrival stream, one worker popping a job a tick (tools/lanes_replay.py, shared
with the MicroPython VM):

  fifo   TicketQueue: FIFO inside a class, so every quiet job queues behind the chatty
         source's backlog, and once the backlog fills the queue the quiet source's pushes
         are refused too;
  lanes  LaneQueue, the chatty source in lane 0 and the quiet one in lane 1 (weights 1:1),
         each lane with its own bound: the quiet job waits for at most one chatty job, and
         the chatty source alone meets its bound.

Prints each source's pushes, refusals and waits (in pops, from push to pop) for both queues,
replays the same on the MicroPython VM and checks it gets the same waits and digests, and
writes a picture of every job's wait (docs/lanes.svg for the default run, build/lanes.svg
for any other, or --svg PATH). Exit status: 0 when the quiet source's worst wait with lanes
is within the guarantee (docs/lanes.md) and the VM agrees (when it ran), 1 otherwise (or
the picture could not be written), 2 for bad arguments.

  ticketq lanes-demo                     # the default run, writes docs/lanes.svg
  ticketq lanes-demo --seed 7 --burst 60 --no-svg
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for _p in (os.path.join(REPO, "lib"), os.path.join(REPO, "tests"), HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import islands  # noqa: E402  (the VM runner, the CLI's last steps, SVG escaping are shared)
import lanes_replay as R  # noqa: E402

SOURCES = ("chatty", "quiet")
COLOURS = ("#9e9e9e", "#1f77b4")
QUEUES = (("fifo", "TicketQueue: FIFO inside the class"),
          ("lanes", "LaneQueue: chatty in lane 0, quiet in lane 1, weights 1:1"))
DEFAULTS = dict(seed=1, ticks=240, capacity=32, period=30, burst=40, every=6, chatty_cap=24)


def run(**kw):
    # The whole CPython side as one dict (the tests and main use it).
    cfg = dict(DEFAULTS)
    cfg.update(kw)
    arr, fifo, lanes = R.simulate(cfg["seed"], cfg["ticks"], cfg["capacity"], cfg["period"],
                                  cfg["burst"], cfg["every"], cfg["chatty_cap"])
    res = {"cfg": cfg, "arr": arr, "fifo": fifo, "lanes": lanes}
    for name, _ in QUEUES:
        res[name + "_stats"] = [stats(arr, res[name][1], s) for s in (R.CHATTY, R.QUIET)]
    return res


def stats(arr, waits, source):
    # {"pushed", "refused", "max", "mean"} of one source's jobs (waits in pops).
    w = [waits[i] for i in range(len(arr)) if arr[i][1] == source]
    ran = [x for x in w if x >= 0]
    return {"pushed": len(w), "refused": len(w) - len(ran), "max": max(ran) if ran else 0,
            "mean": sum(ran) / float(len(ran)) if ran else 0.0}


def guarantee(cfg):
    # The most pops a quiet job can wait with lanes, from ticketq.audit.lane_max_wait: two
    # lanes of weight 1, the quiet lane's bound; every job is NORMAL with no higher class,
    # so the top-class figure applies to the class (docs/lanes.md, "wait").
    from ticketq.lanes import LaneQueue
    from ticketq.audit import lane_max_wait
    q = LaneQueue(cfg["capacity"], [1, 1], [cfg["chatty_cap"], cfg["capacity"] - cfg["chatty_cap"]])
    return lane_max_wait(q, R.QUIET, 3)


def vm_call(cfg):
    c = cfg
    return "import lanes_replay as r\nr.report(%d, %d, %d, %d, %d, %d, %d)" % (
        c["seed"], c["ticks"], c["capacity"], c["period"], c["burst"], c["every"],
        c["chatty_cap"])


def run_vm(cfg, timeout=120):
    # {"fifo": (waits, digest), "lanes": (...), "version": str}; RuntimeError if it fails.
    version, lines = islands.vm_lines(vm_call(cfg), timeout)
    out = {"version": version}
    for line in lines:
        f = line.split()
        if len(f) == 3 and f[0] in ("fifo", "lanes"):
            out[f[0]] = ([int(x) for x in f[2].split(",")], int(f[1]))
    if "fifo" not in out or "lanes" not in out:
        raise RuntimeError("MicroPython VM: incomplete output:\n" + "\n".join(lines)[-800:])
    return out


# ------------------------------------------------------------------------------ summary
def summary(r):
    c = r["cfg"]
    lines = ["lanes demo: seed %d, %d ticks, one pop a tick, one class (NORMAL), capacity %d; "
             "chatty: bursts of %d-%d jobs every ~%d ticks; quiet: a job every ~%d ticks" % (
                 c["seed"], c["ticks"], c["capacity"], c["burst"] // 2, c["burst"], c["period"],
                 c["every"]), ""]
    row = "%-34s %-7s %7s %8s %9s %10s"
    lines.append(row % ("queue", "source", "pushed", "refused", "wait max", "wait mean"))
    for name, title in QUEUES:
        for s in (R.CHATTY, R.QUIET):
            st = r[name + "_stats"][s]
            lines.append(row % (title.split(":")[0] + (" (bound %d)" % (
                c["chatty_cap"] if s == R.CHATTY else c["capacity"] - c["chatty_cap"])
                if name == "lanes" else ""), SOURCES[s], st["pushed"], st["refused"],
                st["max"], "%.1f" % st["mean"]))
    f = r["fifo_stats"][R.QUIET]
    q = r["lanes_stats"][R.QUIET]
    ch = r["lanes_stats"][R.CHATTY]
    lines.append("")
    lines.append("strict FIFO: the quiet source waits up to %d pops (mean %.1f) behind the chatty "
                 "backlog, and %d of its %d pushes are refused (queue full)" % (
                     f["max"], f["mean"], f["refused"], f["pushed"]))
    lines.append("lanes:       the quiet source waits at most %d pop%s (mean %.1f; guaranteed "
                 "<= %d), %d refused; the chatty lane meets its own bound (%d refused)" % (
                     q["max"], "" if q["max"] == 1 else "s", q["mean"], guarantee(r["cfg"]),
                     q["refused"], ch["refused"]))
    lines.append("digests: fifo 0x%08x, lanes 0x%08x" % (r["fifo"][2], r["lanes"][2]))
    return lines


# ------------------------------------------------------------------------------ picture
def svg(r):
    # Each job's wait (pops) over the tick it was pushed at, one panel per queue; refused
    # pushes marked above the plot. Hand-written SVG: no dependency, stable text output.
    c = r["cfg"]
    arr = r["arr"]
    esc = islands.esc
    top_wait = max(max(r[n][1]) for n, _ in QUEUES)
    top_wait = (top_wait // 8 + 1) * 8
    left, width_plot, ph = 70, 760, 170
    width = left + width_plot + 70
    panel_h = ph + 70
    y0 = 80
    height = y0 + 2 * panel_h + 60
    sx = width_plot / float(c["ticks"])
    out = islands.svg_head(
        width, height, "One class, two sources: strict FIFO makes the quiet source wait, "
        "lanes do not", "seed %d · %d ticks, one pop a tick · capacity %d · chatty: bursts of "
        "%d–%d jobs every ~%d ticks · quiet: a job every ~%d ticks · all NORMAL" % (
            c["seed"], c["ticks"], c["capacity"], c["burst"] // 2, c["burst"], c["period"],
            c["every"]))
    a = out.append
    for p, (name, title) in enumerate(QUEUES):
        yt = y0 + p * panel_h
        yb = yt + 30 + ph  # the plot's baseline (wait 0)
        st = r[name + "_stats"]
        a('<text x="16" y="%d" font-size="14" font-weight="bold">%s</text>' % (yt + 14, esc(title)))
        a('<text x="16" y="%d" font-size="12" fill="%s">quiet: wait ≤ %d pop%s (mean %.1f), '
          '%d of %d refused · chatty: wait ≤ %d (mean %.1f), %d of %d refused</text>' % (
              yt + 30, "#c00" if name == "fifo" else "#1a7f37", st[1]["max"],
              "" if st[1]["max"] == 1 else "s", st[1]["mean"],
              st[1]["refused"], st[1]["pushed"], st[0]["max"], st[0]["mean"], st[0]["refused"],
              st[0]["pushed"]))
        ytop = yb - ph + 16
        a('<rect x="%d" y="%d" width="%d" height="%d" fill="#fafafa" stroke="#ccc"/>' % (
            left, ytop, width_plot, yb - ytop))
        for v in range(0, top_wait + 1, 8):
            y = yb - (yb - ytop) * v / float(top_wait)
            a('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/>' % (
                left, y, left + width_plot, y))
            a('<text x="%d" y="%.1f" font-size="10" text-anchor="end" fill="#555">%d</text>' % (
                left - 6, y + 3.5, v))
        a('<text x="20" y="%d" font-size="11" fill="#555" transform="rotate(-90 20 %d)">wait '
          '(pops)</text>' % ((ytop + yb) // 2 + 20, (ytop + yb) // 2 + 20))
        a('<text x="%d" y="%d" font-size="10" fill="#c00">refused ×</text>' % (
            left + width_plot + 4, ytop - 4))
        waits = r[name][1]
        for s in (R.CHATTY, R.QUIET):  # quiet drawn last, on top
            pts = []
            for i, (t, src) in enumerate(arr):
                if src != s:
                    continue
                x = left + (t + 0.5) * sx
                if waits[i] < 0:
                    a('<text x="%.1f" y="%d" font-size="%d" text-anchor="middle" fill="%s">×'
                      '</text>' % (x, ytop - 3, 9 if s == R.CHATTY else 13,
                                   COLOURS[s] if s == R.CHATTY else "#c00"))
                    continue
                y = yb - (yb - ytop) * waits[i] / float(top_wait)
                pts.append("%.1f,%.1f" % (x, y))
                a('<circle cx="%.1f" cy="%.1f" r="%s" fill="%s"><title>%s job %d, pushed at '
                  'tick %d, waited %d pops</title></circle>' % (
                      x, y, "1.6" if s == R.CHATTY else "3.2", COLOURS[s], SOURCES[s], i + 1, t,
                      waits[i]))
            if s == R.QUIET and pts:
                a('<polyline points="%s" fill="none" stroke="%s" stroke-width="1" '
                  'stroke-opacity="0.6"/>' % (" ".join(pts), COLOURS[s]))
        for t in range(0, c["ticks"] + 1, 40):
            a('<text x="%.1f" y="%d" font-size="10" text-anchor="middle" fill="#555">%d</text>' % (
                left + t * sx, yb + 14, t))
        a('<text x="%d" y="%d" font-size="10" fill="#555" text-anchor="end">tick pushed</text>' % (
            left + width_plot, yb + 26))
    y = y0 + 2 * panel_h + 8
    a('<circle cx="24" cy="%d" r="3.2" fill="%s"/><text x="34" y="%d" font-size="12">quiet '
      'source (one job at a time)</text>' % (y, COLOURS[R.QUIET], y + 4))
    a('<circle cx="254" cy="%d" r="1.6" fill="%s"/><text x="264" y="%d" font-size="12">chatty '
      'source (bursts)</text>' % (y, COLOURS[R.CHATTY], y + 4))
    a('<text x="424" y="%d" font-size="12"><tspan fill="#c00">×</tspan> <tspan fill="%s">×'
      '</tspan> push refused, quiet / chatty (QueueFull, LaneFull)</text>' % (
          y + 4, COLOURS[R.CHATTY]))
    a('<text x="16" y="%d" font-size="11" fill="#555">Each dot is a job: when it was pushed, '
      'and how many pops came before its own. Made by ticketq lanes-demo.</text>' % (y + 28))
    a("</svg>")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------ CLI
def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="ticketq lanes-demo",
        description="A chatty and a quiet source in one class: strict FIFO (TicketQueue) makes "
                    "the quiet one wait, fair lanes (LaneQueue) do not; CPython and the "
                    "MicroPython VM.")
    d = DEFAULTS
    ap.add_argument("--seed", type=int, default=d["seed"], help="arrival seed (default 1)")
    ap.add_argument("--ticks", type=int, default=d["ticks"], help="ticks, one pop each (240)")
    ap.add_argument("--capacity", type=int, default=d["capacity"], help="queue capacity (32)")
    ap.add_argument("--period", type=int, default=d["period"],
                    help="ticks between the chatty source's bursts, about (30)")
    ap.add_argument("--burst", type=int, default=d["burst"],
                    help="largest burst; each is burst/2..burst jobs (40)")
    ap.add_argument("--every", type=int, default=d["every"],
                    help="ticks between the quiet source's jobs, about (6)")
    ap.add_argument("--chatty-cap", type=int, default=d["chatty_cap"],
                    help="the chatty lane's bound in the LaneQueue; the quiet lane gets the "
                         "rest of the capacity (24)")
    ap.add_argument("--svg", metavar="PATH",
                    help="picture to write (default docs/lanes.svg for the default run, "
                         "build/lanes.svg for any other)")
    ap.add_argument("--no-svg", action="store_true", help="write no picture")
    vm = ap.add_mutually_exclusive_group()
    vm.add_argument("--vm", action="store_true",
                    help="require the MicroPython VM (fail if it cannot run)")
    vm.add_argument("--no-vm", action="store_true", help="skip the MicroPython VM")
    args = ap.parse_args(argv)
    # Each option checked on its own, so that the message names the one that is wrong.
    for name, v, lo, hi in (("ticks", args.ticks, 1, 5000), ("capacity", args.capacity, 2, 4096),
                            ("period", args.period, 5, None), ("burst", args.burst, 2, 1000),
                            ("every", args.every, 2, None)):
        if v < lo or (hi is not None and v > hi):
            ap.error("--%s %d: %s" % (name, v, "at least %d" % lo if hi is None else "%d..%d" % (lo, hi)))
    if not 1 <= args.chatty_cap < args.capacity:
        ap.error("--chatty-cap %d: 1..%d (below --capacity %d)"
                 % (args.chatty_cap, args.capacity - 1, args.capacity))

    r = run(seed=args.seed, ticks=args.ticks, capacity=args.capacity, period=args.period,
            burst=args.burst, every=args.every, chatty_cap=args.chatty_cap)
    print("\n".join(summary(r)))
    ok = r["lanes_stats"][R.QUIET]["max"] <= guarantee(r["cfg"])

    def judge(m):
        same = all(m[n] == (r[n][1], r[n][2]) for n, _ in QUEUES)
        print("MicroPython %s VM: %s CPython's waits and digests (fifo 0x%08x, lanes 0x%08x)" % (
            m["version"], "the same as" if same else "NOT EQUAL to", m["fifo"][1],
            m["lanes"][1]))
        return same

    ok = islands.vm_stage(args, r["cfg"], run_vm, judge) and ok
    if not args.no_svg:
        ok = islands.write_picture(islands.picture_path(ap, args, "lanes.svg"), svg(r)) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
