// The emulated Raspberry Pi Pico: an RP2040 firmware image (firmware.bin, flash offset 0)
// in rp2040js, its USB CDC as raw bytes on stdin/stdout; nothing else on them (the REPL is
// the firmware's, spoken by mpremote at the other end of tools/ticketq_tools/pico.py's pty;
// the tests' Pico and the benchmark's, tools/ticketq_tools/bench/pico.py, are both this one).
//   node run.mjs firmware.bin --bootrom=PATH/bootrom.mjs [--rp2040js=PATH/rp2040js]
//                [--sim-limit=SIMULATED_SECONDS] [--host=stock|quiet]
// On stderr, one line each (tools/ticketq_tools/pico.py reads them):
//   [pico] usb <simulated ms>            the USB CDC is connected
//   [pico] gpio25 <edges> <simulated ms> each change of GPIO 25 (the Pico's LED) between low and high
//   [pico] end <simulated s> <CPU cycles> <host s> <GPIO 25 edges>   when stdin ends
//   [pico] limit <simulated s>           --sim-limit=S reached: the emulator stops (exit 3),
//                                        a hang caught in emulated time, whatever the host's load
// From ../shared/rp2/emu/run.mjs (its --stdio mode), with the GPIO 25 listener added and the
// bootrom read from the file given at run time (the RP2040 B1 bootrom as rp2040js's demo
// ships it: its floating-point library is licensed for RP2040 devices only, so it is not
// part of this repository; ../shared/rp2/emu/bootrom.mjs, or $TICKETQ_RP2_BOOTROM).
// rp2040js is tools/pico/node_modules' unless --rp2040js=PATH (the package's folder) says.
//
// The emulated USB host (--host): rp2040js 1.4.1's USBCDC ("stock", the default) answers
// every OUT transfer the device arms at once (10 us later), with a zero-length packet when
// it has nothing to send, so the firmware's USB interrupt and TinyUSB task run without
// pause: a profile of `for i in range(n): pass` on the Pico firmware put about two thirds of
// the executed instructions in the USB stack (hw_handle_buff_status, tud_task_ext, dcd_*,
// tu_fifo_*), 1205 cycles an iteration against 387 with a quiet host. A real host NAKs an
// OUT token while it has nothing to send and the device sees no transfer; "quiet" does the
// same: an armed OUT transfer is completed only when there are bytes for it (the benchmark
// runs with it). See the execute loop for how a quiet host's idle time is paced.
import fs from 'fs';
import { pathToFileURL } from 'url';
import path from 'path';

const argv = process.argv.slice(2);
const opts = Object.fromEntries(argv.filter((a) => a.startsWith('--')).map((a) => {
  const [k, v] = a.slice(2).split('='); return [k, v ?? true];
}));
const [fwPath] = argv.filter((a) => !a.startsWith('--'));
if (!fwPath || !opts.bootrom) {
  console.error('usage: node run.mjs firmware.bin --bootrom=PATH/bootrom.mjs [--rp2040js=PATH/rp2040js] '
    + '[--sim-limit=SIMULATED_SECONDS] [--host=stock|quiet]');
  process.exit(2);
}
const host = opts.host ?? 'stock';
if (host !== 'stock' && host !== 'quiet') {
  console.error('--host: stock or quiet');
  process.exit(2);
}
const quiet = host === 'quiet';
let rp2040jsUrl = 'rp2040js';  // tools/pico/node_modules
if (opts.rp2040js) {
  const pkg = JSON.parse(fs.readFileSync(path.join(opts.rp2040js, 'package.json'), 'utf8'));
  rp2040jsUrl = pathToFileURL(path.join(path.resolve(opts.rp2040js), pkg.module || 'dist/esm/index.js')).href;
}
const { Simulator, USBCDC, ConsoleLogger, LogLevel, GPIOPinState } = await import(rp2040jsUrl);
const { bootromB1 } = await import(pathToFileURL(path.resolve(opts.bootrom)).href);

const sim = new Simulator();
const mcu = sim.rp2040;
mcu.logger = new ConsoleLogger(LogLevel.Error);
mcu.loadBootrom(bootromB1);
mcu.flash.set(fs.readFileSync(fwPath), 0);
// Start at the image's boot2 (flash offset 0), as rp2040js's demo/micropython-run.ts does:
// from the bootrom's reset vector rp2040js 1.4.1 parks the core in a WFI (../shared/rp2).
mcu.core.PC = 0x10000000;
const clock = sim.clock;
const ms = () => (clock.nanos / 1e6).toFixed(1);

// GPIO 25: the Pico's LED, the worker's heartbeat (boards/rp2*/board.py HEARTBEAT = "LED")
let edges = 0;
let led = null;
mcu.gpio[25].addListener((state) => {
  const level = state === GPIOPinState.High ? 1 : state === GPIOPinState.Low ? 0 : null;
  if (level === null) return;  // an input: not driven
  if (led !== null && level !== led) {
    edges++;
    process.stderr.write(`[pico] gpio25 ${edges} ${ms()}\n`);
  }
  led = level;
});

// Flash writes: rp2040js 1.4.1 emulates the flash for reading only (XIP); a program or erase
// through the bootrom's SSI routines leaves it unchanged, so the firmware's littlefs could
// neither be made nor written (os.statvfs('/') all zeros, OSError 19 on writes). The two
// bootrom functions that change flash are done here instead, with NOR semantics, when the
// core reaches them: flash_range_erase(offs, count, ...) ('RE') sets bytes to 0xff,
// flash_range_program(offs, data, count) ('RP') ANDs data in; then they return (PC = LR).
// Their addresses come from the bootrom's own function table (a 16-bit pointer at 0x14 to
// (code, address) pairs). Only the flash contents are modelled, not the time they take.
const rom16 = (a) => (bootromB1[a >> 2] >>> ((a & 2) * 8)) & 0xffff;
function romFunc(name) {
  const code = name.charCodeAt(0) | (name.charCodeAt(1) << 8);
  for (let p = rom16(0x14); rom16(p); p += 4) if (rom16(p) === code) return rom16(p + 2) & ~1;
  throw new Error(`bootrom: no function ${name}`);
}
const ROM_ERASE = romFunc('RE'), ROM_PROGRAM = romFunc('RP');
const flashSize = mcu.flash.length;
function romFlashCall(core) {
  const [offs, a1, a2] = core.registers;
  if (core.PC === ROM_ERASE) {
    mcu.flash.fill(0xff, offs, Math.min(flashSize, offs + a1));
  } else {
    for (let i = 0; i < a2 && offs + i < flashSize; i++) mcu.flash[offs + i] &= mcu.readUint8(a1 + i);
  }
  core.PC = core.LR & ~1;
}

const cdc = new USBCDC(mcu.usbCtrl);
const pending = [];  // host -> device bytes, fed as the device's FIFO drains
let parked = null;   // quiet host: the OUT transfer the device armed while there was nothing to send
if (quiet) {
  cdc.usb.onEndpointRead = (endpoint, size) => {
    if (endpoint !== cdc.outEndpoint) return;  // as USBCDC: only the CDC data endpoint
    if (cdc.txFIFO.itemCount === 0) { parked = [endpoint, size]; return; }  // NAK: wait for bytes
    const buffer = new Uint8Array(Math.min(size, cdc.txFIFO.itemCount));
    for (let i = 0; i < buffer.length; i++) buffer[i] = cdc.txFIFO.pull();
    cdc.usb.endpointReadDone(endpoint, buffer);
  };
}
const feed = () => {
  while (pending.length && !cdc.txFIFO.full) cdc.sendSerialByte(pending.shift());
  if (parked && cdc.txFIFO.itemCount) {
    const [endpoint, size] = parked;
    parked = null;
    cdc.usb.onEndpointRead(endpoint, size);
  }
};
cdc.onDeviceConnected = () => process.stderr.write(`[pico] usb ${ms()}\n`);
cdc.onSerialData = (buf) => process.stdout.write(buf);

const t0 = process.hrtime.bigint();
let done = false;
process.stdin.on('data', (chunk) => { for (const b of chunk) pending.push(b); });
process.stdin.on('end', () => {
  done = true;
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stderr.write(`[pico] end ${(clock.nanos / 1e9).toFixed(3)} ${mcu.core.cycles} ${wall.toFixed(1)} ${edges}\n`);
  sim.stop();
  setImmediate(() => process.exit(0));
});

// The execute loop (rp2040js's Simulator.execute, with the FIFO fed): slices of at most
// 500000 instructions, between which Node reads stdin. The clock advances 8 ns (one cycle at
// 125 MHz) for each cycle the core model charges an instruction, and jumps to the next alarm
// while the core sleeps (WFI); the firmware's time.ticks_us() is this clock in microseconds.
// With the quiet host an idle core (WFI, nothing to read) would jump straight to its next
// alarm, which can be a poll's timeout seconds away: mpremote's mount waits 10 s of board
// time for the host's answer, and the board would give up before the host had run. So there
// an idle core's clock moves at most 1 ms at a time, and the loop then waits 1 ms of host
// time: idle time passes no faster than real time. (The stock host's USB alarms every ~10 us
// keep the jumps short instead.) A busy core, as in a timed section, is not affected.
const cycleNanos = 1e9 / 125e6;
const simLimit = Number(opts['sim-limit'] ?? 0) * 1e9;  // simulated ns; 0: none
function run() {
  const core = mcu.core;
  let idle = false;
  for (let i = 0; i < 500000 && !done; i++) {
    if (core.waiting) {
      if (quiet && pending.length) feed();  // first: the bytes' transfer is then the next alarm
      let dt = clock.nanosToNextAlarm;
      if (quiet && dt > 1e6 && !pending.length) { dt = 1e6; idle = true; }
      clock.tick(dt); i += dt / cycleNanos;
      if (idle) break;
    } else {
      const pc = core.PC;
      if (pc === ROM_ERASE || pc === ROM_PROGRAM) romFlashCall(core);
      clock.tick(core.executeInstruction() * cycleNanos);
    }
    if ((i & 1023) === 0 && (pending.length || parked)) feed();
  }
  feed();
  if (simLimit && clock.nanos > simLimit && !done) {
    done = true;
    process.stderr.write(`[pico] limit ${(clock.nanos / 1e9).toFixed(3)}\n`);
    sim.stop();
    setImmediate(() => process.exit(3));
    return;
  }
  if (!done) {
    if (idle) setTimeout(run, 1); else setImmediate(run);
  }
}
run();
