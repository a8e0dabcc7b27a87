// BullMQ's side of tools/bench/fleet.py: one measurement per run, on the redis-server the
// driver started. Prints one JSON line {"jobs": n, "secs": s} (the timed section only: no
// node start-up, no connection set-up). Jobs carry no payload ({}), name "j", priority
// 1..4 round-robin (BullMQ's prioritized path, as ticketq's four classes), BullMQ defaults
// otherwise (completed jobs kept, as BullMQ keeps them unless told not to).
//
//   node bench.mjs PORT add QUEUE N BATCH        add N jobs, BATCH per round trip
//                                                (1: queue.add one at a time; >1: addBulk)
//   node bench.mjs PORT process QUEUE N CONC     a Worker of concurrency CONC takes N queued
//                                                jobs (a no-op processor) to completed
//   node bench.mjs PORT worker QUEUE CONC        one of several Worker processes: prints
//                                                "ready", waits for a line on stdin, runs
//                                                until the queue is drained, prints
//                                                {"jobs": done, "end": epoch seconds}
import { Queue, Worker } from 'bullmq';
import { createInterface } from 'node:readline';

const [port, mode, name, a, b] = process.argv.slice(2);
const connection = { host: '127.0.0.1', port: Number(port), maxRetriesPerRequest: null };
const now = () => performance.now() / 1000;

async function add(n, batch) {
  const q = new Queue(name, { connection });
  await q.waitUntilReady();
  const t0 = now();
  if (batch === 1) {
    for (let i = 0; i < n; i++) {
      await q.add('j', {}, { priority: 1 + (i % 4) });
    }
  } else {
    for (let s = 0; s < n; s += batch) {
      const jobs = [];
      for (let i = s; i < Math.min(n, s + batch); i++) {
        jobs.push({ name: 'j', data: {}, opts: { priority: 1 + (i % 4) } });
      }
      await q.addBulk(jobs);
    }
  }
  const secs = now() - t0;
  await q.close();
  return { jobs: n, secs };
}

async function processN(n, conc) {
  let done = 0;
  let t0 = 0;
  let finish;
  const all = new Promise((resolve) => { finish = resolve; });
  const w = new Worker(name, async () => {}, { connection, concurrency: conc, autorun: false });
  w.on('completed', () => {
    done += 1;
    if (done === n) finish(now());
  });
  await w.waitUntilReady();
  t0 = now();
  w.run();
  const t1 = await all;
  await w.close();
  return { jobs: n, secs: t1 - t0 };
}

async function worker(conc) {
  let done = 0;
  let end = 0;
  const w = new Worker(name, async () => {}, { connection, concurrency: conc, autorun: false });
  w.on('completed', () => {
    done += 1;
    end = Date.now() / 1000;
  });
  await w.waitUntilReady();
  const drained = new Promise((resolve) => w.on('drained', resolve));
  process.stdout.write('ready\n');
  const rl = createInterface({ input: process.stdin });
  await new Promise((resolve) => rl.once('line', resolve));
  rl.close();
  w.run();
  await drained;
  await w.close();
  return { jobs: done, end };
}

let r;
if (mode === 'add') r = await add(Number(a), Number(b));
else if (mode === 'process') r = await processN(Number(a), Number(b));
else if (mode === 'worker') r = await worker(Number(a));
else throw new Error('mode: add, process or worker, not ' + mode);
process.stdout.write(JSON.stringify(r) + '\n');
process.exit(0);
