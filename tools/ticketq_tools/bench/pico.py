"""The benchmark on the emulated Raspberry Pi Pico (issue 32): ticketq's RP2040 firmware in
rp2040js, driven by mpremote over a pseudo-terminal, as tools/mcu.py drives the QEMU targets.

What it needs, each found at run time (none of it is in the repository):
  firmware  $TICKETQ_PICO_FIRMWARE (a firmware.bin, or a folder holding one), else
            `ticketq firmware rp2`'s build (ticketq_tools.rp2.build, cached; built if needed)
  rp2040js  $TICKETQ_RP2040JS (the package folder), else tools/pico/node_modules/rp2040js
            (tools/setup installs it)
  bootrom   $TICKETQ_RP2_BOOTROM, else ../shared/rp2/emu/bootrom.mjs beside the checkout
The emulator is the tests' (ticketq_tools.pico.Pico: tools/pico/run.mjs on a pty), run with
--host=quiet: a USB host that NAKs while it has nothing to send, as a real one does
(run.mjs says why and what rp2040js's stock host costs).

Time on the emulated chip: the firmware's time.ticks_us() is rp2040js's simulated clock,
which advances 8 ns (one cycle at 125 MHz) for every cycle its core model charges an
executed instruction, so cycles = microseconds x 125 (to 125 cycles: the tick is 1 us).
rp2040js's own `core.cycles` also counts 8 cycles for each hardware-divider operation that
the clock does not advance for (the SDK's divider code already waits for the result with
instructions); the figures here are the clock's.
"""
import json
import os
import shutil
import tempfile
import time

from ticketq_tools.bench.common import HERE, ROOT

from ticketq_tools.pico import Pico, PicoError, check_setup

CYCLES_PER_US = 125  # the RP2040's 125 MHz, the clock rp2040js simulates


C_MODULE = os.path.join(ROOT, "c", "micropython.cmake")  # ticketq's C core as a user C module


def firmware(log=None, cmod=False):
    """(path of firmware.bin, what it is): $TICKETQ_PICO_FIRMWARE, else ticketq firmware rp2's.
    cmod: the firmware with the C core built in ($TICKETQ_PICO_C_FIRMWARE, else ticketq firmware
    rp2 --user-c-module c/micropython.cmake)."""
    var = "TICKETQ_PICO_C_FIRMWARE" if cmod else "TICKETQ_PICO_FIRMWARE"
    env = os.environ.get(var)
    if env:
        path = os.path.join(env, "firmware.bin") if os.path.isdir(env) else env
        if not os.path.isfile(path):
            raise PicoError("%s=%s: no firmware.bin there" % (var, env))
        info = {}
        beside = os.path.join(os.path.dirname(path), "info.json")  # a ticketq firmware rp2 build's
        if os.path.isfile(beside):
            with open(beside) as f:
                info = json.load(f)
        info.update({"from": "$" + var + (" (a ticketq firmware rp2 build)" if info else ""),
                     "sha256_bin": _sha(path)})
        return path, info
    try:
        from ticketq_tools import rp2
    except ImportError:
        raise PicoError("no Pico firmware: set TICKETQ_PICO_FIRMWARE to a firmware.bin built as "
                        "../shared/rp2/README.md says (this checkout has no ticketq firmware rp2)")
    try:
        paths, info, cached = rp2.build("rp2", viper=True, user_c_modules=(C_MODULE,) if cmod else (),
                                        log=log or (lambda m: None))
    except rp2.BuildError as e:
        raise PicoError("ticketq firmware rp2: %s" % e)
    info = dict(info, **{"from": "ticketq firmware rp2" + (" --user-c-module c/micropython.cmake" if cmod else "")
                         + (" (cached)" if cached else "")})
    return paths["bin"], info


def _sha(path):
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def built_firmware():
    """The firmware.bin to run, without building anything: $TICKETQ_PICO_FIRMWARE, else
    ticketq firmware rp2's build when it is in its cache; None when there is none."""
    env = os.environ.get("TICKETQ_PICO_FIRMWARE")
    if env:
        path = os.path.join(env, "firmware.bin") if os.path.isdir(env) else env
        return path if os.path.isfile(path) else None
    try:
        from ticketq_tools import rp2

        if not os.path.isfile(os.path.join(rp2.CACHE, "src-" + rp2.source_key(), ".ready")):
            return None  # the sources are not even unpacked: nothing built
        key = rp2.firmware_key("rp2", True, (), rp2.epoch())
        path = os.path.join(rp2.out_dir("rp2", True, key), "firmware.bin")
    except Exception:  # no ticketq firmware rp2 here, or one whose cache is laid out otherwise
        return None
    return path if os.path.isfile(path) else None


def available():
    """None when the emulated Pico can run here, else why not (for tests that skip)."""
    try:
        check_setup()  # node, rp2040js, the bootrom
        if not os.environ.get("TICKETQ_PICO_FIRMWARE"):
            try:
                from ticketq_tools import rp2  # noqa: F401
            except ImportError:
                return "no Pico firmware (TICKETQ_PICO_FIRMWARE unset, no ticketq firmware rp2)"
    except PicoError as e:
        return str(e)
    return None


def run_pico(phases, timeout, host="quiet", log=None, cmod=False):
    """Run the plan's phases on one emulated Pico, each phase one mpremote command (so each
    starts from a soft reset: a fresh heap): ("exec", code, tag) runs code alone and keeps
    its last printed line under tag; ("steps", steps) runs steps (tools/bench's snippets)
    with tqbench.py and mp_worker.py over `mpremote mount`. [(step, ok, text)], with the
    firmware's description as the step ("x", "", ("fw",)). cmod: on the firmware with the C
    core built in (--interp pico-c)."""
    from ticketq_tools import mcu
    from ticketq_tools.bench.drivers import RunError, frames

    say = log or (lambda m: None)
    try:
        fw, info = firmware(say, cmod)
    except PicoError as e:
        raise RunError(str(e))
    out = [(("x", "", ("fw",)), True, repr(json.dumps(info, sort_keys=True)))]
    t0 = time.time()
    try:
        # niced below mpremote, which must answer a mount's requests in time (as tools/mcu.py's
        # QEMU); idle board time passes at host speed with the quiet host (run.mjs), busy time
        # as fast as the host runs it: niceness changes how long a run takes, not its figures
        with Pico(fw, host=host).start(timeout=90.0, nice=5) as emu, tempfile.TemporaryDirectory(prefix="tq-bench-pico-") as tmp:
            for fn in ("tqbench.py", "mp_worker.py"):
                shutil.copyfile(os.path.join(HERE, fn), os.path.join(tmp, fn))
            for ph in phases:
                left = timeout - (time.time() - t0)
                if ph[0] == "exec":
                    code, lines = mcu.mpremote(emu.url, "exec", ph[1], timeout=left)
                    text = "\n".join(lines)
                    ok = code == 0 and "Traceback" not in text
                    out.append((("x", ph[1], ph[2]), ok, text))
                    say("   %s: %s" % (ph[2][0], lines[-1][:100] if lines else "(nothing)"))
                else:
                    steps = ph[1]
                    with open(os.path.join(tmp, "steps.json"), "w") as f:
                        json.dump([s[1] for s in steps], f)
                    seen = {"step": 0, "at": time.time()}

                    def progress(line):  # "\x02N" opens step N: a line every 30 s
                        if line.startswith("\x02") and line[1:].isdigit():
                            seen["step"] = int(line[1:])
                            if time.time() - seen["at"] >= 30:
                                seen["at"] = time.time()
                                say("   %d/%d steps, %.0f s" % (seen["step"], len(steps), time.time() - t0))

                    code, lines = mcu.mpremote(emu.url, "mount", tmp, "exec",
                                               "import json, mp_worker\nmp_worker.run(json.load(open('steps.json')))",
                                               timeout=left, stdout=progress)
                    if code != 0:
                        raise RunError("mpremote exited %s: %s" % (code, " | ".join(lines[-3:])))
                    out += frames("\n".join(lines), steps, "the emulated Pico")
            emu.stop()
            if emu.summary:
                out.append((("x", "", ("emu",)), True, repr(emu.summary)))
    except PicoError as e:
        raise RunError(str(e))
    return out
