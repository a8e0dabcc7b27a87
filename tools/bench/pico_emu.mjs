// The benchmark's emulated Raspberry Pi Pico: an RP2040 firmware image (firmware.bin, flash
// offset 0) in rp2040js, its USB CDC as raw bytes on stdin/stdout (for mpremote at the other
// end of tools/ticketq_tools/bench/pico.py's pty).
//   node pico_emu.mjs firmware.bin --bootrom=PATH/bootrom.mjs --rp2040js=PATH/node_modules/rp2040js [--host=quiet|stock]
// On stderr: "[pico] usb <simulated ms>" when the USB CDC is connected, and
// "[pico] end <simulated s> <CPU cycles> <host s>" when stdin ends.
//
// As ../shared/rp2/emu/run.mjs (--stdio) and tools/pico/run.mjs, with one difference in the
// emulated USB host (--host=quiet, the default): rp2040js 1.4.1's USBCDC answers every OUT
// transfer the device arms at once (10 us later), with a zero-length packet when it has
// nothing to send, so the firmware's USB interrupt and TinyUSB task run without pause: a
// profile of `for i in range(n): pass` on the Pico firmware put about two thirds of the
// executed instructions in the USB stack (hw_handle_buff_status, tud_task_ext, dcd_*,
// tu_fifo_*), 1205 cycles an iteration against 387 with a quiet host. A real host NAKs an
// OUT token while it has nothing to send and the device sees no transfer; the quiet host
// does the same: an armed OUT transfer is completed only when there are bytes for it.
// --host=stock keeps rp2040js's behaviour.
//
// The bootrom (the RP2040 B1 bootrom as rp2040js's demo ships it) and rp2040js are read from
// the paths given, at run time: neither is part of the repository.
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const argv = process.argv.slice(2);
const opts = Object.fromEntries(argv.filter((a) => a.startsWith('--')).map((a) => {
  const [k, v] = a.slice(2).split('='); return [k, v ?? true];
}));
const [fwPath] = argv.filter((a) => !a.startsWith('--'));
if (!fwPath || !opts.bootrom || !opts.rp2040js) {
  console.error('usage: node pico_emu.mjs firmware.bin --bootrom=PATH/bootrom.mjs --rp2040js=PATH/rp2040js [--host=quiet|stock]');
  process.exit(2);
}
const pkg = JSON.parse(fs.readFileSync(path.join(opts.rp2040js, 'package.json'), 'utf8'));
const { Simulator, USBCDC, ConsoleLogger, LogLevel } =
  await import(pathToFileURL(path.join(opts.rp2040js, pkg.module || 'dist/esm/index.js')).href);
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

// Flash writes, as tools/pico/run.mjs does them: rp2040js 1.4.1 emulates the flash for
// reading only, so the firmware's littlefs could be neither made nor mounted, and the heap
// after boot would lack what a real Pico's mounted file system takes. The bootrom's
// flash_range_erase ('RE': bytes to 0xff) and flash_range_program ('RP': data ANDed in) are
// done here when the core reaches them, then they return; their time is not modelled.
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
if ((opts.host ?? 'quiet') === 'quiet') {
  cdc.usb.onEndpointRead = (endpoint, size) => {
    if (endpoint !== cdc.outEndpoint) return;  // as USBCDC: only the CDC data endpoint
    if (cdc.txFIFO.itemCount === 0) { parked = [endpoint, size]; return; }  // NAK: wait for bytes
    const buffer = new Uint8Array(Math.min(size, cdc.txFIFO.itemCount));
    for (let i = 0; i < buffer.length; i++) buffer[i] = cdc.txFIFO.pull();
    cdc.usb.endpointReadDone(endpoint, buffer);
  };
} else if (opts.host !== 'stock') {
  console.error('--host: quiet or stock');
  process.exit(2);
}
const feed = () => {
  while (pending.length && !cdc.txFIFO.full) cdc.sendSerialByte(pending.shift());
  if (parked && cdc.txFIFO.itemCount) {
    const [endpoint, size] = parked;
    parked = null;
    cdc.usb.onEndpointRead(endpoint, size);
  }
};
cdc.onDeviceConnected = () => process.stderr.write(`[pico] usb ${(clock.nanos / 1e6).toFixed(1)}\n`);
cdc.onSerialData = (buf) => process.stdout.write(buf);

const t0 = process.hrtime.bigint();
let done = false;
process.stdin.on('data', (chunk) => { for (const b of chunk) pending.push(b); });
process.stdin.on('end', () => {
  done = true;
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stderr.write(`[pico] end ${(clock.nanos / 1e9).toFixed(3)} ${mcu.core.cycles} ${wall.toFixed(1)}\n`);
  sim.stop();
  setImmediate(() => process.exit(0));
});

// The execute loop (rp2040js's Simulator.execute, with the FIFO fed): the clock advances
// 8 ns (one cycle at 125 MHz) for each cycle the core model charges an instruction, and
// jumps to the next alarm while the core sleeps (WFI); the firmware's time.ticks_us() is
// this clock in microseconds.
// With the quiet host an idle core (WFI, nothing to read) would jump straight to its next
// alarm, which can be a poll's timeout seconds away: mpremote's mount waits 10 s of board
// time for the host's answer, and the board would give up before the host had run. So an
// idle core's clock moves at most 1 ms at a time, and the loop then waits 1 ms of host time:
// idle time passes no faster than real time. (The stock host's USB alarms every ~10 us keep
// the jumps short instead.) A busy core, as in a timed section, is not affected.
const cycleNanos = 1e9 / 125e6;
const quiet = (opts.host ?? 'quiet') === 'quiet';
function run() {
  const core = mcu.core;
  let idle = false;
  for (let i = 0; i < 500000 && !done; i++) {
    if (core.waiting) {
      if (pending.length) feed();  // first: the bytes' transfer is then the next alarm
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
  if (!done) {
    if (idle) setTimeout(run, 1); else setImmediate(run);
  }
}
run();
