"""The interpreter benchmark (tools/bench/run.py, issue 6), split by job: common (what they share),
plans (the steps), drivers (running them on each interpreter), analysis (figures), report
(BENCHMARKS.md and the tables spliced into docs), plots. The kernels and workers that run on
the targets stay in tools/bench/ (tqbench.py, cpy_worker.py, mp_worker.py, vm.mjs, shake.py)."""
