"""BENCHMARKS.md and its spliced tables: the machine and interpreter versions, the headline, the
targets table, the ISA table (issue 18), the speed block of docs/speed.md, the raw runs
(tools/bench/results.json).
"""
import json
import os
import platform
import subprocess
import sys

from ticketq_tools.bench.common import HERE, MICROPYTHONS, NAMES, ORDER, QEMU, ROOT, TITLES
from ticketq_tools.bench.analysis import b, memory_table, ops_line, span, speedups, time_table


def machine_info():
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {"cpu": "%s, %d cores" % (cpu, os.cpu_count() or 0), "os": platform.platform(),
            "python": platform.python_version()}
    try:
        info["node"] = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    try:
        q = subprocess.run(["qemu-system-arm", "--version"], capture_output=True, text=True).stdout
        info["qemu"] = q.splitlines()[0].strip() if q else ""
        fw = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "firmware-microbit-micropython"],
                            capture_output=True, text=True).stdout.strip()
        info["firmware"] = "firmware-microbit-micropython " + fw if fw else ""
    except OSError:
        pass
    try:
        info["vm_pkg"] = json.load(open(os.path.join(ROOT, "tools", "mpvm", "node_modules", "@micropython",
                                                     "micropython-webassembly-pyscript", "package.json")))["version"]
    except (OSError, ValueError, KeyError):
        pass
    return info


def interp_version(interp, R, info):
    v = R["misc"].get("ver")
    if interp == "cpython":
        return "CPython %s" % (v[0] if v else info["python"])
    if interp == "vm":
        return "MicroPython %s (%s, npm @micropython/micropython-webassembly-pyscript %s) under Node %s" % (
            v[1] if v else "?", v[2] if v else "?", info.get("vm_pkg", "?"), info.get("node", "?"))
    if interp in ("unix", "unix-c"):
        return "MicroPython %s (%s port, 32-bit x86 build of ../shared/micropython, default 1 MB heap%s); " \
               "ticketq.PATH %r by default" % (v[1] if v else "?", v[2] if v else "?",
                                              ", the C core's x86 .mpy on its path" if interp == "unix-c" else "",
                                              R["misc"].get("path"))
    if interp in QEMU:
        return "MicroPython %s (%s port, 1c3c201 built by ticketq mcu, ticketq frozen with viper=True), in %s; " \
               "ticketq.PATH %r by default; QEMU time is not board time" % (
                   v[1] if v else "?", v[2] if v else "?", info.get("qemu", "QEMU"), R["misc"].get("path"))
    return "MicroPython %s on %s (%s), in %s" % (
        v[1] if v else "?", v[2] if v else "?", info.get("firmware", "?"), info.get("qemu", "QEMU"))


def headline(runs):
    """The headline figures, as Markdown bullets."""
    out = []
    for interp in ORDER:
        if interp not in runs or "A" not in runs[interp]:
            continue
        c, A = runs[interp]["c"], runs[interp]["A"]
        for x in [y for y in ("tq", "tqb") if y in c["impls"]]:
            sp = speedups(c, A, c["base"], x)
            mid = c["caps"][len(c["caps"]) // 2] if len(c["caps"]) > 1 else c["caps"][0]
            m = sp.get((mid, mid // 2))
            who = "ticketq" if x == "tq" else "ticketq with the bytecode path forced"
            if x == "tq" and interp in ("unix", "unix-c"):
                who = "ticketq (its default, %s path)" % runs[interp]["R"]["misc"].get("path")
            line = "**%s**: %s is %s the speed of %s (%s at %d queued of %d)" % (
                TITLES[interp], who, span(sp), NAMES[c["base"]], "%.2fx" % m if m else "—", mid // 2, mid)
            if interp != "microbit":
                fl = speedups(c, A, "hqi", x)
                line += "; %s of the C-speed floor (heapq on ints)" % span(fl)
            else:
                line += "; %s of the sorted list" % span(speedups(c, A, "sl"))
            out.append("- " + line + ".")
        if interp == "unix-c":  # the C core against the other two classes, in the same process
            mid = c["caps"][len(c["caps"]) // 2]
            parts = []
            for y in ("hqi", "hqt", "tqv", "tqb"):
                m = speedups(c, A, y, "tq").get((mid, mid // 2)) if y in c["impls"] else None
                parts.append("%s %s" % (NAMES[y], "%.2fx" % m if m else "—"))
            out.append("- **%s**: the C core's speed, at %d queued of %d, against %s." % (
                TITLES[interp], mid // 2, mid, ", ".join(parts)))
    mb = runs.get("microbit", {}).get("R")
    if mb:
        capq = mb["misc"].get(("cap", "tq"))
        capp = mb["misc"].get(("cap", "ph"))
        if capq and capp:
            capl = mb["misc"].get(("cap", "phl"))
            out.append("- **micro:bit RAM**: a TicketQueue of up to %d slots fits beside the library "
                       "(which takes %s B of the ~9.6 KB heap), against %d entries for the pure-Python "
                       "tuple heap alone before MemoryError, or %s entries with the library loaded "
                       "too." % (capq, (mb["misc"]["imp1"][0] - mb["misc"]["imp0"][0])
                                 if mb["misc"].get("imp1") and mb["misc"].get("imp0") else "?", capp, capl))
    for interp in MICROPYTHONS:
        if interp in runs and "A" in runs[interp]:
            A = runs[interp]["A"]
            if A["ops"]:
                out.append("- **%s**: bytes allocated per ticketq operation: %s%s." % (
                    TITLES[interp], ops_line(interp, A),
                    "; bytecode path forced: %s" % ops_line(interp, A, "ops_b") if A.get("ops_b") else ""))
    return out


def _speed_row(label, sp, bar):
    # One speed target row: met when every cell reaches `bar` times the baseline's speed.
    if not sp:
        status = "not run"
    elif min(sp.values()) >= bar:
        status = "met"
    else:
        status = "met in %d of %d cells" % (sum(v >= bar for v in sp.values()), len(sp))
    return "| %s | %s | %s |" % (label, span(sp), status)


def _pair(A, x, cap, fill):
    """(x's speed-up over heapq with tuples, x's time in multiples of the C floor's) in a cell."""
    t, h, f = (A["pp"].get((y, cap, fill)) for y in (x, "hqt", "hqi"))
    return (h / t if t and h else None, t / f if t and f else None)


def _unix_row(runs, x, fast, slow, path):
    # issue 12 on the unix port, 128 queued of 256: >= fast x heapq-tuples, <= slow x C floor
    label = ("native 32-bit MicroPython (unix port), %s: >= %dx heapq with tuples and <= %dx the "
             "C floor, at 128 queued" % (path, fast, slow))
    r = runs.get("unix", {})
    if "A" not in r or x not in r["c"]["impls"]:
        return "| %s | %s | not run |" % (label, r.get("error", "no unix port run") if r else "no unix port run")
    sp, fl = _pair(r["A"], x, 256, 128)
    if sp is None or fl is None:
        return "| %s | — | not measured |" % label
    met = sp >= fast and fl <= slow
    return "| %s | %.1fx heapq with tuples, %.2fx the C floor's time | %s |" % (
        label, sp, fl, "met" if met else "not met (%s)" % " and ".join(
            w for w, bad in (("speed-up", sp < fast), ("C floor", fl > slow)) if bad))


def _ops_row(interp, A, key, label):
    ops = A.get(key)
    if not ops:
        return None
    ok = all(v[0] == 0 for v in ops.values()) and len(ops) == 4
    return "| 0 B allocated per push, pop, peek, remove (%s) | %s | %s |" % (
        label, ops_line(interp, A, key), "met" if ok else "not met")


def targets(runs):
    rows = ["| target | measured | status |", "| --- | --- | --- |"]

    def get(interp):
        r = runs.get(interp, {})
        return (r.get("c"), r.get("A"), r.get("R")) if "A" in r else (None, None, None)

    path = runs.get("unix", {}).get("R", {}).get("misc", {}).get("path") or "viper"
    rows.append(_unix_row(runs, "tq", 20, 3, "default path (%s)" % path))
    rows.append(_unix_row(runs, "tqb", 5, 11, "bytecode path forced"))
    c, A, R = get("vm")
    if A:
        at = [(f, _pair(A, "tq", cap, f)[0]) for cap, f in ((32, 16), (256, 128))]
        ok = all(v is not None and v >= 1.0 for f, v in at)
        rows.append("| WebAssembly VM: >= 1.0x heapq with tuples at 16 and 128 queued | %s (all cells: %s) | %s |" % (
            ", ".join("%d queued %s" % (f, "%.2fx" % v if v else "—") for f, v in at),
            span(speedups(c, A, "hqt")), "met" if ok else "not met"))
    c, A, R = get("microbit")
    if A:
        rows.append(_speed_row("emulated micro:bit: >= 1.5x the pure-Python tuple heap (issue 6)",
                               speedups(c, A, "ph"), 1.5))
        capq, capp = R["misc"].get(("cap", "tq")), R["misc"].get(("cap", "ph"))
        rows.append("| emulated micro:bit: largest queue that fits | ticketq %s slots, tuple heap %s entries | measured |" % (capq, capp))
    for interp in MICROPYTHONS:
        c, A, R = get(interp)
        if A:
            for key, label in (("ops", TITLES[interp] + (", default path" if A.get("ops_b") else "")),
                               ("ops_b", TITLES[interp] + ", bytecode path forced")):
                row = _ops_row(interp, A, key, label)
                if row:
                    rows.append(row)
    for interp in MICROPYTHONS:  # CPython's array('i', range(n)) over-allocates a little
        c, A, R = get(interp)
        if A and "tq" in A["storage"]:
            per = A["storage"]["tq"][0]
            rows.append("| at most 8 B of storage per slot (%s) | %s B | %s |" % (
                TITLES[interp], b(per), "met" if per <= 8.05 else "not met"))
    return rows


ISA_CELL = (256, 128)  # capacity, queued: the cell of the ISA table (issue 18's figures)


def isa_rows(raw):
    """The rows of the ISA table from results.json's "runs" (so the committed figures can
    be checked against the committed results): per QEMU target and hot path, ticketq's
    speed against the firmware's C heapq on (class, seq, id) tuples and on packed ints at
    ISA_CELL, bytes allocated per push+pop pair, and issue 18's target (auto path within
    1.2x of heapq on ints: time ratio <= 1.2)."""
    cap, fill = ISA_CELL
    rows = []
    for interp in QEMU:
        r = raw.get(interp)
        if not r:
            continue
        if "ratio" not in r:
            rows.append("| %s | not run: %s | | | | |" % (TITLES[interp], r.get("error")))
            continue
        ratio, alloc = r["ratio"], r.get("alloc_per_pair", {})
        path = r["misc"].get(repr("path"), "?")
        for x, label in (("tq", "auto (%s)" % path), ("tqb", "bytecode (forced)")):
            t = ratio.get("%s/%d/%d" % (x, cap, fill))  # time relative to heapq on tuples
            hqi = ratio.get("hqi/%d/%d" % (cap, fill))
            if t is None and x == "tqb" and path == "bytecode":
                rows.append("| %s | %s | the default path is bytecode here | | | |" % (TITLES[interp], label))
                continue
            if t is None or not hqi:
                rows.append("| %s | %s | no figure | | | |" % (TITLES[interp], label))
                continue
            vs_i = t / hqi  # time relative to heapq on ints
            a = alloc.get(x)
            rows.append("| %s | %s | %s | %s | %s | %s |" % (
                TITLES[interp], label, _faster(1 / t), _faster(1 / vs_i),
                b(a[0]) if a else "—",
                ("met" if vs_i <= 1.2 else "not met (%.2fx)" % vs_i) if x == "tq" else "—"))
    return rows


def _faster(s):
    """'3.0x faster' / '1.7x slower' for a speed ratio s (> 1: ticketq is faster)."""
    return "%.1fx faster" % s if s >= 1 else "%.1fx slower" % (1 / s)


CCORE_INTERPS = ("unix-c", "qemu-armv6m-c", "qemu-armv7m-c", "qemu-rv32-c")
CCORE_BEGIN = "<!-- C-core table: generated by tools/bench/run.py from tools/bench/results.json -->"
CCORE_END = "<!-- end of the C-core table -->"


def ccore_rows(raw):
    """The rows of the C-core table (issue 33) from results.json's "runs": per target whose
    firmware has ticketq's C core (the unix port with the x86 .mpy on its path, the QEMU
    frozen-c firmware), the C path's push+pop pair at ISA_CELL against the same run's heapq on
    packed ints and on tuples and against the viper and bytecode classes (speed ratios: > 1 is
    the C path faster), bytes per pair, and the issue's target (>= 1.0x heapq on ints)."""
    cap, fill = ISA_CELL
    rows = []
    for interp in CCORE_INTERPS:
        r = raw.get(interp)
        if not r:
            continue
        if "ratio" not in r:
            rows.append("| %s | not run: %s | | | | | |" % (TITLES[interp], r.get("error")))
            continue
        ratio, alloc = r["ratio"], r.get("alloc_per_pair", {})
        t = ratio.get("tq/%d/%d" % (cap, fill))  # time relative to heapq on tuples
        path = r["misc"].get(repr("path"), "?")
        if t is None or path != "c":
            rows.append("| %s | no figure (path %s) | | | | | |" % (TITLES[interp], path))
            continue

        def vs(x):
            o = ratio.get("%s/%d/%d" % (x, cap, fill))
            return "%.2fx" % (o / t) if o else "—"
        hqi = ratio.get("hqi/%d/%d" % (cap, fill))
        a = alloc.get("tq")
        rows.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            TITLES[interp], vs("hqi"), vs("hqt"), vs("tqv"), vs("tqb"), b(a[0]) if a else "—",
            ("met" if hqi and hqi / t >= 1.0 else "not met") if hqi else "—"))
    return rows


def ccore_section(raw):
    rows = ccore_rows(raw)
    if not rows:
        return []
    return [CCORE_BEGIN, "## The C core against heapq, viper and bytecode (issue 33)", "",
            "ticketq's C core (c/ticketq_core.c) on each target where it runs, each row one run on "
            "one firmware: the 32-bit unix port with the core's x86 .mpy on its path (`ticketq bench "
            "--interp unix-c`), and MicroPython's QEMU firmware with the core compiled in as a user C "
            "module (`ticketq bench --splice --interp qemu-armv6m-c,qemu-armv7m-c,qemu-rv32-c`). "
            "The C path (`ticketq.PATH` `c`, the default there) against the same firmware's C `heapq` "
            "on packed ints and on (class, seq, id) tuples, and against ticketq's viper and bytecode "
            "classes forced, as speed ratios of the push+pop pair at %d queued of %d (2.00x: the C "
            "path takes half the time). Target (issue 33): at least heapq's speed on plain ints "
            "(>= 1.00x), 0 B per pair. QEMU time is not board time; the RP2040's figures, in "
            "emulated cycles, are in the Pico C-core section below. \"—\": not measured there (frozen "
            "armv6m viper fails its self-check, docs/armv6m-frozen-viper.md). The tuple column measures each "
            "firmware's allocator as much as heapq: on the unix port, 20,000 pairs a section fill its 1 MB "
            "heap with garbage (the regime of issue 12's figures); on the armv7m firmware with the C core, "
            "allocating a small tuple ran ~10x slower than on the armv7m firmware without it (measured on "
            "2026-12-07 with a plain `(i, i, i)` loop; the same `gc_alloc` bytes, moved by the link: a QEMU "
            "effect of the code layout, not seen on armv6m or rv32imc), so its tuple ratio is not a board "
            "figure. The plain-ints column, the target's, allocates nothing." % (ISA_CELL[1], ISA_CELL[0]), "",
            "| target | vs heapq, plain ints | vs heapq, tuples | vs viper class | vs bytecode class | B per pair | >= 1.0x heapq on ints |",
            "| --- | ---: | ---: | ---: | ---: | --- | --- |"] + rows + [CCORE_END, ""]


def ccore_splice(text, raw):
    """BENCHMARKS.md with its C-core section replaced by the one of `raw`, or put after the
    ISA table (else before "## How it is measured", else at the end) when it has none."""
    sec = "\n".join(ccore_section(raw)).rstrip("\n")
    return _splice(text, sec, CCORE_BEGIN, CCORE_END, (ISA_END,)) if sec else text


ISA_BEGIN = "<!-- ISA table: generated by tools/bench/run.py from tools/bench/results.json -->"
ISA_END = "<!-- end of the ISA table -->"


def _splice(text, sec, begin, end, after=()):
    """`text` with the section between the markers `begin` and `end` replaced by `sec`; when
    it has none, `sec` put after the first of the markers `after` that `text` has, else
    before "## How it is measured", else at the end."""
    if begin in text:
        a, z = text.index(begin), text.index(end) + len(end)
        return text[:a] + sec + text[z:]
    for mark in after:
        if mark in text:
            at = text.index(mark) + len(mark)
            return text[:at] + "\n\n" + sec + text[at:]
    at = text.find("\n## How it is measured")
    if at < 0:
        return text.rstrip("\n") + "\n\n" + sec + "\n"
    return text[:at + 1] + sec + "\n\n" + text[at + 1:]


def isa_splice(text, raw):
    """BENCHMARKS.md with its ISA section replaced by the one of `raw` (results.json's
    runs), or put before "## How it is measured" (else at the end) when it has none."""
    return _splice(text, "\n".join(isa_section(raw)).rstrip("\n"), ISA_BEGIN, ISA_END)


def isa_section(raw):
    rows = isa_rows(raw)
    if not rows:
        return []
    return [ISA_BEGIN, "## Microcontroller ISAs under QEMU (issue 18)", "",
            "MicroPython 1c3c201's QEMU port, built by `ticketq mcu` with ticketq frozen (`viper=True`), "
            "each target in one run: ticketq's push+pop pair at %d queued of %d against the same "
            "firmware's C `heapq`, on (class, seq, id) tuples and on packed ints, both hot paths "
            "(the bytecode one forced with the viper class's base, `BytecodeQueue`). Ratios only: QEMU "
            "time is not board time (an emulated instruction costs what the host's translation makes "
            "it cost), but both sides ran on the same emulated firmware. Bytes per pair from "
            "`gc.mem_alloc`. Target (issue 18): the auto-selected path within 1.2x of `heapq` on "
            "plain ints, 0 B/op." % (ISA_CELL[1], ISA_CELL[0]), "",
            "| target | path | vs heapq, tuples | vs heapq, plain ints | B per pair | within 1.2x of heapq on ints |",
            "| --- | --- | --- | --- | --- | --- |"] + rows + [ISA_END, ""]


PICO_BEGIN = "<!-- Pico section: generated by tools/bench/run.py from tools/bench/results.json -->"
PICO_END = "<!-- end of the Pico section -->"
PICO_C_BEGIN = "<!-- Pico C-core section: generated by tools/bench/run.py from tools/bench/results.json -->"
PICO_C_END = "<!-- end of the Pico C-core section -->"
_PICO_MARKS = {"pico": (PICO_BEGIN, PICO_END), "pico-c": (PICO_C_BEGIN, PICO_C_END)}


def _cyc(ns):
    """ns of the emulated chip -> RP2040 cycles (125 MHz: 8 ns a cycle), as text."""
    return "—" if ns is None else "{:,}".format(int(round(ns / 8.0)))


def pico_section(raw, interp="pico"):
    """BENCHMARKS.md's section for the emulated Pico (results.json's "pico" run), or for the
    Pico firmware with the C core built in (interp "pico-c": its "pico-c" run)."""
    r = raw.get(interp)
    if not r:
        return []
    BEGIN, END = _PICO_MARKS[interp]
    cc = interp == "pico-c"
    head = [BEGIN, "## Raspberry Pi Pico (RP2040) in rp2040js, C core built in, in emulated cycles (issue 33)"
            if cc else "## Raspberry Pi Pico (RP2040) in rp2040js, in emulated cycles (issue 32)", ""]
    if "ns_per_pair" not in r:
        return head + ["Not run: %s" % r.get("error"), END, ""]
    misc, c = r["misc"], r["config"]
    fw = json.loads(misc.get("'fw'", "{}") or "{}")
    ram = misc.get("'ram'")
    path = misc.get("'path'", "?")
    cap, fill = c["tpo"]
    cell = "/%d/%d" % (cap, fill)
    pp, po, lk = r["ns_per_pair"], r.get("push_pop_ns", {}), r.get("heap_lock_bytes_per_pair", {})
    hqi, hqt = pp.get("hqi" + cell), pp.get("hqt" + cell)
    L = head + [
        "ticketq's Raspberry Pi Pico firmware (MicroPython %s, rp2 port, `RPI_PICO`%s; %s; `firmware.bin` sha256 "
        "`%s`) in rp2040js 1.4.1, driven over its emulated USB CDC by mpremote "
        "(`ticketq bench --splice --interp %s`, `ticketq_tools/bench/pico.py`). One run, one firmware: "
        "ticketq on its default path (`ticketq.PATH` `%s`)%s and with the bytecode class forced (`BytecodeQueue`), "
        "against the same firmware's C `heapq` on (class, seq, id) tuples and on packed ints, %d queued of %d. "
        "Medians of %d sections of %d pairs (or pushes and pops) after a warm-up, the empty loop's time "
        "subtracted."
        % (misc.get("'ver'", ["", "?"])[1] if misc.get("'ver'") else "?",
           ", ticketq's C core built in as the user C module `_ticketq`" if cc else "", fw.get("from", "?"),
           (fw.get("sha256_bin") or "?")[:16], interp, path,
           ", with the viper class forced (`ticketq.viper.TicketQueue`, the class the viper path uses)" if cc else "",
           fill, cap, c["reps"], c["n"]), "",
        "**Cycles** are emulated RP2040 cycles: `time.ticks_us()` on the emulated chip x 125. rp2040js advances "
        "its clock 8 ns (one cycle at 125 MHz) for each cycle its core model charges an executed instruction, "
        "and the firmware's microsecond timer reads that clock, so a cycle here is one of rp2040js's (to 125 "
        "cycles, the tick). **Caveats:** rp2040js does not model the XIP flash cache: on a real Pico the "
        "firmware's code (the VM, C `heapq`, ticketq's frozen viper code and bytecode) runs from external "
        "flash through a 16 KB cache, and a miss stalls the core for a QSPI read, where rp2040js charges "
        "every fetch alike; so a real board can be slower than these figures, and the rows unequally (the "
        "one whose code misses more pays more). Nor does it model bus contention. The emulated USB host NAKs while it "
        "has nothing to send, as a real one does (rp2040js's own keeps the device's USB interrupt busy: "
        "`tools/pico/run.mjs --host=quiet`). Ratios between rows are the firmer figures.", "",
        "| implementation | push | pop | push+pop pair | pair's time against heapq on ints "
        "| pair's time against heapq on tuples | B per pair |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    rows = [("tq", "ticketq, default path (%s)" % path)]
    if cc:
        rows.append(("tqv", "ticketq, viper path forced"))
    for x, label in rows + [("tqb", "ticketq, bytecode path forced"), ("hqt", NAMES["hqt"]), ("hqi", NAMES["hqi"])]:
        t = pp.get(x + cell)
        p_o = po.get(x + cell)
        b_ = lk.get(x)
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            label, _cyc(p_o[0]) if p_o else "—", _cyc(p_o[1]) if p_o else "—", _cyc(t),
            "%.2fx" % (t / hqi) if t and hqi else "—", "%.2fx" % (t / hqt) if t and hqt else "—",
            ("%s (heap_lock)" % b(b_[1]) if b_[0] else "%s (allocates: gc.mem_free, collector off)" % b(b_[1]))
            if b_ else "—"))
    L.append("")
    L.append("Cycles per operation (time against heapq: ticketq's cycles over heapq's; below 1, ticketq is "
             "faster). heapq on tuples allocates a 32 B tuple a push: its push column includes the "
             "allocator's work. push and pop: %d of each in rounds of 64 (the queue between %d and %d "
             "queued), each half timed alone; push+pop pair: a push and a pop in turn at %d queued. B per pair: "
             "`gc.mem_free()` before and after %d pairs, under `micropython.heap_lock()` when they ran there (an "
             "allocation raises MemoryError), else with the collector off."
             % (c["n"], fill, fill + 64, fill, c["lk"]))
    L.append("")
    t = pp.get("tq" + cell)
    if t and hqi:
        v = t / hqi
        L.append("- **Target** (issue 32): ticketq's default path within 1.2x of `heapq` on plain ints: "
                 "**%s** (%.2fx)." % ("met" if v <= 1.2 else "not met", v))
        if cc:
            L.append("- **Target** (issue 33): the C path at least as fast as `heapq` on plain ints (time "
                     "ratio <= 1.0x): **%s** (%.2fx; speed %.2fx heapq's)." % ("met" if v <= 1.0 else "not met", v, 1 / v))
    fills_ = [f for f in (0, fill, cap - 1) if pp.get("tq/%d/%d" % (cap, f)) and pp.get("hqi/%d/%d" % (cap, f))]
    if fills_:
        L.append("- The pair against heapq on ints at %s queued of %d: %s (default path)%s." % (
            ", ".join(str(f) for f in fills_), cap,
            ", ".join("%.2fx" % (pp["tq/%d/%d" % (cap, f)] / pp["hqi/%d/%d" % (cap, f)]) for f in fills_),
            "".join("; %s path forced: %s" % (name, ", ".join(
                "%.2fx" % (pp["%s/%d/%d" % (x, cap, f)] / pp["hqi/%d/%d" % (cap, f)]) for f in fills_
                if pp.get("%s/%d/%d" % (x, cap, f)))) for x, name in (("tqv", "viper"),)
                if any(pp.get("%s/%d/%d" % (x, cap, f)) for f in fills_)) +
            ("; bytecode path forced: %s" % ", ".join(
                "%.2fx" % (pp["tqb/%d/%d" % (cap, f)] / pp["hqi/%d/%d" % (cap, f)]) for f in fills_
                if pp.get("tqb/%d/%d" % (cap, f))) if any(pp.get("tqb/%d/%d" % (cap, f)) for f in fills_) else "")))
    ops = r.get("ticketq_ops") or {}
    if ops:
        L.append("- Bytes per single ticketq operation (`gc.mem_alloc`, collector off): %s; bytecode path: %s." % (
            ", ".join("%s %s B" % (o, b(ops[o][0])) for o in ("push", "pop", "peek", "remove") if o in ops),
            ", ".join("%s %s B" % (o, b(v[0])) for o, v in sorted((r.get("ticketq_ops_bytecode") or {}).items()))
            or "—"))
    if ram:
        f0, f1, f2, cq, full = ram[:5]
        cw = misc.get("'worker'")
        L.append("- RAM (`gc.mem_free()`, from a fresh heap, nothing mounted over mpremote; the firmware's "
                 "littlefs mounted as on a real Pico): %s B free after boot, "
                 "%s B after `import ticketq` (%s B taken)%s." % (
                     "{:,}".format(f0), "{:,}".format(f1), "{:,}".format(f0 - f1),
                     ", %s B after the frozen worker too (`import worker`)" % "{:,}".format(f2) if cw else ""))
        L.append("- Largest queue that fits beside the worker (capacities tried on the emulated board, binary "
                 "search, as on the micro:bit): TicketQueue(%s) builds, fills (%s queued) and drains%s. "
                 "(8 B a slot: the RAM, not ticketq's 2**24 limit, is the bound.)" % (
                     "{:,}".format(cq), "{:,}".format(full),
                     "; `worker.Worker(%s)` (the queue and its job table) builds" % "{:,}".format(cw) if cw else ""))
    emu = misc.get("'emu'")
    if emu:
        parts = emu.split()
        L.append("- The run: %s s simulated, %s s of host time (rp2040js on one core of the machine above)." % (
            parts[2], parts[4]))
    return L + [END, ""]


def pico_splice(text, raw, interp="pico"):
    """BENCHMARKS.md with its Pico section (interp "pico-c": its Pico C-core section) replaced by
    the one of `raw`, or put after the ISA section (the C-core one after the Pico section) (else
    before "## How it is measured", else at the end)."""
    sec = "\n".join(pico_section(raw, interp)).rstrip("\n")
    if not sec:
        return text
    BEGIN, END = _PICO_MARKS[interp]
    return _splice(text, sec, BEGIN, END, ((PICO_END,) if interp == "pico-c" else ()) + (ISA_END,))


def raw_runs(runs):
    """results.json's "runs" for the runs of this process."""
    out = {}
    for interp, r in runs.items():
        if "A" not in r:
            out[interp] = {"config": r["c"], "error": r.get("error")}
            continue
        A, R = r["A"], r["R"]
        out[interp] = {
            "config": r["c"],
            "ns_per_pair": {"%s/%d/%d" % k: v for k, v in sorted(A["pp"].items())},
            "ratio": {"%s/%d/%d" % k: v for k, v in sorted(A["ratio"].items())},
            "alloc_per_pair": A["alloc"], "ticketq_ops": A["ops"], "ticketq_ops_bytecode": A["ops_b"],
            "storage": A["storage"],
            "misc": {repr(k): v for k, v in R["misc"].items()}, "errors": R["errors"],
            "memory_errors": ["%s/%d/%d" % k for k in sorted(R["memerr"])],
        }
        if A.get("tpo"):  # the emulated Pico
            out[interp]["push_pop_ns"] = {"%s/%d/%d" % k: list(v) for k, v in sorted(A["tpo"].items())}
            out[interp]["heap_lock_bytes_per_pair"] = {x: list(v) for x, v in sorted(A["lk"].items())}
    return out


def report(runs, info, plot_rel, quick, notes):
    L = ["# Benchmarks", ""]
    L += ["Generated by `.venv/bin/python tools/bench/run.py%s` (tools/bench/); do not edit by hand: "
          "notes come from tools/bench/notes.md." % (" --quick" if quick else ""), ""]
    if quick:
        L += ["**Quick smoke run: too few repetitions for the numbers to mean much.**", ""]
    L += ["## Machine and interpreters", ""]
    L.append("- machine: %s; %s" % (info["cpu"], info["os"]))
    for interp in ORDER:
        r = runs.get(interp)
        if not r:
            continue
        if "error" in r:
            L.append("- %s: **not run**: %s" % (TITLES[interp], r["error"]))
        else:
            L.append("- %s: %s" % (TITLES[interp], interp_version(interp, r["R"], info)))
    L += ["", "## Headline", ""] + headline(runs) + [""]
    L += ["## Targets (issues 6 and 12)", ""] + targets(runs) + [""]
    L += isa_section(json.loads(json.dumps(raw_runs(runs))))
    L += ccore_section(json.loads(json.dumps(raw_runs(runs))))
    L += pico_section(json.loads(json.dumps(raw_runs(runs))))
    L += pico_section(json.loads(json.dumps(raw_runs(runs))), "pico-c")
    if plot_rel:
        mem_rel = plot_rel.replace("bench.png", "bench-memory.png")
        L += ["## Memory", "", "![storage per entry, and the largest queue on the micro:bit](%s)" % mem_rel, "",
              "Storage per queued entry of each implementation (the slope between two fill levels; "
              "tables below) and, on the emulated micro:bit, the largest TicketQueue that builds and "
              "fills beside the library against the entries a pure-Python heap of tuples takes "
              "before MemoryError, with the library loaded and alone.", ""]
    if plot_rel:
        L += ["## Cost against queued tickets", "",
              "![time per push+pop pair against queued tickets](%s)" % plot_rel, "",
              "Time per push+pop pair at a fill level (the queue holds that many tickets before "
              "the push and after the pop), relative to the baseline's time on an empty queue "
              "in the same run; log scale of queued tickets. The capacity is %s." % ", ".join(
                  "%d on %s" % (runs[i]["c"]["sweep_cap"], TITLES[i]) for i in ORDER
                  if i in runs and "A" in runs[i]), ""]
    for interp in ORDER:
        r = runs.get(interp)
        if not r or "A" not in r:
            continue
        c, A, R = r["c"], r["A"], r["R"]
        L += ["## %s" % TITLES[interp], ""]
        L += ["Time per push+pop pair relative to %s in the same cell (lower is faster; "
              "columns: capacity · queued tickets; median of %d runs of %d pairs, the plain loop's "
              "time subtracted)." % (NAMES[c["base"]], c["reps"], c["n"]), "", time_table(c, A), ""]
        L += ["Memory: allocation per pair at %d queued of %d (%d pairs, the plain loop's "
              "allocation subtracted); storage per entry is the slope between %d and %d entries, "
              "fixed is the rest." % (c["mem_cap"] // 2, c["mem_cap"], c["k"], c["mem_cap"], 2 * c["mem_cap"]),
              "", memory_table(interp, c, A), ""]
        L.append("- ticketq single operations, bytes allocated per call: %s." % ops_line(interp, A))
        if A.get("ops_b"):
            L.append("- the same with the bytecode path forced: %s." % ops_line(interp, A, "ops_b"))
        if A["long"].get("hqt") and A["long"].get("tq"):
            L.append("- One call of %d pairs at 128 queued of 256 (garbage is not freed during a call "
                     "on this port, so the heap grows): ticketq %.2fx the speed of heapq with tuples, "
                     "%.2fx of heapq on ints, %.2fx of the pure-Python heap (the tables above use "
                     "%d pairs a call, whose garbage fits the free heap)." % (
                         c["long_n"], A["long"]["hqt"] / A["long"]["tq"],
                         A["long"].get("hqi", 0) / A["long"]["tq"], A["long"].get("ph", 0) / A["long"]["tq"], c["n"]))
        if A["ops_first"] and A["ops_first"] != A["ops"]:
            L.append("- (first round, cold: %s.)" % ", ".join("%s %s B" % (op, b(v[0])) for op, v in A["ops_first"].items()))
        imp = R["misc"].get("imp")
        if interp == "microbit":
            i0, i1 = R["misc"].get("imp0"), R["misc"].get("imp1")
            if i0 and i1:
                L.append("- RAM taken by `import ticketq`: %d B (heap free after boot %d B, after the import %d B)."
                         % (i1[0] - i0[0], i0[1], i1[1]))
            caps = [R["misc"].get(("cap", "tq")), R["misc"].get(("cap", "ph"))]
            fq, fp = R["misc"].get(("free", "captq")), R["misc"].get(("free", "capph"))
            sq, sp_ = R["misc"].get(("size", "captq")), R["misc"].get(("size", "capph"))
            L.append("- Largest queue: TicketQueue(%s) builds and fills with the library and a %s-byte "
                     "search loop loaded (%s B free before, the largest free block %s B: each of the "
                     "two arrays needs one block); the pure-Python heap took %s tuples before "
                     "MemoryError with only its own %s-byte module loaded (%s B free before), and "
                     "%s with the ticketq library imported as well (%s B free)."
                     % (caps[0], sq, fq, R["misc"].get(("block", "tq")), caps[1], sp_, fp,
                        R["misc"].get(("cap", "phl")), R["misc"].get(("free", "capphl"))))
            L.append("- Insertion search of the sorted list: plain Python (no bisect module).")
        else:
            if imp is not None:
                L.append("- RAM taken by `import ticketq`: %d B (%s)." % (
                    imp, {"cpython": "tracemalloc", "unix": "gc.mem_alloc, before and after",
                          "unix-c": "gc.mem_alloc, before and after"}.get(
                        interp, "gc.mem_alloc, before and after, each in its own runPython call")))
            env = R["misc"].get("env")
            if env:
                L.append("- Insertion search of the sorted list: %s." % (
                    "bisect.insort (C)" if env[0] != "python" else "plain Python (no bisect module)"))
        if R["memerr"]:
            L.append("- MemoryError during the timed sections (the heap left too fragmented to "
                     "parse the next command) for: %s; those cells have no ratio." % ", ".join(
                         "%s at %d queued of %d" % (NAMES[x], f, cap) for x, cap, f in sorted(R["memerr"])))
        # (a step after a failed one in the same cell fails the same way: not listed)
        other = [e for e in R["errors"] if "MemoryError" not in e or not R["memerr"]]
        if other:
            L.append("- errors: %s" % "; ".join(other[:5]))
        L.append("")
    if notes:
        L += [notes.strip(), ""]
    md = "\n".join(L)
    fleet = fleet_module()  # the fleet tier's figures come from its own run
    res = fleet.committed()
    md = fleet.splice(md, res) if res and not quick else md
    keyed = fleet_module("keyed.py")  # and the keyed lanes' from theirs (tools/bench/keyed.py)
    res = keyed.committed()
    return keyed.splice(md, res) if res and not quick else md


def fleet_module(name="fleet.py"):
    """tools/bench/fleet.py (or keyed.py), loaded by its path (this module is also loaded by
    tests, with tools/bench not on sys.path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ticketq_bench_" + name[:-3], os.path.join(HERE, name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SPEED_DOC = os.path.join(ROOT, "docs", "speed.md")
SPEED_BEGIN = "<!-- speed table: generated by tools/bench/run.py from tools/bench/results.json -->"
SPEED_END = "<!-- end of the generated speed table -->"


def speed_block(raw):
    """docs/speed.md's table, from a full run's results.json: per interpreter and hot path,
    the speed-up over the baseline and the time against the C floor at 128 queued of 256
    (the micro:bit: 16 of 32, against its pure-Python tuple heap), and bytes per operation."""
    rows = ["| interpreter | ticketq's hot path | speed against %s | time against the C floor "
            "(heapq on ints) | bytes per push, pop, peek, remove |" % "the baseline, at 128 queued of 256",
            "| --- | --- | ---: | ---: | --- |"]
    for interp in ORDER:
        r = raw["runs"].get(interp)
        if not r or "ns_per_pair" not in r:
            continue
        ns, c = r["ns_per_pair"], r["config"]
        cell = "/32/16" if interp == "microbit" else "/256/128"
        path = r["misc"].get("'path'") or "bytecode"
        for x, ops in (("tq", r["ticketq_ops"]), ("tqb", r.get("ticketq_ops_bytecode"))):
            t = ns.get(x + cell)
            if not t:
                continue
            base = ns.get(c["base"] + cell)
            floor = ns.get("hqi" + cell)
            sp = "%.2fx %s" % (base / t, "the pure-Python tuple heap (16 of 32)" if interp == "microbit"
                               else "heapq with tuples") if base else "—"
            fl = "%.1fx" % (t / floor) if floor else "— (no heapq)"
            b_op = "/".join(b(ops[o][0 if interp != "cpython" else 1]) for o in ("push", "pop", "peek", "remove")
                            if o in ops) if ops else "—"
            if interp == "cpython":
                b_op += " (tracemalloc peak; CPython boxes ints)"
            name = "%s, bytecode forced" % TITLES[interp] if x == "tqb" else TITLES[interp]
            rows.append("| %s | %s | %s | %s | %s |" % (
                name, path if x == "tq" else "bytecode", sp, fl, b_op))
    return "\n".join([SPEED_BEGIN, ""] + rows + ["", SPEED_END])


def update_speed_doc(raw, path=SPEED_DOC):
    with open(path) as f:
        text = f.read()
    a, z = text.index(SPEED_BEGIN), text.index(SPEED_END) + len(SPEED_END)
    with open(path, "w") as f:
        f.write(text[:a] + speed_block(raw) + text[z:])
