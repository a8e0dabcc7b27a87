#!/usr/bin/env node
// Runs a few lines of Python on the MicroPython WebAssembly VM (the npm package pinned in
// tools/mpvm/package.json) with lib/*.py and tools/islands_replay.py importable, and
// forwards what they print to stdout. tools/islands.py uses it to replay the islands on
// MicroPython.
//
//   node tools/islands_vm.mjs 'import islands_replay as r; r.report(1, [0, 11000], [0, 50])'
//
// Exit status: 0 the code ran; 2 the VM raised (message on stderr) or could not be loaded
// (run: npm ci --prefix tools/mpvm). The caller keeps the timeout.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..");
const VM = path.join(HERE, "mpvm", "node_modules", "@micropython", "micropython-webassembly-pyscript", "micropython.mjs");

const code = process.argv[2];
if (!code || process.argv.length > 3) {
  console.error("usage: node tools/islands_vm.mjs PYTHON_CODE");
  process.exit(2);
}
let loadMicroPython;
try {
  ({ loadMicroPython } = await import(VM));
} catch (e) {
  console.error(`islands_vm: cannot load the MicroPython VM (run: npm ci --prefix tools/mpvm): ${e.message}`);
  process.exit(2);
}
const lines = [];
const mp = await loadMicroPython({ linebuffer: true, stdout: (s) => lines.push(s), stderr: (s) => lines.push(s) });
mp.FS.mkdir("/ticketq");
const files = [
  ...fs.readdirSync(path.join(REPO, "lib")).filter((f) => f.endsWith(".py")).map((f) => path.join(REPO, "lib", f)),
  path.join(HERE, "islands_replay.py"),
];
for (const f of files) mp.FS.writeFile(`/ticketq/${path.basename(f)}`, fs.readFileSync(f));
try {
  mp.runPython(`import sys\nsys.path.insert(0, "/ticketq")\n${code}\n`);
} catch (e) {
  process.stdout.write(lines.map((l) => l + "\n").join(""));
  console.error(`islands_vm: the VM raised ${e.type || e.name}: ${e.message}`);
  process.exit(2);
}
process.stdout.write(lines.map((l) => l + "\n").join(""));
