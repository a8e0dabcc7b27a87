#!/usr/bin/env python3
"""Benchmark ticketq against the textbook priority queues on every interpreter (issue 6).

    ticketq bench            # full run (a few minutes): writes
                                                   # BENCHMARKS.md, docs/bench.png,
                                                   # docs/bench-memory.png and
                                                   # tools/bench/results.json
    ticketq bench --quick    # seconds-long smoke run into build/bench/
    options: --interp cpython,vm,unix,unix-c,microbit,qemu-armv6m,qemu-armv7m,qemu-rv32,qemu-armv6m-c,qemu-armv7m-c,qemu-rv32-c
             --out DIR  --no-plot

The kernels are in tools/bench/tqbench.py, one module that runs unchanged on CPython, the
MicroPython WebAssembly VM, the MicroPython unix port and the micro:bit. This script sends
them snippets through four drivers that all run "a list of snippets in one namespace, each
one's printed output back":
  cpython   a fresh `python -B tools/bench/cpy_worker.py`
  vm        `node tools/bench/vm.mjs` (one runPython call per snippet: that port frees
            garbage only between calls, so each timed section and memory reading gets one)
  unix      `micropython tools/bench/mp_worker.py`: the 32-bit unix port that ticketq mpunix
            finds (viper and native emitters, like rp2/esp32/stm32 boards), with both of
            ticketq's hot paths side by side: the default (viper) and the bytecode class
  qemu-armv6m, qemu-armv7m, qemu-rv32
            MicroPython's QEMU firmware (ticketq mcu: Cortex-M0, Cortex-M3, RV32IMC), ticketq
            frozen with viper=True, tqbench.py and mp_worker.py over `mpremote mount`; both
            hot paths against the firmware's C heapq (the "Microcontroller ISAs" table)
  qemu-armv6m-c, qemu-armv7m-c, qemu-rv32-c
            the same firmware with ticketq's C core compiled in (ticketq mcu's frozen-c
            route): the C path (ticketq's default there) against the firmware's C heapq,
            and the viper and bytecode classes, in one run on the same firmware
  microbit  an emulated BBC micro:bit v1 (ticketq emu: QEMU + MicroPython 1.9.2) over
            mpremote; sources are uploaded stripped, and only what a phase needs
            (tools/bench/shake.py), because the board has ~9.6 KB of heap
Every reported figure is a ratio to a baseline measured in the same run (heapq with tuples,
or on the micro:bit a pure-Python heap of tuples), from medians of several runs with
gc.collect() before each timed section; the plain loop's own time is subtracted.

--interp pico: ticketq's Raspberry Pi Pico firmware (ticketq firmware rp2, or
$TICKETQ_PICO_FIRMWARE) in rp2040js (tools/pico/run.mjs --host=quiet) over mpremote, as the QEMU
targets, plus push and pop timed apart, bytes per pair under heap_lock, free RAM and the
largest queue beside the frozen worker, in emulated RP2040 cycles (ticketq_tools/bench/pico.py);
`--splice --interp pico` puts its run into results.json, its section into BENCHMARKS.md and
its rows into docs/speed.md, the rest as it was. --interp pico-c: the same on the Pico
firmware with ticketq's C core built in (tools/firmware rp2 --user-c-module c/micropython.cmake,
or $TICKETQ_PICO_C_FIRMWARE): the C path, the viper and bytecode classes and heapq in one run.
"""
import argparse
import json
import os
import subprocess
import sys
import time


# The code is the package ticketq_tools.bench (tools/ticketq_tools/bench/), one module a job:
# plans (the steps), drivers (running them), analysis (figures), report (BENCHMARKS.md and the
# tables spliced into docs), plots. This file is its command line, and keeps the names that
# the tests and tools/bench/fleet.py read from it.
sys.path[0:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from ticketq_tools.bench.common import HERE, MICROPYTHONS, NAMES, ORDER, PICOS, QEMU, QEMU_C, ROOT, TITLES  # noqa: E402,F401
from ticketq_tools.bench.plans import MICROBIT_HAS, config, host_plan, microbit_plan  # noqa: E402,F401
from ticketq_tools.bench.drivers import RunError, collect, run_host, run_microbit  # noqa: E402,F401
from ticketq_tools.bench.analysis import analyse, fatal  # noqa: E402,F401
from ticketq_tools.bench.report import CCORE_BEGIN, CCORE_END, CCORE_INTERPS, ccore_rows, ccore_section, ccore_splice, ISA_BEGIN, ISA_END, PICO_BEGIN, PICO_C_BEGIN, PICO_C_END, PICO_END, SPEED_DOC, isa_rows, isa_section, isa_splice, machine_info, pico_section, pico_splice, raw_runs, report, speed_block, update_speed_doc  # noqa: E402,F401
from ticketq_tools.bench.plans import pico_plan  # noqa: E402,F401
from ticketq_tools.bench.pico import run_pico  # noqa: E402,F401
from ticketq_tools.bench.plots import ensure_matplotlib, plot, plot_memory  # noqa: E402,F401


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="seconds-long smoke run (into build/bench/)")
    p.add_argument("--interp", default=",".join(ORDER),
                   help="comma list of %s (default: all)" % ", ".join(ORDER))
    p.add_argument("--out", help="folder for BENCHMARKS.md, the plot and results.json "
                   "(default: the repository (BENCHMARKS.md, docs/bench.png, tools/bench/results.json); "
                   "with --quick: build/bench/)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--splice", action="store_true",
                   help="run the QEMU targets only (or those of --interp: QEMU targets, unix-c, pico, pico-c), put their runs into the committed "
                        "tools/bench/results.json and their table into BENCHMARKS.md; the rest stays as it is "
                        "(as the fleet tier's figures are spliced in from their own run)")
    p.add_argument("--pico-host", choices=("quiet", "stock"), default="quiet",
                   help="the emulated Pico's USB host (tools/pico/run.mjs --host): quiet NAKs while it has "
                        "nothing to send, as a real host; stock is rp2040js's, which keeps the USB busy")
    args = p.parse_args(argv)
    if args.splice:
        return splice_main(args)
    interps = [i.strip() for i in args.interp.split(",") if i.strip()]
    for i in interps:
        if i not in TITLES:
            p.error("unknown interpreter %r" % i)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    out = args.out or (os.path.join(ROOT, "build", "bench") if args.quick else None)
    if out:
        md_path = os.path.join(out, "BENCHMARKS.md")
        plot_path = os.path.join(out, "bench.png")
        json_path = os.path.join(out, "results.json")
        plot_rel = "bench.png"
    else:
        md_path = os.path.join(ROOT, "BENCHMARKS.md")
        plot_path = os.path.join(ROOT, "docs", "bench.png")
        json_path = os.path.join(HERE, "results.json")
        plot_rel = "docs/bench.png"

    info = machine_info()
    runs = {}
    failed = False
    for interp in interps:
        c = config(interp, args.quick)
        t0 = time.time()
        log("== %s" % TITLES[interp])
        try:
            if interp == "microbit":
                results = run_microbit(microbit_plan(c), log)
            elif interp in PICOS:
                results = run_pico(pico_plan(c), 3600, args.pico_host, log, cmod=interp == "pico-c")
            else:
                results = run_host(interp, host_plan(interp, c), timeout=1800)
        except (RunError, subprocess.TimeoutExpired, OSError) as e:
            log("   not run: %s" % e)
            runs[interp] = {"c": c, "error": str(e)}
            failed = True
            continue
        R = collect(interp, c, results)
        A = analyse(interp, c, R)
        runs[interp] = {"c": c, "R": R, "A": A}
        log("   %.0f s, %d steps, %d errors" % (time.time() - t0, len(results), len(R["errors"])))
        for e in R["errors"][:5]:
            log("   error: %s" % e)
        if fatal(R):  # a stage that did not measure what it set out to fails the run
            log("   FAILED: %d errors besides a baseline running out of heap" % len(fatal(R)))
            failed = True

    made_plot = False
    if not args.no_plot and ensure_matplotlib(log):
        os.makedirs(os.path.dirname(plot_path), exist_ok=True)
        plot(runs, plot_path)
        plot_memory(runs, plot_path.replace("bench.png", "bench-memory.png"))
        made_plot = True
    notes_path = os.path.join(HERE, "notes.md")
    notes = open(notes_path).read() if os.path.exists(notes_path) and not args.quick else ""
    md = report(runs, info, plot_rel if made_plot else None, args.quick, notes)
    os.makedirs(os.path.dirname(md_path), exist_ok=True)
    with open(md_path, "w") as f:
        f.write(md)
    raw = {"machine": info, "quick": args.quick, "runs": raw_runs(runs)}
    with open(json_path, "w") as f:
        json.dump(raw, f, indent=1, sort_keys=True)
        f.write("\n")
    if not out and set(interps) == set(ORDER):  # a full run into the repository
        update_speed_doc(raw)
        log("updated the generated table of %s" % SPEED_DOC)
    log("wrote %s%s, %s" % (md_path, ", %s, %s" % (plot_path, plot_path.replace("bench.png", "bench-memory.png"))
                                     if made_plot else "", json_path))
    print(md)
    return 1 if failed else 0


def splice_main(args):
    """--splice: the QEMU targets' runs into the committed results.json and BENCHMARKS.md."""
    given = [i.strip() for i in args.interp.split(",") if i.strip()]
    spliced = tuple(QEMU) + PICOS + ("unix-c",)
    interps = [i for i in given if i in spliced] if given != list(ORDER) else list(QEMU)
    if not interps:
        print("--splice: give QEMU targets, unix-c or pico (%s)" % ", ".join(spliced), file=sys.stderr)
        return 2
    runs, failed = {}, False
    for interp in interps:
        c = config(interp, args.quick)
        t0 = time.time()
        print("== %s" % TITLES[interp], file=sys.stderr, flush=True)
        try:
            if interp in PICOS:
                results = run_pico(pico_plan(c), 3600, args.pico_host,
                                   lambda m: print(m, file=sys.stderr, flush=True), cmod=interp == "pico-c")
            else:
                results = run_host(interp, host_plan(interp, c), timeout=1800)
        except (RunError, subprocess.TimeoutExpired, OSError) as e:
            print("   not run: %s" % e, file=sys.stderr)
            runs[interp] = {"c": c, "error": str(e)}
            failed = True
            continue
        R = collect(interp, c, results)
        runs[interp] = {"c": c, "R": R, "A": analyse(interp, c, R)}
        print("   %.0f s, %d steps, %d errors" % (time.time() - t0, len(results), len(R["errors"])),
              file=sys.stderr, flush=True)
        failed |= bool(fatal(R))
    out = args.out or (os.path.join(ROOT, "build", "bench") if args.quick else None)
    json_path = os.path.join(out, "results.json") if out else os.path.join(HERE, "results.json")
    md_path = os.path.join(out, "BENCHMARKS.md") if out else os.path.join(ROOT, "BENCHMARKS.md")
    committed = os.path.join(HERE, "results.json")
    raw = json.load(open(committed)) if os.path.exists(committed) else {"machine": machine_info(), "runs": {}}
    raw["runs"].update(json.loads(json.dumps(raw_runs(runs))))
    md = open(os.path.join(ROOT, "BENCHMARKS.md")).read()
    md = isa_splice(md, raw["runs"])
    if set(CCORE_INTERPS) & set(interps):
        md = ccore_splice(md, raw["runs"])
    for interp in PICOS:
        if interp in interps:
            md = pico_splice(md, raw["runs"], interp)
    if out:
        os.makedirs(out, exist_ok=True)
    with open(json_path, "w") as f:
        json.dump(raw, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(md_path, "w") as f:
        f.write(md)
    if set(PICOS) & set(interps) and not out:  # docs/speed.md's table gets the Pico's rows
        update_speed_doc(raw)
    print("\n".join(isa_section(raw["runs"]) + ccore_section(raw["runs"]) + sum((pico_section(raw["runs"], i) for i in PICOS if i in interps), [])))
    print("wrote %s, %s" % (md_path, json_path), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
