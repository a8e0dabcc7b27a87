# The asyncio half of mprun, for a MicroPython whose event loop is driven from outside (the
# WebAssembly VM has no asyncio.run: tools/mpvm awaits run() through runPythonAsync).
# Awaits every case_* coroutine function of each module; their test_* wrappers, which use
# asyncio.run, have already reported themselves as skipped on such a VM.
import mprun


async def run(names):
    for name in names:
        mod = mprun.load(name)
        if mod is None:
            continue
        for t in sorted(dir(mod)):
            if not t.startswith("case_"):
                continue
            err = None
            try:
                await getattr(mod, t)()
            except Exception as e:
                err = e
            mprun.outcome("%s.%s" % (name, t), err)
        mprun.unload(name)
