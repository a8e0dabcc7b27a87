"""The four drivers that run a plan's snippets in one namespace and bring each one's printed
output back: CPython (tools/bench/cpy_worker.py), the WebAssembly VM (tools/bench/vm.mjs), the
unix port (tools/bench/mp_worker.py), QEMU firmware over mpremote mount, the emulated micro:bit
(ticketq_tools.emu); collect() runs one interpreter's plan into its results.
"""
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time

from ticketq_tools.bench.common import HERE, QEMU, QEMU_C, ROOT


class RunError(RuntimeError):
    pass


def batch(cmd, steps, timeout, **kw):
    """Runs a worker on a JSON list of snippets like subprocess.run(capture_output=True):
    the worker writes "progress N" on stderr before step N; every 15 s this prints a line
    "   N/M steps, S s": N steps done of M, S seconds into the batch (long batches showed
    nothing for minutes). The progress lines are left out of the returned stderr."""
    import threading

    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)
    got = {"step": 0, "err": [], "out": ""}

    def read_err():
        for line in proc.stderr:
            if line.startswith("progress "):
                got["step"] = int(line.split()[1])  # steps done so far
            else:
                got["err"].append(line)

    def read_out():
        got["out"] = proc.stdout.read()

    readers = [threading.Thread(target=read_err, daemon=True), threading.Thread(target=read_out, daemon=True)]
    for t in readers:
        t.start()
    try:
        proc.stdin.write(json.dumps([s[1] for s in steps]))
        proc.stdin.close()
    except BrokenPipeError:
        pass
    t0 = time.time()
    last = t0
    while proc.poll() is None:
        time.sleep(0.2)
        now = time.time()
        if now - t0 > timeout:
            proc.kill()
            proc.wait()
            raise subprocess.TimeoutExpired(cmd, timeout)
        if now - last >= 15:
            last = now
            print("   %d/%d steps, %.0f s" % (got["step"], len(steps), now - t0), file=sys.stderr, flush=True)
    for t in readers:
        t.join(10)
    return subprocess.CompletedProcess(cmd, proc.returncode, got["out"], "".join(got["err"]))


def run_unix(steps, timeout, natmod=False):
    """Run the "x" steps on the MicroPython unix port in one batch; [(step, ok, text)].
    natmod: with the C core's x86 .mpy on the path (ticketq firmware natmod x86, cached)."""
    from ticketq_tools import mpunix

    exe, how = mpunix.find()
    if exe is None:
        raise RunError("no MicroPython unix port: %s" % how)
    extra = []
    if natmod:
        from ticketq_tools import ccore
        try:
            extra = [os.path.dirname(ccore.build("x86", log=lambda m: print("   " + m, file=sys.stderr, flush=True)))]
        except (ccore.NatmodError, ccore.mpsource.McuError) as e:
            raise RunError("no C core: %s" % e)
    env = dict(os.environ, MICROPYPATH=":".join([".frozen", os.path.join(ROOT, "lib"), HERE] + extra))
    p = batch([exe, os.path.join(HERE, "mp_worker.py")], steps, timeout, cwd=ROOT, env=env)
    if p.returncode:
        raise RunError("%s exited %d: %s" % (exe, p.returncode, (p.stderr or p.stdout).strip()[-800:]))
    out = {}
    for part in p.stdout.split("\x02")[1:]:
        head, _, rest = part.partition("\n")
        text, _, status = rest.rpartition("\x03")
        out[int(head)] = (status.startswith("ok"), text if status.startswith("ok") else text + status[4:])
    if len(out) != len(steps):
        raise RunError("the unix port answered %d of %d steps" % (len(out), len(steps)))
    return [(s, out[i][0], out[i][1]) for i, s in enumerate(steps)]


def frames(text, steps, where):
    """mp_worker's framed output -> [(step, ok, text)]."""
    out = {}
    for part in text.split("\x02")[1:]:
        head, _, rest = part.partition("\n")
        body, _, status = rest.rpartition("\x03")
        try:
            out[int(head)] = (status.startswith("ok"), body if status.startswith("ok") else body + status[4:])
        except ValueError:
            continue
    if len(out) != len(steps):
        raise RunError("%s answered %d of %d steps" % (where, len(out), len(steps)))
    return [(s, out[i][0], out[i][1]) for i, s in enumerate(steps)]


def run_qemu(interp, steps, timeout):
    """Run the "x" steps on MicroPython's QEMU firmware for a target of ticketq mcu
    (built there, cached; ticketq frozen with viper=True), in one batch: tqbench.py,
    mp_worker.py and the steps (steps.json) over `mpremote mount`."""
    import tempfile
    from ticketq_tools import mcu

    target = QEMU[interp]
    try:
        elf = mcu.firmware(target, True, log=lambda m: print("   " + m, file=sys.stderr, flush=True),
                           cmod=interp in QEMU_C)
    except mcu.McuError as e:
        raise RunError(str(e))
    with tempfile.TemporaryDirectory(prefix="tq-bench-") as tmp:
        for fn in ("tqbench.py", "mp_worker.py"):
            shutil.copyfile(os.path.join(HERE, fn), os.path.join(tmp, fn))
        with open(os.path.join(tmp, "steps.json"), "w") as f:
            json.dump([s[1] for s in steps], f)
        try:
            with mcu.Qemu(target, elf) as q:
                code, lines = mcu.mpremote(q.url, "mount", tmp, "exec",
                                           "import json, mp_worker\nmp_worker.run(json.load(open('steps.json')))",
                                           timeout=timeout)
        except mcu.McuError as e:
            raise RunError(str(e))
    if code != 0:
        raise RunError("mpremote exited %s: %s" % (code, " | ".join(lines[-3:])))
    return frames("\n".join(lines), steps, "the %s firmware" % target)


def run_host(interp, steps, timeout):
    """Run the "x" steps on CPython or the VM in one batch; [(step, ok, text)]."""
    if interp in ("unix", "unix-c"):
        return run_unix(steps, timeout, natmod=interp == "unix-c")
    if interp in QEMU:
        return run_qemu(interp, steps, timeout)
    if interp == "cpython":
        cmd = [sys.executable, "-B", os.path.join(HERE, "cpy_worker.py")]
    else:
        vm = os.path.join(ROOT, "tools", "mpvm", "node_modules", "@micropython")
        if not os.path.isdir(vm):
            raise RunError("the MicroPython VM is not installed (npm ci --prefix tools/mpvm, "
                           "or tools/setup)")
        if not shutil.which("node"):
            raise RunError("node not found")
        cmd = ["node", os.path.join(HERE, "vm.mjs")]
    p = batch(cmd, steps, timeout, cwd=ROOT)
    if p.returncode:
        raise RunError("%s exited %d: %s" % (cmd[0], p.returncode, p.stderr.strip()[-800:]))
    res = json.loads(p.stdout)
    return [(s, ok, text) for s, (ok, text) in zip(steps, res)]


def run_microbit(steps, log):
    try:
        from ticketq_tools.emu import microbit, connect, put_file, EmuError
        from mpremote.transport import TransportError
    except ImportError as e:
        raise RunError("micro:bit emulator tools missing (%s): run tools/setup" % e)
    out = []
    try:
        with microbit() as url:
            t = connect(url)
            try:
                for s in steps:
                    if s[0] == "put":
                        for attempt in range(3):  # the emulated UART can lose a byte
                            try:
                                put_file(t, s[1], s[2])
                                break
                            except EmuError:
                                if attempt == 2:
                                    raise
                    elif s[0] == "reset":
                        t.close()
                        t = connect(url, soft_reset=True)
                    elif s[0] == "size":
                        out.append((("x", "", ("size", s[1])), True, repr(s[2])))
                    else:
                        try:
                            ret, err = t.exec_raw(s[1], timeout=120)
                        except TransportError as e:
                            # no answer: the board may be wedged, so start again clean (the
                            # steps after this one in the phase then fail with NameError)
                            ret, err = b"", (str(e) or repr(e)).encode()
                            t.close()
                            t = connect(url, soft_reset=True)
                        if not err:
                            out.append((s, True, ret.decode()))
                        else:
                            msg = err.decode(errors="replace").strip().splitlines()
                            out.append((s, False, msg[-1] if msg else "error"))
                            log("  micro:bit: %s -> %s" % (s[1][:60], out[-1][2]))
            finally:
                t.close()
    except EmuError as e:
        raise RunError(str(e))
    return out


# ---------------------------------------------------------------- results

def collect(interp, c, results):
    """The raw outputs, parsed: {"t": {(x, cap, fill): [(none, t), ...]}, ...}."""
    R = {"t": {}, "tpo": {}, "lk": {}, "memerr": set(), "long": {}, "a": {}, "a0": {}, "op": {}, "op0": {}, "opb": {}, "opb0": {},
         "s": {}, "errors": [], "tolerated": [], "misc": {}}
    for step, ok, text in results:
        tag = step[2] if step[0] == "x" else None
        if not tag:
            if not ok:
                R["errors"].append("%s: %s" % (step[1][:60], text.strip().splitlines()[-1:]))
                # the cell's cleanup after a baseline ran out of heap there cannot be parsed
                # either (the next phase starts from a soft reset): the same outcome
                m = re.match(r"S_(\w+)=None$", step[1])
                if m and m.group(1) != "tq" and "MemoryError" in text and \
                        any(k[0] == m.group(1) for k in R["memerr"]):
                    R["tolerated"].append(R["errors"][-1])
            continue
        if not ok:
            R["errors"].append("%r: %s" % (tag, text.strip().splitlines()[-1:]))
            if tag[0] == "t" and "MemoryError" in text:
                R["memerr"].add(tag[1:4])
                if tag[1] != "tq":
                    R["tolerated"].append(R["errors"][-1])
            continue
        lines = [l for l in text.strip().splitlines() if l.strip()]
        try:
            v = ast.literal_eval(lines[-1])
        except (ValueError, SyntaxError, IndexError):
            R["errors"].append("%r: unparsable %r" % (tag, text[-200:]))
            continue
        kind = tag[0]
        if kind == "t":
            if tag[4] > 0:  # rep 0 is the warm-up
                R["t"].setdefault(tag[1:4], []).append(v)
        elif kind == "tpo":  # the emulated Pico: push and pop timed apart
            if tag[4] > 0:
                R["tpo"].setdefault(tag[1:4], []).append(v)
        elif kind in ("lk", "lk0"):
            R["lk"][(kind, tag[1])] = (v[0], v[1], tag[2])
        elif kind == "L":
            if tag[2] > 0:
                R["long"].setdefault(tag[1], []).append(v)
        elif kind in ("a", "a0"):
            R[kind][tag[1]] = v
        elif kind in ("op", "opb"):
            R[kind if tag[2] == 1 else kind + "0"][tag[1]] = (v, tag[3])
        elif kind == "s":
            R["s"][(tag[1], tag[2])] = v
        else:
            R["misc"][tag if len(tag) > 1 else tag[0]] = v
    return R
