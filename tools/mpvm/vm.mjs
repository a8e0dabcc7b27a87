// The one loader of the MicroPython WebAssembly VM (the npm package pinned in
// tools/mpvm/package.json), for every tool that runs ticketq's code on it:
// tools/mpvm/run.mjs (the test modules), tools/mpvm/main.mjs (the worker firmware, the
// main job), tools/islands_vm.mjs and tools/bench/vm.mjs.
//
//   import { loadVM } from "./vm.mjs";
//   const mp = await loadVM({ heap: 1 << 20, dirs: ["/tmp/extra"], stdout: (bytes) => ... });
//   mp.runPython("import ticketq");
//
// loadVM loads the package from tools/mpvm/node_modules, copies every *.py under the
// repository's tests/, lib/ and firmware/ (recursively, so packages come along) into the
// VM's MEMFS as /ticketq/tests, /ticketq/lib and /ticketq/firmware, then each extra folder
// of `dirs` as /ticketq/path0, /ticketq/path1, ..., and puts them all on sys.path in that
// order, ahead of the port's own entries (`sys` stays imported in __main__). It returns
// the VM: loadMicroPython's object (runPython, runPythonAsync, FS, globals,
// registerJsModule, ...), with `roots`, the MEMFS folders in sys.path order, added.
//
// Options:
//   heap        initial GC heap in bytes (default 1 MiB, the port's own default)
//   repo        which of the repository's folders to copy (default all three, in that order)
//   root        the MEMFS folder they all go under (default /ticketq). Note: the longer
//               a module's path, the more RAM its import takes here (the benchmark keeps
//               its own /bench/lib layout so its RAM figures stay comparable)
//   dirs        extra host folders (after the repository's); an entry is a path, or
//               { dir, only: ["name.py", ...], name } to take only those files of that
//               folder and mount it as ROOT/name (default ROOT/path0, ROOT/path1, ...)
//   files       single host files of any kind, { "/ticketq/input/w.txt": "/host/path" }
//               (their MEMFS folders are created; not put on sys.path)
//   stdout, stderr, linebuffer   as loadMicroPython: linebuffer false (the default here)
//               calls them with a Uint8Array per byte, true with a string per line
//
// A missing package (npm ci not run) rejects with a VMLoadError whose message says so.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, "..", "..");
export const VM_PKG = "@micropython/micropython-webassembly-pyscript";
export const VM_DIR = path.join(HERE, "node_modules", VM_PKG);
export const REPO_DIRS = ["tests", "lib", "firmware"];
export const ROOT = "/ticketq";

export class VMLoadError extends Error {} // its stack still reads "Error: cannot load ..."

// Every *.py under dir (recursively), as [relative path, bytes]; `only`: just these names.
export function pyFiles(dir, only = null, rel = "") {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const ent of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (ent.name.startsWith(".") || ent.name === "__pycache__" || ent.name === "node_modules") continue;
    const r = rel ? `${rel}/${ent.name}` : ent.name;
    if (ent.isDirectory() && !only) out.push(...pyFiles(dir, null, r));
    else if (ent.isFile() && ent.name.endsWith(".py") && (!only || only.includes(r)))
      out.push([r, fs.readFileSync(path.join(dir, r))]);
  }
  return out;
}

// The MEMFS folder and the host folder of each mount, in sys.path order.
export function mounts(dirs = [], repoDirs = REPO_DIRS, root = ROOT) {
  const repo = repoDirs.map((d) => ({ dst: `${root}/${d}`, dir: path.join(REPO, d), only: null }));
  const extra = dirs.map((d, i) => {
    const { dir, only = null, name = `path${i}` } = typeof d === "string" ? { dir: d } : d;
    return { dst: `${root}/${name}`, dir: path.resolve(dir), only };
  });
  return [...repo, ...extra];
}

function mkdirs(FS, p) {
  let cur = "";
  for (const part of p.split("/").filter(Boolean)) {
    cur += "/" + part;
    if (!FS.analyzePath(cur).exists) FS.mkdir(cur);
  }
}

export async function loadVM({
  heap = 1024 * 1024,
  repo = REPO_DIRS,
  root = ROOT,
  dirs = [],
  files = {},
  stdout,
  stderr,
  linebuffer = false,
} = {}) {
  let loadMicroPython;
  try {
    ({ loadMicroPython } = await import(path.join(VM_DIR, "micropython.mjs")));
  } catch (e) {
    throw new VMLoadError(`cannot load ${VM_PKG} (run: npm ci --prefix tools/mpvm): ${e.message}`);
  }
  const opts = { heapsize: heap, linebuffer };
  if (stdout) opts.stdout = stdout;
  if (stderr) opts.stderr = stderr;
  const mp = await loadMicroPython(opts);
  const roots = [];
  for (const { dst, dir, only } of mounts(dirs, repo, root)) {
    mkdirs(mp.FS, dst);
    for (const [rel, data] of pyFiles(dir, only)) {
      mkdirs(mp.FS, path.posix.dirname(`${dst}/${rel}`));
      mp.FS.writeFile(`${dst}/${rel}`, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    }
    roots.push(dst);
  }
  for (const [dst, src] of Object.entries(files)) {
    mkdirs(mp.FS, path.posix.dirname(dst));
    mp.FS.writeFile(dst, fs.readFileSync(src));
  }
  mp.runPython(`import sys\nsys.path[0:0] = ${JSON.stringify(roots)}\n`); // sys stays imported, as it always was
  mp.roots = roots;
  return mp;
}
