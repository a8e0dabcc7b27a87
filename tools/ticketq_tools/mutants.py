#!/usr/bin/env python3
"""Mutation testing of ticketq's tests, run on demand (not part of tools/test's timed run).

    ticketq mutants                  # everything: curated mutants, then cosmic-ray
    ticketq mutants --curated        # only the curated list (a few minutes)
    ticketq mutants --tool           # only cosmic-ray on the Python modules
    ticketq mutants --area fleet     # one area (repeatable): queue viper ticks resp fleet
    ticketq mutants --check          # the curated list still applies (each old once)

Two kinds of mutants, both applied one at a time to a scratch copy of the working tree
(never to it), each followed by its area's test stages (tools/mutants.json: pytest on
CPython, ticketq mpunix on the unix port, its bytecode path, the WebAssembly VM); a
mutant is killed when a stage fails or runs past --timeout, and survives when all pass:

- curated (tools/mutants.json, "curated"): hand-made mutants of what no tool mutates here,
  the fleet's Lua (fleet/*.lua) and the viper code (lib/ticketq/viper.py, which only the
  unix port runs), and the seven that issue 26 found surviving;
- cosmic-ray (pinned in tools/mutation-requirements.txt, installed on first use into
  build/mutation-venv, apart from .venv): its operators on the Python modules each area
  lists under "tool", with the test stages of that area as its test command. Of its binary
  and comparison operator replacements only the natural ones are kept (+ to -, << to >>,
  < to <=, == to !=, ...): replacing each operator by every other one gives ten times the
  mutants and few that a reviewer would call a realistic slip.

Prints one line per mutant (KILLED / SURVIVED, file, what), then the score per area:
killed / mutants, leaving out the curated survivors listed with the reason they are
equivalent (EQUIV: no test can tell them from the original).
Exit 0 when it ran (survivors are a result, not an error); 1 when a baseline run (no
mutant) fails, since then every mutant would count as killed; 2 for a list that does not
apply. docs/testing.md has the last full run's score and its survivors, with the reason
each is equivalent or accepted.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/, this package's parent
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, "mutants.json")
REQS = os.path.join(HERE, "mutation-requirements.txt")
CR_VENV = os.path.join(ROOT, "build", "mutation-venv")

# cosmic-ray's operators that are left out (regular expressions over its operator names):
# every binary and comparison replacement but the natural one of each operator.
KEEP_BIN = "Add_Sub|Sub_Add|Mult_Add|Mul_Add|FloorDiv_Mult|FloorDiv_Mul|Mod_FloorDiv|LShift_RShift|RShift_LShift|BitAnd_BitOr|BitOr_BitAnd|BitXor_BitOr|Pow_Mult|Pow_Mul"
KEEP_CMP = "Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|Lt_GtE|GtE_Lt|Gt_LtE|LtE_Gt|Eq_NotEq|NotEq_Eq|Is_IsNot|IsNot_Is|In_NotIn|NotIn_In"
EXCLUDE = ["core/ReplaceBinaryOperator_(?!(%s)$).*" % KEEP_BIN,
           "core/ReplaceComparisonOperator_(?!(%s)$).*" % KEEP_CMP]


def load():
    with open(DATA) as f:
        return json.load(f)


def check(data, root=ROOT):
    """Problems with the curated list: each `old` must occur exactly once in its file, and
    differ from `new`; each mutant names a known area and a reason. [] when it applies."""
    bad = []
    for i, m in enumerate(data["curated"]):
        where = "mutant %d (%s)" % (i, m.get("why", "?"))
        if m.get("area") not in data["areas"]:
            bad.append("%s: unknown area %r" % (where, m.get("area")))
        if not m.get("why"):
            bad.append("%s: no reason" % where)
        if m["old"] == m["new"]:
            bad.append("%s: old == new" % where)
        path = os.path.join(root, m["file"])
        if not os.path.isfile(path):
            bad.append("%s: no file %s" % (where, m["file"]))
            continue
        with open(path) as f:
            n = f.read().count(m["old"])
        if n != 1:
            bad.append("%s: old found %d times in %s, not once" % (where, n, m["file"]))
    for name, a in data["areas"].items():
        for f in a.get("tool", []):
            if not os.path.isfile(os.path.join(root, f)):
                bad.append("area %s: no module %s" % (name, f))
        for stage, mods in a["stages"].items():
            for mod in mods:
                if not os.path.isfile(os.path.join(root, "tests", mod + ".py")):
                    bad.append("area %s: no test module %s" % (name, mod))
    return bad


def micropython():
    sys.path.insert(0, HERE)
    from ticketq_tools import mpunix

    return mpunix.find()[0]


def stage_cmds(area, root):
    # The commands of an area's stages, in order (fastest to fail first: CPython).
    py = os.path.join(ROOT, ".venv", "bin", "python")
    out = []  # (stage, command)
    for stage in ("pytest", "unix", "unix-bytecode", "vm"):
        mods = area["stages"].get(stage)
        if not mods:
            continue
        if stage == "pytest":
            cmd = [py, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"] + ["tests/%s.py" % m for m in mods]
        elif stage == "vm":
            cmd = ["node", "tools/mpvm/run.mjs"] + mods
        else:
            cmd = [py, "ticketq mpunix"] + (["--bytecode"] if stage == "unix-bytecode" else []) + mods
        out.append((stage, cmd))
    return out


def scratch():
    # A copy of the working tree as it is (tracked and new files, not ignored ones), with
    # .venv and the VM's node_modules linked, and no compiled Python caches anywhere.
    d = tempfile.mkdtemp(prefix="ticketq-mutants-")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for f in files:
        if not f or not os.path.isfile(os.path.join(ROOT, f)):
            continue
        os.makedirs(os.path.join(d, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(d, f))
    os.symlink(os.path.join(ROOT, ".venv"), os.path.join(d, ".venv"))
    nm = os.path.join(ROOT, "tools", "mpvm", "node_modules")
    if os.path.isdir(nm):
        os.symlink(nm, os.path.join(d, "tools", "mpvm", "node_modules"))
    return d


def env_for():
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # a mutant the size of its source
    mp = micropython()  # (same mtime second) must never run from a stale .pyc
    if mp:
        env["MICROPYTHON"] = mp  # the scratch copy has no ../shared beside it
    return env


LOGS = os.path.join(ROOT, "build", "mutants")  # each curated mutant's test output


def run_stages(cmds, root, env, timeout, every=False, logpath=None):
    # "pass", or what failed: "fail: <stage>" / "timeout: <stage>", the first one (every:
    # all of them, each stage run). Each stage runs in its own process group, killed whole
    # at the timeout: a hung pytest takes the redis-server it started with it.
    end = time.monotonic() + timeout
    out = []
    for stage, cmd in cmds:
        left = end - time.monotonic()
        if left <= 0:
            out.append("timeout: " + stage)
            break
        out_f = open(logpath, "a") if logpath else subprocess.DEVNULL
        if logpath:
            out_f.write("== %s: %s\n" % (stage, " ".join(cmd)))
            out_f.flush()
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out_f, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            rc = proc.wait(left)
        except subprocess.TimeoutExpired:
            rc = None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # what the stage left behind, if anything
            except OSError:
                pass
            proc.wait()
            if logpath:
                out_f.close()
        if rc is None:
            out.append("timeout: " + stage)
            break
        if rc:
            out.append("fail: " + stage)
            if not every:
                break
    return ", ".join(out) or "pass"


def curated(data, areas, root, env, timeout, log, every=False):
    scores = {}
    for name in areas:
        ms = [m for m in data["curated"] if m["area"] == name]
        if not ms:
            continue
        cmds = stage_cmds(data["areas"][name], root)
        base = run_stages(cmds, root, env, timeout * 4)
        if base != "pass":
            log("BASELINE %s: %s (no mutant applied): fix the tests first" % (name, base))
            return None
        k = n = 0  # killed; mutants that count (a survivor listed as equivalent does not)
        for m in ms:
            path = os.path.join(root, m["file"])
            with open(path) as f:
                src = f.read()
            if src.count(m["old"]) != 1:
                log("NOT APPLIED %s: %s" % (m["file"], m["why"]))
                continue
            with open(path, "w") as f:
                f.write(src.replace(m["old"], m["new"]))
            t = time.monotonic()
            logpath = os.path.join(LOGS, "%s-%d.log" % (name, data["curated"].index(m)))
            os.makedirs(LOGS, exist_ok=True)
            with open(logpath, "w") as f:
                f.write("%s: %s\n" % (m["file"], m["why"]))
            try:
                res = run_stages(cmds, root, env, timeout, every, logpath)
            finally:
                with open(path, "w") as f:
                    f.write(src)
            killed = res != "pass"
            eq = m.get("equivalent")
            k += killed
            n += not (eq and not killed)
            word = "KILLED" if killed else "EQUIV" if eq else "SURVIVED"
            log("%-8s %-5s %-26s %5.1fs  %s%s" % (word, name, m["file"], time.monotonic() - t, m["why"],
                                                 "  [%s: %s]" % (res, os.path.relpath(logpath, ROOT)) if killed
                                                 else "  (%s)" % eq if eq else ""))
            if killed and eq:
                log("         ^ listed as equivalent but killed: fix tools/mutants.json")
        scores[name] = (k, n)
    return scores


def cr_env():
    # cosmic-ray in its own venv (build/mutation-venv), pinned; installed on first use.
    py = os.path.join(CR_VENV, "bin", "python")
    stamp = os.path.join(CR_VENV, ".installed")
    with open(REQS) as f:
        want = f.read()
    have = open(stamp).read() if os.path.isfile(stamp) else None
    if have != want:
        if not os.path.isfile(py):
            subprocess.run([sys.executable, "-m", "venv", CR_VENV], check=True)
        subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", REQS],
                       check=True)
        with open(stamp, "w") as f:
            f.write(want)
    return os.path.join(CR_VENV, "bin")


# Run by the cosmic-ray venv's python: keeps 1 pending mutant in `every`, the same ones on
# every run (ordered by file, position, operator, occurrence), marking the others skipped as
# cosmic-ray's own filters do (WorkDB.set_result with a SKIPPED outcome).
SAMPLE = """
import sys
from cosmic_ray.work_db import use_db, WorkDB
from cosmic_ray.work_item import WorkResult, WorkerOutcome
every = int(sys.argv[2])
with use_db(sys.argv[1], WorkDB.Mode.open) as db:
    items = sorted(db.pending_work_items, key=lambda w: [(m.module_path, tuple(m.start_pos), m.operator_name,
                                                          m.occurrence) for m in w.mutations])
    out = [w.job_id for i, w in enumerate(items) if i % every]
    for j in out:
        db.set_result(j, WorkResult(output="sampled out", worker_outcome=WorkerOutcome.SKIPPED))
"""


def toml_str(s):
    return json.dumps(s)  # a JSON string is a TOML basic string


def tool(data, areas, root, env, timeout, log, sample=1):
    bindir = cr_env()
    scores = {}
    for name in areas:
        a = data["areas"][name]
        if not a.get("tool"):
            continue
        # the test command: this script's own stage runner (process groups, its timeout)
        test = "%s -m ticketq_tools.mutants --run-stages %s --timeout %s" % (
            os.path.join(ROOT, ".venv", "bin", "python"), name, timeout)
        cfg = os.path.join(root, "build", "cr-%s.toml" % name)
        db = os.path.join(root, "build", "cr-%s.sqlite" % name)
        os.makedirs(os.path.dirname(cfg), exist_ok=True)
        with open(cfg, "w") as f:
            f.write("[cosmic-ray]\nmodule-path = [%s]\ntimeout = %s\nexcluded-modules = []\n"
                    "test-command = %s\n\n[cosmic-ray.distributor]\nname = \"local\"\n\n"
                    "[cosmic-ray.filters.operators-filter]\nexclude-operators = [%s]\n"
                    % (", ".join(toml_str(m) for m in a["tool"]), float(timeout + 60), toml_str(test),
                       ", ".join(toml_str(e) for e in EXCLUDE)))
        cr = os.path.join(bindir, "cosmic-ray")
        subprocess.run([cr, "init", cfg, db], cwd=root, env=env, check=True, capture_output=True)
        subprocess.run([os.path.join(bindir, "cr-filter-operators"), db, cfg], cwd=root, env=env,
                       check=True, capture_output=True)
        if sample > 1:
            subprocess.run([os.path.join(bindir, "python"), "-c", SAMPLE, db, str(sample)], cwd=root, env=env,
                           check=True)
        r = subprocess.run([cr, "baseline", cfg], cwd=root, env=env, capture_output=True, text=True)
        if r.returncode:
            log("BASELINE %s (cosmic-ray): the tests fail with no mutant: %s" % (name, r.stdout[-500:] + r.stderr[-500:]))
            return None
        t = time.monotonic()
        subprocess.run([cr, "exec", cfg, db], cwd=root, env=env, check=True, capture_output=True)
        dump = subprocess.run([cr, "dump", db], cwd=root, env=env, check=True, capture_output=True,
                              text=True).stdout
        k = n = 0
        for line in dump.splitlines():
            item, result = json.loads(line)
            if result is None or result.get("worker_outcome") == "skipped":
                continue
            n += 1
            killed = result.get("test_outcome") != "survived"
            k += killed
            if not killed:
                change = [x[1:].strip() for x in (result.get("diff") or "").splitlines()
                          if x[:1] in "+-" and x[:3] not in ("+++", "---") and x[1:].strip()]
                for mu in item["mutations"]:
                    log("SURVIVED %-5s %s:%s %s: %s" % (name, mu["module_path"], mu["start_pos"][0],
                                                        mu["operator_name"][5:], "  ->  ".join(change)))
        log("cosmic-ray %s: %d mutants in %.0f s%s" % (name, n, time.monotonic() - t,
                                                       " (1 in %d of them)" % sample if sample > 1 else ""))
        scores[name] = (k, n)
    return scores


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--area", action="append", help="only this area (repeatable)")
    p.add_argument("--curated", action="store_true", help="only the curated mutants")
    p.add_argument("--tool", action="store_true", help="only cosmic-ray's mutants of the Python modules")
    p.add_argument("--sample", type=int, default=1, metavar="K",
                   help="cosmic-ray: run 1 mutant in K (the same ones every run; default 1: all)")
    p.add_argument("--check", action="store_true", help="check that the curated list applies, run nothing")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds a mutant's stages may take (default 120)")
    p.add_argument("--every-stage", action="store_true",
                   help="curated: run every stage of a mutant's area, not only up to the first that fails")
    p.add_argument("--keep", action="store_true", help="keep the scratch copy (its path is printed)")
    p.add_argument("--run-stages", metavar="AREA", help=argparse.SUPPRESS)  # cosmic-ray's test command
    a = p.parse_args(argv)
    data = load()
    if a.run_stages:  # in the scratch copy (the cwd), with a mutant applied: 0 pass, 1 fail/timeout
        res = run_stages(stage_cmds(data["areas"][a.run_stages], os.getcwd()), os.getcwd(), os.environ,
                         a.timeout)
        print(res)
        return 0 if res == "pass" else 1
    bad = check(data)
    for b in bad:
        print("mutants.json: " + b)
    if bad:
        return 2
    if a.check:
        print("%d curated mutants apply cleanly" % len(data["curated"]))
        return 0
    areas = a.area or list(data["areas"])
    for x in areas:
        if x not in data["areas"]:
            p.error("no area %r (areas: %s)" % (x, " ".join(data["areas"])))

    def log(s):
        print(s, flush=True)

    root = scratch()
    env = env_for()
    log("scratch copy: %s" % root)
    scores = {}
    try:
        if not a.tool:
            s = curated(data, areas, root, env, a.timeout, log, a.every_stage)
            if s is None:
                return 1
            scores.update(("%s (curated)" % k, v) for k, v in s.items())
        if not a.curated:
            s = tool(data, areas, root, env, a.timeout, log, a.sample)
            if s is None:
                return 1
            scores.update(("%s (cosmic-ray)" % k, v) for k, v in s.items())
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    log("== score: killed / mutants, per area")
    tk = tn = 0
    for k in sorted(scores):
        kk, n = scores[k]
        tk += kk
        tn += n
        log("%-22s %4d / %-4d %5.1f%%" % (k, kk, n, 100.0 * kk / n if n else 0))
    log("%-22s %4d / %-4d %5.1f%%" % ("all", tk, tn, 100.0 * tk / tn if tn else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
