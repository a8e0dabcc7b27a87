#!/usr/bin/env node
// Runs a few lines of Python on the MicroPython WebAssembly VM (the npm package pinned in
// tools/mpvm/package.json, loaded by tools/mpvm/vm.mjs) with lib/*.py, tests/*.py and the
// replays tools/islands_replay.py and tools/lanes_replay.py importable, and forwards what
// they print to stdout. ticketq islands (the islands) and ticketq lanes-demo (the lanes
// demonstration) use it to replay on MicroPython.
//
//   node tools/islands_vm.mjs 'import islands_replay as r; r.report(1, [0, 11000], [0, 50])'
//
// Exit status: 0 the code ran; 2 the VM raised (message on stderr) or could not be loaded
// (run: npm ci --prefix tools/mpvm). The caller keeps the timeout.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadVM } from "./mpvm/vm.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));

const code = process.argv[2];
if (!code || process.argv.length > 3) {
  console.error("usage: node tools/islands_vm.mjs PYTHON_CODE");
  process.exit(2);
}
const lines = [];
let mp;
try {
  // lib/ (and tests/, firmware/) and the tools' replays on sys.path (tools/mpvm/vm.mjs)
  mp = await loadVM({
    dirs: [{ dir: HERE, only: ["islands_replay.py", "lanes_replay.py"] }],
    linebuffer: true,
    stdout: (s) => lines.push(s),
    stderr: (s) => lines.push(s),
  });
} catch (e) {
  console.error(`islands_vm: cannot load the MicroPython VM: ${e.message}`);
  process.exit(2);
}
try {
  mp.runPython(`${code}\n`);
} catch (e) {
  process.stdout.write(lines.map((l) => l + "\n").join(""));
  console.error(`islands_vm: the VM raised ${e.type || e.name}: ${e.message}`);
  process.exit(2);
}
process.stdout.write(lines.map((l) => l + "\n").join(""));
