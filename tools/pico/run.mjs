// The emulated Raspberry Pi Pico: an RP2040 firmware image (firmware.bin, flash offset 0)
// in rp2040js, its USB CDC as raw bytes on stdin/stdout; nothing else on them (the REPL is
// the firmware's, spoken by mpremote at the other end of tools/ticketq_tools/pico.py's pty).
//   node run.mjs firmware.bin --bootrom=PATH/bootrom.mjs [--sim-limit=SIMULATED_SECONDS]
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
import fs from 'fs';
import { pathToFileURL } from 'url';
import { Simulator, USBCDC, ConsoleLogger, LogLevel, GPIOPinState } from 'rp2040js';

const argv = process.argv.slice(2);
const opts = Object.fromEntries(argv.filter((a) => a.startsWith('--')).map((a) => {
  const [k, v] = a.slice(2).split('='); return [k, v ?? true];
}));
const [fwPath] = argv.filter((a) => !a.startsWith('--'));
if (!fwPath || !opts.bootrom) {
  console.error('usage: node run.mjs firmware.bin --bootrom=PATH/bootrom.mjs');
  process.exit(2);
}
const { bootromB1 } = await import(pathToFileURL(opts.bootrom).href);

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
const feed = () => { while (pending.length && !cdc.txFIFO.full) cdc.sendSerialByte(pending.shift()); };
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
// 500000 instructions, between which Node reads stdin.
const cycleNanos = 1e9 / 125e6;
const simLimit = Number(opts['sim-limit'] ?? 0) * 1e9;  // simulated ns; 0: none
function run() {
  const core = mcu.core;
  for (let i = 0; i < 500000 && !done; i++) {
    if (core.waiting) {
      const dt = clock.nanosToNextAlarm;
      clock.tick(dt); i += dt / cycleNanos;
    } else {
      const pc = core.PC;
      if (pc === ROM_ERASE || pc === ROM_PROGRAM) romFlashCall(core);
      clock.tick(core.executeInstruction() * cycleNanos);
    }
    if ((i & 1023) === 0 && pending.length) feed();
  }
  feed();
  if (simLimit && clock.nanos > simLimit && !done) {
    done = true;
    process.stderr.write(`[pico] limit ${(clock.nanos / 1e9).toFixed(3)}\n`);
    sim.stop();
    setImmediate(() => process.exit(3));
    return;
  }
  if (!done) setImmediate(run);
}
run();
