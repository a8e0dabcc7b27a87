#!/usr/bin/env node
// The main job on the MicroPython WebAssembly VM: the worker firmware (firmware/worker.py,
// shell.py, workload.py, unchanged) plays a workload file and prints each job's log line
// as it runs, then the summary. ticketq run runs this; it can be run by itself:
//
//   node tools/mpvm/main.mjs [--heap BYTES] [--board FILE] [--workload FILE]
//   node tools/mpvm/main.mjs [--heap BYTES] --exec CODE    # a snippet, as micropython -c
//
// The VM is loaded by tools/mpvm/vm.mjs (lib/, firmware/, tests/ on sys.path); the board
// profile FILE (default boards/host/board.py) goes on as `board` and the workload file
// (default firmware/workload.txt, the shipped sample) as /ticketq/input/<its name>; then
//   import workload; workload.main("/ticketq/input/<its name>")
// runs, its output written to stdout line by line as it comes. With --exec CODE, the VM
// (the same loader, the same sys.path) runs CODE instead (`tools/run --exec CODE`); an
// exception's traceback goes to stderr and the exit status is 1, and sys.exit(n) exits
// with n, as `micropython -c`.
//
// Exit status: 0 the workload ran to its summary; 1 the firmware raised (a bad workload
// line: ValueError naming its line number; the traceback goes to stderr); 2 bad arguments
// or no VM (run: tools/setup); 3 the firmware raised MemoryError.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadVM, REPO } from "./vm.mjs";

const USAGE = `usage: node tools/mpvm/main.mjs [--heap BYTES] [--board FILE] [--workload FILE | --exec CODE]
  --heap BYTES     initial MicroPython GC heap, 16384 .. 2**30 (default 1048576)
  --exec CODE      run CODE on the VM instead of the firmware (lib/ and firmware/ importable)
  --board FILE     board profile, imported as board (default boards/host/board.py)
  --workload FILE  workload file (default firmware/workload.txt, the sample)
exit: 0 ran, 1 the firmware raised, 2 bad arguments or no VM, 3 MemoryError
(--exec: as micropython -c, sys.exit's status, 130 for KeyboardInterrupt)`;

function fail(msg, code) {
  process.stderr.write(`mpvm main: ${msg}\n`);
  process.exit(code);
}

let values;
try {
  ({ values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      heap: { type: "string", default: String(1024 * 1024) },
      board: { type: "string", default: path.join(REPO, "boards", "host", "board.py") },
      workload: { type: "string", default: path.join(REPO, "firmware", "workload.txt") },
      exec: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (e) {
  fail(`${e.message}\n${USAGE}`, 2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const heap = Number(values.heap);
// the VM's memory ends at 2 GiB: more wrapped round, or failed obscurely
if (!Number.isInteger(heap) || heap < 16384 || heap > 2 ** 30) fail(`--heap must be an integer, 16384 .. 2**30\n${USAGE}`, 2);
const board = path.resolve(values.board);
const work = path.resolve(values.workload);
for (const f of [board, work]) if (!fs.statSync(f, { throwIfNoEntry: false })?.isFile()) fail(`no such file: ${f}`, 2);
if (path.basename(board) !== "board.py") fail(`--board: not a board.py: ${board}`, 2);

// Python's output, byte by byte, written out a whole line at a time (fs.writeSync: the
// line is out before the next job runs, even on a pipe).
let buf = [];
const put = (bytes) => {
  for (const b of bytes) {
    buf.push(b);
    if (b === 10) flush();
  }
};
const flush = () => {
  try {
    if (buf.length) fs.writeSync(1, new Uint8Array(buf));
  } catch (e) {
    if (e.code !== "EPIPE") throw e;
    process.exit(1); // the reader went away (| head): stop quietly
  }
  buf = [];
};

const input = `/ticketq/input/${path.basename(work)}`;
let mp;
try {
  mp = await loadVM({
    heap,
    dirs: [{ dir: path.dirname(board), only: ["board.py"], name: "board" }],
    files: { [input]: work },
    stdout: put,
    stderr: put,
  });
} catch (e) {
  fail(`${e.message} (or run tools/setup)`, 2);
}
try {
  mp.runPython(values.exec ?? `import workload\nworkload.main(${JSON.stringify(input)})\n`);
} catch (e) {
  flush();
  if (!e || e.name !== "PythonError") throw e;
  if (values.exec !== undefined && e.type === "SystemExit") {
    // sys.exit(n) as micropython -c ends: no traceback; an int exits with it (mod 256),
    // none or None with 0, anything else is printed and exits 1. The VM hands over only
    // the traceback's text, so a str that reads as an int or "None" counts as one.
    const v = e.message.slice(e.message.lastIndexOf("SystemExit: ") + 12).replace(/\n$/, "");
    if (v === "" || v === "None") process.exit(0);
    if (/^-?\d+$/.test(v)) process.exit(Number(BigInt(v) & 255n));
    process.stderr.write(`${v}\n`);
    process.exit(1);
  }
  if (values.exec !== undefined) {
    process.stderr.write(e.message); // the traceback, as micropython -c prints it
    process.exit(e.type === "KeyboardInterrupt" ? 130 : 1); // as micropython -c: 128 + SIGINT
  }
  process.stderr.write(`mpvm main: the firmware raised ${e.type}:\n${e.message}`);
  process.exit(e.type === "MemoryError" ? 3 : 1);
}
flush();
