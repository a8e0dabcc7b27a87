#!/usr/bin/env node
// Runs benchmark snippets on the MicroPython WebAssembly VM (tools/mpvm's npm package):
//
//   node tools/bench/vm.mjs [--heap BYTES] [--path DIR] < steps.json > results.json
//
// stdin: a JSON list of Python snippets; stdout: a JSON list of [ok, printed text], one
// per snippet. Each snippet is its own runPython call, all in one VM and one namespace:
// this port frees garbage only between runPython calls (gc.collect() inside a call does
// not), so tools/bench/run.py gives every timed section and every memory reading a call of
// its own. lib/*.py and tools/bench/tqbench.py are copied into the VM's filesystem and put
// on sys.path (by tools/mpvm/vm.mjs, which loads the VM), and DIR/*.py
// (--path: modules of an experiment) after them. Node >= 20; the VM comes from
// `npm ci --prefix tools/mpvm`.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadVM } from "../mpvm/vm.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));

async function main() {
  let heap = 1024 * 1024;
  const i = process.argv.indexOf("--heap");
  if (i > 0) heap = parseInt(process.argv[i + 1], 10);
  const j = process.argv.indexOf("--path");
  const extra = j > 0 ? path.resolve(process.argv[j + 1]) : null;
  const steps = JSON.parse(fs.readFileSync(0, "utf8"));
  let out = [];
  const put = (bytes) => {
    for (const b of bytes) out.push(b);
  };
  // /bench/lib, /bench/tools (tqbench.py only: not the host-side tools), /bench/extra:
  // the same paths as ever, since a module's path length shows in its import's RAM
  const dirs = [{ dir: HERE, only: ["tqbench.py"], name: "tools" }];
  if (extra) dirs.push({ dir: extra, name: "extra" });
  let mp;
  try {
    mp = await loadVM({ heap, repo: ["lib"], root: "/bench", dirs, stdout: put, stderr: put });
  } catch (e) {
    process.stderr.write(`bench/vm: cannot load the VM: ${e.message}\n`);
    process.exit(2);
  }
  const dec = new TextDecoder();
  const results = [];
  for (const [i, code] of steps.entries()) {
    process.stderr.write(`progress ${i}\n`); // for run.py's progress lines
    out = [];
    let ok = true;
    let err = "";
    try {
      mp.runPython(code);
    } catch (e) {
      if (!e || e.name !== "PythonError") throw e;
      ok = false;
      err = e.message;
    }
    results.push([ok, dec.decode(new Uint8Array(out)) + err]);
  }
  process.stdout.write(JSON.stringify(results));
}

await main();
