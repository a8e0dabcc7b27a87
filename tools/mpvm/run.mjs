#!/usr/bin/env node
// Runs ticketq's test modules on a real MicroPython VM: the official WebAssembly port
// (@micropython/micropython-webassembly-pyscript, pinned in package.json) under Node.js.
//
//   node tools/mpvm/run.mjs [--heap BYTES] [--timeout SECONDS] [--path DIR] MODULE [MODULE ...]
//
// Loads the VM with tools/mpvm/vm.mjs, which copies tests/, lib/ and firmware/ (every *.py)
// and the --path folders into the VM's MEMFS and puts them on sys.path; then runs
// `import mprun; failed = mprun.run([MODULE, ...])` (tests/mprun.py), forwarding the
// VM's output to stdout line by line.
//
// Exit status: 0 no test failed (and at least one ran); 1 a test failed, or mprun's closing
// line "N passed, N failed, N skipped" never came, or it counted no test at all; 2 the VM or this runner errored (an
// exception escaped into runPython, bad arguments, ...); 3 the watchdog fired.
//
// The VM runs in a worker thread: some failures hang the port in a busy loop (an
// exception escaping while micropython.heap_lock() is active, heap_unlock() on an
// unlocked heap followed by an allocation) and block the thread they run on, so the
// main thread keeps the watchdog and terminates the worker.
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { parseArgs as parseArgsUtil } from "node:util";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadVM } from "./vm.mjs";

const CLOSING = /^(\d+) passed, (\d+) failed, (\d+) skipped$/;

const USAGE = `usage: node tools/mpvm/run.mjs [options] MODULE [MODULE ...]
  --heap BYTES       initial MicroPython GC heap (default 1048576; k/m suffix allowed)
  --timeout SECONDS  watchdog for the whole run (default 600); exit 3 when it fires
  --path DIR         also copy DIR/*.py into the VM and put it on sys.path (repeatable)
  --quiet, -q        leave out the PASS and SKIP lines (failures and the closing line stay)
exit: 0 all passed, 1 a test failed, no closing line or no test ran, 2 VM/runner error,
3 timeout`;

function parseSize(s) {
  const m = /^(\d+)([kKmM]?)$/.exec(s || "");
  if (!m) return NaN;
  const mult = { "": 1, k: 1024, m: 1024 * 1024 }[m[2].toLowerCase()];
  return parseInt(m[1], 10) * mult;
}

function parseArgs(argv) {
  const { values, positionals } = parseArgsUtil({
    args: argv,
    allowPositionals: true,
    options: {
      heap: { type: "string", default: "1m" },
      timeout: { type: "string", default: "600" },
      path: { type: "string", multiple: true, default: [] },
      quiet: { type: "boolean", short: "q" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const opts = { heap: parseSize(values.heap), timeout: Number(values.timeout), paths: [], modules: [], quiet: !!values.quiet };
  if (!(opts.heap >= 16 * 1024)) throw new Error("--heap must be an integer >= 16384 (k/m suffix allowed)");
  if (!(opts.timeout > 0)) throw new Error("--timeout must be a positive number of seconds");
  for (const p of values.path) {
    const dir = path.resolve(p);
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`--path: not a directory: ${dir}`);
    opts.paths.push(dir);
  }
  for (const a of positionals) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(a))
      throw new Error(`not a module name: ${a} (give e.g. test_queue, not tests/test_queue.py)`);
    opts.modules.push(a);
  }
  if (!opts.modules.length) throw new Error("no MODULE given");
  return opts;
}

// ---------------------------------------------------------------- main thread
function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`mpvm: ${e.message}\n${USAGE}`);
    process.exit(2);
  }
  const worker = new Worker(fileURLToPath(import.meta.url), {
    workerData: { heap: opts.heap, modules: opts.modules, paths: opts.paths },
    stdout: false,
    stderr: false,
  });

  let closing = null; // the parsed closing line of mprun
  let failed = null; // the value mprun.run returned
  let outcome = null; // "done" | "pyerror" | "timeout" | "crash"
  let current = null; // { name, tests: [...] | null } the module mprun is in
  const reported = new Set(); // "module.test" names that got a PASS/FAIL/SKIP line
  let lastLine = "";

  const watchdog = setTimeout(() => {
    outcome = "timeout";
    let where = "before any test module was imported";
    if (current) {
      where = `in module ${current.name}`;
      const next = current.tests && current.tests.find((t) => !reported.has(`${current.name}.${t}`));
      if (next) where += `, test ${next}`;
      else if (!current.tests) where += " (while importing it)";
    }
    process.stdout.write(
      `\nmpvm: TIMEOUT after ${opts.timeout} s ${where}: the VM hung or ran too long ` +
        `(this port hangs when an exception escapes under micropython.heap_lock(), ` +
        `or after heap_unlock() on an unlocked heap). Last output: ${JSON.stringify(lastLine)}\n`,
    );
    process.exitCode = 3;
    worker.terminate();
  }, opts.timeout * 1000);

  worker.on("message", (msg) => {
    if (outcome === "timeout") return;
    switch (msg.t) {
      case "out": {
        const line = msg.s.replace(/\r?\n$/, "");
        if (!(opts.quiet && /^(PASS|SKIP) /.test(line))) process.stdout.write(msg.s);
        if (line.trim()) lastLine = line;
        const m = CLOSING.exec(line);
        if (m) closing = { passed: +m[1], failed: +m[2], skipped: +m[3] };
        const r = /^(?:PASS|FAIL|SKIP) (\S+?)(?::|$)/.exec(line);
        if (r) reported.add(r[1]);
        break;
      }
      case "module":
        current = { name: msg.name, tests: null };
        break;
      case "tests":
        if (current && current.name === msg.name) current.tests = msg.tests;
        break;
      case "done":
        outcome = "done";
        failed = msg.failed;
        worker.terminate(); // asyncio tasks a test left behind must not keep it alive
        break;
      case "pyerror":
        outcome = "pyerror";
        process.stdout.write(`mpvm: the VM raised ${msg.type}${current ? ` (in module ${current.name})` : ""}:\n${msg.message}\n`);
        worker.terminate();
        break;
    }
  });
  worker.on("error", (e) => {
    if (outcome === "timeout") return;
    outcome = "crash";
    process.stdout.write(`mpvm: the VM crashed${current ? ` in module ${current.name}` : ""}: ${e && e.stack ? e.stack : e}\n`);
  });
  worker.on("exit", () => {
    clearTimeout(watchdog);
    if (outcome === "timeout") return; // exitCode 3 already set
    if (outcome === "pyerror" || outcome === "crash") {
      process.exitCode = 2;
    } else if (outcome !== "done") {
      process.stdout.write("mpvm: the VM exited before the run finished\n");
      process.exitCode = 2;
    } else if (!closing) {
      process.stdout.write("mpvm: mprun never printed its closing line 'N passed, N failed, N skipped'\n");
      process.exitCode = 1;
    } else if (closing.passed + closing.failed + closing.skipped === 0) {
      process.stdout.write("mpvm: ran no test (mprun counted 0 passed, 0 failed, 0 skipped)\n");
      process.exitCode = 1;
    } else {
      process.exitCode = failed || closing.failed ? 1 : 0;
    }
  });
}

// ---------------------------------------------------------------- worker thread
async function vm() {
  const { heap, modules, paths } = workerData;

  // Python's stdout and stderr, byte by byte, become one ordered stream of whole lines
  // posted to the main thread (so nothing is lost if this thread later hangs).
  const decoder = new TextDecoder();
  let buf = [];
  const put = (byte) => {
    buf.push(byte);
    if (byte === 10) flush();
  };
  const flush = () => {
    if (buf.length) parentPort.postMessage({ t: "out", s: decoder.decode(new Uint8Array(buf)) });
    buf = [];
  };
  const each = (bytes) => bytes.forEach(put);

  // tests/, lib/, firmware/ and the --path folders in MEMFS and on sys.path (vm.mjs)
  const mp = await loadVM({ heap, dirs: paths, stdout: each, stderr: each });
  mp.registerJsModule("_mpvm", {
    module: (name) => parentPort.postMessage({ t: "module", name }),
    tests: (name, tests) => parentPort.postMessage({ t: "tests", name, tests: String(tests).split(",").filter(Boolean) }),
  });

  // mprun imports each module with __import__(name); a wrapper in its globals tells the
  // watchdog which module (and which of its tests) is running.
  const code = [
    "import sys",
    "# sys.path: tests/, lib/, firmware/, --path folders (set by vm.mjs)",
    "import mprun",
    "def _mpvm_setup():",
    "    import _mpvm",
    "    imp = __import__",
    "    def hook(name, *args):",
    "        _mpvm.module(name)",
    "        m = imp(name, *args)",
    "        _mpvm.tests(name, ','.join(t for t in sorted(dir(m)) if t.startswith('test_') and callable(getattr(m, t))))",
    "        return m",
    "    try:",
    "        mprun.__import__ = hook",
    "    except Exception:",
    "        pass",
    "_mpvm_setup()",
    "del _mpvm_setup",
    `mprun.run(${JSON.stringify(modules)})`,
    "",
  ].join("\n");
  // Modules with asyncio case_* coroutines: this port's asyncio runs on the JS event loop,
  // so they are awaited through runPythonAsync once the synchronous pass is done.
  const src = (m) => {
    // the module as import finds it: the first root (sys.path order) that has it
    const f = mp.roots.map((r) => `${r}/${m}.py`).find((p) => mp.FS.analyzePath(p).exists);
    return f ? mp.FS.readFile(f, { encoding: "utf8" }) : "";
  };
  const withCases = modules.filter((m) => /^async def case_/m.test(src(m)));

  try {
    mp.runPython(code);
    if (withCases.length) {
      await mp.runPythonAsync(`import mprun_async\nawait mprun_async.run(${JSON.stringify(withCases)})`);
    }
    // a run that ran nothing at all (a typo, a module without tests) is a failure too
    mp.runPython("failed = mprun.report()\nif not sum(mprun.res):\n    print('no tests ran')\n    failed = 1");
  } catch (e) {
    flush();
    if (e && e.name === "PythonError") {
      parentPort.postMessage({ t: "pyerror", type: e.type, message: e.message });
      return;
    }
    throw e;
  }
  flush();
  const failed = mp.globals.get("failed");
  parentPort.postMessage({ t: "done", failed: typeof failed === "number" ? failed : failed ? 1 : 0 });
}

if (isMainThread) main();
else await vm();
