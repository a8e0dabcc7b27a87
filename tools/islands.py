#!/usr/bin/env python3
"""The islands demonstration: one operation stream, several islands, two queues.

Replays one seeded operation stream of an edge mesh (background telemetry and sync, bursts
of consensus votes and relay handoffs, a worker's pops, a few cancels) on simulated islands
whose clocks are skewed and drift, with delivery delays between them, and compares:

  textbook  heapq of (-class, local arrival ms, id): the islands disagree on the order;
  ticketq   TicketQueue (sequence numbers from the agreed push order, never a clock):
            the same pop order and the same q.digest on every island, on CPython and on
            the MicroPython VM (tools/islands_vm.mjs).

Each island stamps a push with its own clock when the push reaches it, so what reorders two
near-simultaneous jobs is that islands hear them at different times (delivery delay and
jitter; each island hears its own jobs first). A constant skew cancels between two stamps
of one island, and drift only rescales them: with --delay-ms 0 --jitter-ms 0 the textbook
islands agree whatever the skew. Skew matters once stamps from different clocks meet.

Prints a summary and writes a picture of the drain (docs/islands.svg for the default run,
build/islands.svg for any other, or --svg PATH). The replay itself is
tools/islands_replay.py, shared with the VM. Exit status: 0 when the ticketq islands agree
(and the VM agrees with CPython, when it ran), 1 otherwise (or the picture could not be
written), 2 for bad arguments.

  ticketq islands                                   # the default run, writes docs/islands.svg
  ticketq islands --skew-ms 0,0.4,3 --drift-ppm 0,100,-100 --seed 7 --no-svg
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for _p in (os.path.join(REPO, "lib"), os.path.join(REPO, "tests"), HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import islands_replay as R  # noqa: E402

NAMES = ("LOW", "NORMAL", "HIGH", "CRITICAL")
KINDS = ("sync", "telemetry", "consensus vote", "relay handoff")
COLOURS = ("#d4d4d4", "#6baed6", "#fd8d3c", "#b2182b")
INK = ("#222", "#111", "#111", "#fff")
VM_SCRIPT = os.path.join(HERE, "islands_vm.mjs")
VM_PKG = os.path.join(HERE, "mpvm", "node_modules", "@micropython",
                      "micropython-webassembly-pyscript")


def island_name(j):
    return chr(ord("A") + j) if j < 26 else "I%d" % j


def first_divergence(orders):
    # Index of the first pop where the orders are not all equal, or None.
    for i in range(max(len(o) for o in orders)):
        if len({o[i] if i < len(o) else None for o in orders}) > 1:
            return i
    return None


def run(seed=1, skew_ms=(0, 11, 250), drift_ppm=(0, 50, -50), pushes=96, capacity=32,
        aging=0, delay_ms=2.0, jitter_ms=3.0):
    # The whole CPython side as one dict (the tests and main use it).
    cfg = dict(seed=seed, skew_us=[int(round(s * 1000)) for s in skew_ms],
               drift_ppm=[int(d) for d in drift_ppm], pushes=pushes, capacity=capacity,
               aging=aging, base_us=int(round(delay_ms * 1000)),
               jitter_us=int(round(jitter_ms * 1000)))
    ops, res = R.simulate(cfg["seed"], cfg["skew_us"], cfg["drift_ppm"], pushes, capacity,
                          aging, cfg["base_us"], cfg["jitter_us"])
    jobs = {op[1]: (op[2], op[3]) for op in ops if op[0] == R.PUSH}  # id -> (class, origin)
    tb = [r[0] for r in res]
    tq = [r[1] for r in res]
    return dict(cfg=cfg, ops=ops, jobs=jobs, textbook=tb, ticketq=tq,
                digests=[r[2] for r in res], tb_div=first_divergence(tb),
                tq_div=first_divergence(tq))


def vm_call(cfg):
    # The Python line the VM runs: the same report() on the same integers.
    c = cfg
    return "import islands_replay as r\nr.report(%d, %r, %r, %d, %d, %d, %d, %d)" % (
        c["seed"], c["skew_us"], c["drift_ppm"], c["pushes"], c["capacity"], c["aging"],
        c["base_us"], c["jitter_us"])


def vm_unavailable():
    # Why the MicroPython VM cannot run here, or None.
    if not shutil.which("node"):
        return "node not found"
    if not os.path.isdir(VM_PKG):
        return "tools/mpvm/node_modules missing (run: npm ci --prefix tools/mpvm)"
    return None


def vm_lines(code, timeout=120):
    # Runs Python code on the MicroPython VM (tools/islands_vm.mjs: lib/, tests/ and the
    # tools' *_replay.py importable); returns (VM version, the lines it printed). Raises
    # RuntimeError if the VM fails. ticketq lanes-demo uses it too.
    head = "import sys\nprint('v', '.'.join(str(x) for x in sys.implementation.version[:3]))\n"
    p = subprocess.run(["node", VM_SCRIPT, head + code], capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode:
        raise RuntimeError("MicroPython VM failed (exit %d): %s" % (
            p.returncode, (p.stderr or p.stdout).strip()[-800:]))
    lines = p.stdout.splitlines()
    version = lines[0].split()[1] if lines and lines[0].startswith("v ") else "?"
    return version, lines[1:]


def run_vm(cfg, timeout=120):
    # Replays on the MicroPython VM: {"textbook": [...], "ticketq": [...], "digests": [...],
    # "version": str}. Raises RuntimeError if the VM fails.
    version, lines = vm_lines(vm_call(cfg), timeout)
    n = len(cfg["skew_us"])
    out = {"textbook": [None] * n, "ticketq": [None] * n, "digests": [None] * n,
           "version": version}
    for line in lines:
        f = line.split()
        if f and f[0] == "tq":
            out["digests"][int(f[1])] = int(f[2])
            out["ticketq"][int(f[1])] = [int(x) for x in f[3].split(",")] if len(f) > 3 else []
        elif f and f[0] == "tb":
            out["textbook"][int(f[1])] = [int(x) for x in f[2].split(",")] if len(f) > 2 else []
    if None in out["digests"] or None in out["textbook"]:
        raise RuntimeError("MicroPython VM: incomplete output:\n" + "\n".join(lines)[-800:])
    return out


# ------------------------------------------------------------------------------ summary
def fmt_ms(us):
    return ("%.3f" % (us / 1000.0)).rstrip("0").rstrip(".")


def summary(r, head=8):
    c = r["cfg"]
    n = len(c["skew_us"])
    ops = r["ops"]
    pushes = sum(1 for o in ops if o[0] == R.PUSH)
    cancels = sum(1 for o in ops if o[0] == R.CANCEL)
    ran = len(r["ticketq"][0])
    lines = []
    lines.append("islands: seed %d, %d pushes, %d cancels, %d jobs run; %d islands; link delay "
                 "%s-%s ms + 0-%s ms jitter%s" % (
                     c["seed"], pushes, cancels, ran, n, fmt_ms(c["base_us"]),
                     fmt_ms(3 * c["base_us"]), fmt_ms(c["jitter_us"]),
                     "; aging every %d pops" % c["aging"] if c["aging"] else ""))
    lines.append("")
    row = "%-6s %9s %8s  %-*s  %-*s  %s"
    w = 3 * head + 9
    lines.append(row % ("island", "skew", "drift", w, "textbook: first %d pops, same as A" % head,
                        w, "ticketq: first %d pops" % head, "ticketq digest"))
    a = r["textbook"][0]
    for j in range(n):
        tb = r["textbook"][j]
        same = sum(1 for x, y in zip(tb, a) if x == y)
        lines.append(row % (
            island_name(j), fmt_ms(c["skew_us"][j]) + " ms", "%+d ppm" % c["drift_ppm"][j],
            w, " ".join("%2d" % x for x in tb[:head]) + ("  (ref)" if j == 0 else
                                                            "  %2d/%d" % (same, len(a))),
            w, " ".join("%2d" % x for x in r["ticketq"][j][:head]),
            "0x%08x" % r["digests"][j]))
    lines.append("")
    k = r["tb_div"]
    if k is None:
        lines.append("textbook: all %d islands agree (no divergence with these settings)" % n)
    else:
        who = ", ".join("%s runs %d (%s from %s)" % (
            island_name(j), r["textbook"][j][k], NAMES[r["jobs"][r["textbook"][j][k]][0]],
            island_name(r["jobs"][r["textbook"][j][k]][1])) for j in range(n))
        lines.append("textbook: islands DISAGREE; first divergence at pop #%d: %s" % (k + 1, who))
    if r["tq_div"] is None and len(set(r["digests"])) == 1:
        lines.append("ticketq:  all %d islands agree: same %d pops, digest 0x%08x on every "
                     "island" % (n, ran, r["digests"][0]))
    else:
        lines.append("ticketq:  islands DISAGREE (pop #%s, digests %s): a bug" % (
            r["tq_div"] if r["tq_div"] is None else r["tq_div"] + 1,
            " ".join("0x%08x" % g for g in r["digests"])))
    return lines


# ------------------------------------------------------------------------------ picture
def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg_head(width, height, title, subtitle):
    # The opening lines of a demonstration's picture (ticketq lanes-demo's too): the svg
    # element, a white background, the title and the line under it (text, not escaped).
    return ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
            'font-family="DejaVu Sans, Verdana, Arial, sans-serif">' % (width, height, width,
                                                                         height),
            '<rect width="100%" height="100%" fill="#fff"/>',
            '<text x="16" y="28" font-size="17" font-weight="bold">%s</text>' % title,
            '<text x="16" y="50" font-size="12" fill="#444">%s</text>' % subtitle]


def svg(r, show=40):
    # One row per island for each queue, boxes in pop order coloured by class, the first
    # divergence marked. Hand-written SVG: no dependency, stable text output.
    c = r["cfg"]
    n = len(c["skew_us"])
    total = len(r["ticketq"][0])
    k = r["tb_div"]
    start = 0 if k is None or k < show - 6 else k - 8
    cols = min(show, total - start)
    bw, gap, bh, rgap = 20, 2, 24, 8
    left, top = 200, 70
    width = left + cols * (bw + gap) + 190
    panel_h = 24 + n * (bh + rgap)
    height = top + 2 * panel_h + 24 + 70
    out = svg_head(width, height, "One operation stream, %d islands with skewed, drifting "
                   "clocks: who runs first?" % n,
                   "seed %d · %d pushes · skew %s ms · drift %s ppm · link delay %s–%s ms + "
                   "0–%s ms jitter · pops %d–%d of %d shown" % (
                       c["seed"], sum(1 for o in r["ops"] if o[0] == R.PUSH),
                       " / ".join(fmt_ms(s) for s in c["skew_us"]),
                       " / ".join("%+d" % d for d in c["drift_ppm"]), fmt_ms(c["base_us"]),
                       fmt_ms(3 * c["base_us"]), fmt_ms(c["jitter_us"]), start + 1,
                       start + cols, total))
    a = out.append

    def x_of(i):
        return left + (i - start) * (bw + gap)

    def panel(y, title, verdict, orders, note):
        a('<text x="16" y="%d" font-size="14" font-weight="bold">%s<tspan dx="8" fill="%s">— %s'
          '</tspan></text>' % (y + 14, esc(title), verdict[1], esc(verdict[0])))
        y += 24
        for j in range(n):
            yy = y + j * (bh + rgap)
            a('<text x="16" y="%d" font-size="12">island %s</text>' % (yy + 16, island_name(j)))
            a('<text x="84" y="%d" font-size="11" fill="#555">%s ms, %+d ppm</text>' % (
                yy + 16, fmt_ms(c["skew_us"][j]), c["drift_ppm"][j]))
            o = orders[j]
            for i in range(start, start + cols):
                if i >= len(o):
                    break
                cls, origin = r["jobs"][o[i]]
                differs = any(i >= len(p) or p[i] != o[i] for p in orders)
                a('<g><title>pop #%d: job %d, %s (%s) from island %s</title>'
                  '<rect x="%d" y="%d" width="%d" height="%d" rx="3" fill="%s" stroke="%s" '
                  'stroke-width="%s"/>' % (
                      i + 1, o[i], NAMES[cls], KINDS[cls], island_name(origin), x_of(i), yy,
                      bw, bh, COLOURS[cls], "#000" if differs else "#fff",
                      "2" if differs else "1"))
                a('<text x="%d" y="%d" font-size="9" text-anchor="middle" fill="%s">%d</text>'
                  '</g>' % (x_of(i) + bw / 2.0, yy + 15.5, INK[cls], o[i]))
            a('<text x="%d" y="%d" font-size="11" fill="#333">%s</text>' % (
                x_of(start + cols) + 10, yy + 16, esc(note(j))))
        return y + n * (bh + rgap)

    a_order = r["textbook"][0]

    def tb_note(j):
        if j == 0:
            return "(reference)"
        same = sum(1 for x, y in zip(r["textbook"][j], a_order) if x == y)
        return "%d of %d pops differ from A" % (len(a_order) - same, len(a_order))

    y0 = top
    agree = r["tq_div"] is None and len(set(r["digests"])) == 1
    tb_verdict = ("the islands disagree", "#c00") if k is not None else ("all agree here", "#555")
    y1 = panel(y0, "textbook heapq (−class, local arrival ms, id)", tb_verdict, r["textbook"],
               tb_note)
    if k is not None:
        xk = x_of(k)
        a('<rect x="%.1f" y="%d" width="%d" height="%d" fill="none" stroke="#c00" '
          'stroke-width="2.5" stroke-dasharray="5,3" rx="4"/>' % (
              xk - 3, y0 + 21, bw + 6, y1 - y0 - 21 - rgap + 6))
        who = ", ".join("%s runs %d" % (island_name(j), r["textbook"][j][k]) for j in range(n))
        a('<text x="%.1f" y="%d" font-size="12" fill="#c00" font-weight="bold">▲ first '
          'divergence: pop #%d — %s</text>' % (xk - 4, y1 + 10, k + 1, esc(who)))

    def tq_note(j):
        return "digest 0x%08x" % r["digests"][j]

    tq_verdict = (("same order, same digest on every island", "#1a7f37") if agree
                  else ("the islands disagree: a bug", "#c00"))
    y2 = panel(y1 + 24, "ticketq TicketQueue (class, sequence number from the push order)",
               tq_verdict, r["ticketq"], tq_note)
    # legend
    y = y2 + 18
    x = 16
    for cls in (3, 2, 1, 0):
        a('<rect x="%d" y="%d" width="16" height="16" rx="3" fill="%s"/>' % (x, y, COLOURS[cls]))
        label = "%s · %s" % (NAMES[cls], KINDS[cls])
        a('<text x="%d" y="%d" font-size="12">%s</text>' % (x + 22, y + 13, esc(label)))
        x += 32 + 7 * len(label)
    a('<rect x="%d" y="%d" width="16" height="16" rx="3" fill="#fff" stroke="#000" '
      'stroke-width="2"/>' % (x, y))
    a('<text x="%d" y="%d" font-size="12">islands disagree at this pop</text>' % (x + 22, y + 13))
    a('<text x="16" y="%d" font-size="11" fill="#555">Boxes are jobs in pop order (number: '
      'job id = position in the push log). Made by ticketq islands.</text>' % (y + 38))
    a("</svg>")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------ CLI
def floats(s):
    try:
        return [float(x) for x in s.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("expected comma-separated numbers, got %r" % s)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="ticketq islands",
        description="Replay one operation stream on islands with skewed, drifting clocks: a "
                    "timestamp-tie-break heapq disagrees, ticketq agrees (CPython and the "
                    "MicroPython VM).")
    ap.add_argument("--seed", type=int, default=1, help="stream seed (default 1)")
    ap.add_argument("--skew-ms", type=floats, default=[0, 11, 250], metavar="LIST",
                    help="clock offset of each island in ms; one island per value "
                         "(default 0,11,250)")
    ap.add_argument("--drift-ppm", type=floats, default=None, metavar="LIST",
                    help="clock drift of each island in ppm (default 0,+50,-50,+50,-50,...)")
    ap.add_argument("--pushes", type=int, default=96, help="jobs pushed (default 96)")
    ap.add_argument("--capacity", type=int, default=32, help="queue capacity (default 32)")
    ap.add_argument("--aging", type=int, default=0, help="ticketq aging=N (default 0, off)")
    ap.add_argument("--delay-ms", type=float, default=2.0,
                    help="base link delay; links get delay..3*delay ms (default 2)")
    ap.add_argument("--jitter-ms", type=float, default=3.0,
                    help="extra delay per message, 0..jitter ms (default 3)")
    ap.add_argument("--svg", metavar="PATH",
                    help="picture to write (default docs/islands.svg for the default run, "
                         "build/islands.svg for any other)")
    ap.add_argument("--no-svg", action="store_true", help="write no picture")
    ap.add_argument("--show", type=int, default=40, help="pops drawn per row (default 40)")
    vm = ap.add_mutually_exclusive_group()
    vm.add_argument("--vm", action="store_true",
                    help="require the MicroPython VM (fail if it cannot run)")
    vm.add_argument("--no-vm", action="store_true", help="skip the MicroPython VM")
    args = ap.parse_args(argv)

    n = len(args.skew_ms)
    drift = args.drift_ppm or [0] + [50 if j % 2 else -50 for j in range(1, n)]
    if not 2 <= n <= 26 or len(drift) != n:
        ap.error("give 2..26 islands, and as many drifts as skews")
    if not (1 <= args.pushes <= 5000 and 1 <= args.capacity <= 4096 and args.aging >= 0
            and args.show >= 5 and args.delay_ms >= 0 and args.jitter_ms >= 0
            and all(abs(s) <= 100000 for s in args.skew_ms)
            and all(abs(d) <= 1000 for d in drift)):
        ap.error("out of range: pushes 1..5000, capacity 1..4096, aging >= 0, show >= 5, "
                 "delays >= 0, |skew| <= 100 s, |drift| <= 1000 ppm")

    r = run(args.seed, args.skew_ms, drift, args.pushes, args.capacity, args.aging,
            args.delay_ms, args.jitter_ms)
    print("\n".join(summary(r)))
    ok = r["tq_div"] is None and len(set(r["digests"])) == 1

    def judge(m):
        same_tq = m["ticketq"] == r["ticketq"] and m["digests"] == r["digests"]
        same_tb = m["textbook"] == r["textbook"]
        print("MicroPython %s VM: ticketq digest %s on every island, %s CPython's; "
              "textbook orders %s CPython's" % (
                  m.get("version", "?"),
                  "0x%08x" % m["digests"][0] if len(set(m["digests"])) == 1
                  else "DIFFERS between islands",
                  "same pops and digest as" if same_tq else "NOT EQUAL to",
                  "identical to" if same_tb else "differ from"))
        return same_tq

    ok = vm_stage(args, r["cfg"], run_vm, judge) and ok
    if not args.no_svg:
        ok = write_picture(picture_path(ap, args, "islands.svg"), svg(r, args.show)) and ok
    return 0 if ok else 1


# The two steps every demonstration's CLI ends with (ticketq lanes-demo uses them too).
def vm_stage(args, cfg, run_vm, judge):
    # The replay on the MicroPython VM: skipped (--no-vm, or no VM here: then a failure only
    # with --vm), failed, or judge(its result), which prints a line and returns whether the
    # VM agrees with CPython.
    why = "--no-vm" if args.no_vm else vm_unavailable()
    if why:  # with --vm the VM was required: a failure, said as one
        print("MicroPython VM: %s (%s)" % ("FAILED: required by --vm, not run" if args.vm else "skipped", why))
        return not args.vm
    try:
        m = run_vm(cfg)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print("MicroPython VM: FAILED: %s" % e)
        return False
    return judge(m)


def picture_path(ap, args, name):
    # --svg, else docs/NAME for the default run (the picture the docs show, which a test
    # keeps current) and build/NAME for any other, so exploring never redraws a committed file.
    if args.svg:
        return args.svg
    shown = ("svg", "no_svg", "vm", "no_vm")
    default = all(v == ap.get_default(k) for k, v in vars(args).items() if k not in shown)
    return os.path.join(REPO, "docs" if default else "build", name)


def write_picture(path, text):
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print("cannot write the picture %s: %s" % (path, e.strerror or e), file=sys.stderr)
        return False
    print("picture: %s" % os.path.relpath(path))
    return True


if __name__ == "__main__":
    sys.exit(main())
