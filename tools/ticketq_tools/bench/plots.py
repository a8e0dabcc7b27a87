"""The figures: docs/bench.png (speed) and docs/bench-memory.png (memory), with matplotlib
(installed into .venv on first use).
"""
import os
import subprocess
import sys

from ticketq_tools.bench.common import HERE, NAMES, ORDER, TITLES


def plot(runs, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [i for i in ORDER if i in runs and "A" in runs[i]]
    fig, axes = plt.subplots(1, len(shown), figsize=(5.2 * len(shown), 4.2), squeeze=False)
    styles = {"tq": ("C3", "o", 2.4), "tqb": ("C5", "o", 1.6), "tqv": ("C6", "o", 1.6), "hqt": ("C0", "s", 1.4), "hqi": ("C2", "^", 1.4),
              "pq": ("C7", "x", 1.2), "sl": ("C1", "d", 1.2), "ph": ("C4", "v", 1.4)}
    for ax, interp in zip(axes[0], shown):
        c, A = runs[interp]["c"], runs[interp]["A"]
        cap = c["sweep_cap"]
        b0 = A["pp"].get((c["base"], cap, 0))
        if not b0:
            continue
        for x in c["impls"]:
            pts = sorted((f, A["pp"][(x, cap, f)] / b0) for (y, cp, f) in A["pp"] if y == x and cp == cap)
            if not pts:
                continue
            col, mk, lw = styles[x]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=col, marker=mk, lw=lw, ms=4,
                    label=NAMES[x])
        ax.set_xscale("symlog", base=2, linthresh=1)
        ax.set_xlim(0, cap * 1.1)
        ax.set_ylim(bottom=0)
        ax.set_title("%s (capacity %d)" % (TITLES[interp], cap), fontsize=10)
        ax.set_xlabel("queued tickets")
        ax.set_ylabel("time per push+pop pair\n(x %s at 0 queued)" % NAMES[c["base"]], fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def plot_memory(runs, path):
    """The memory picture: storage per entry of each implementation on each interpreter,
    and on the micro:bit the largest queue that fits beside the library."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [i for i in ("cpython", "vm", "microbit") if i in runs and "A" in runs[i] and runs[i]["A"]["storage"]]
    mb = runs.get("microbit", {}).get("R")
    caps = [(label, mb["misc"].get(key)) for label, key in (
        ("ticketq slots,\nlibrary loaded", ("cap", "tq")), ("tuple heap entries,\nlibrary loaded", ("cap", "phl")),
        ("tuple heap entries,\nalone", ("cap", "ph")))] if mb else []
    caps = [(l, v) for l, v in caps if v]
    panels = 1 + bool(caps)
    fig, axes = plt.subplots(1, panels, figsize=(5.6 * panels, 4.2), squeeze=False)
    ax = axes[0][0]
    colors = {"tq": "C3", "hqt": "C0", "hqi": "C2", "pq": "C7", "sl": "C1", "ph": "C4"}
    impls = [x for x in NAMES if any(x in runs[i]["A"]["storage"] for i in shown)]
    width = 0.8 / max(len(impls), 1)
    for k, x in enumerate(impls):
        xs = [j + (k - (len(impls) - 1) / 2) * width for j, i in enumerate(shown) if x in runs[i]["A"]["storage"]]
        ys = [runs[i]["A"]["storage"][x][0] for i in shown if x in runs[i]["A"]["storage"]]
        bars = ax.bar(xs, ys, width, color=colors[x], label=NAMES[x])
        if x == "tq":
            ax.bar_label(bars, fmt="%.0f B", fontsize=7)
    ax.set_xticks(range(len(shown)))
    ax.set_xticklabels([TITLES[i] for i in shown], fontsize=8)
    ax.set_ylabel("storage per entry (bytes)")
    ax.set_title("Bytes per queued ticket (lower is better)", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(True, axis="y", alpha=0.3)
    if caps:
        ax = axes[0][1]
        bars = ax.bar(range(len(caps)), [v for _, v in caps], color=["C3", "C4", "C4"][:len(caps)])
        ax.bar_label(bars, fontsize=8)
        ax.set_xticks(range(len(caps)))
        ax.set_xticklabels([l for l, _ in caps], fontsize=8)
        ax.set_ylabel("entries before MemoryError")
        ax.set_title("Largest queue on the micro:bit v1 (~9.6 KB heap)", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def ensure_matplotlib(log):
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        pass
    req = os.path.join(HERE, "requirements.txt")
    if sys.prefix == sys.base_prefix:
        log("matplotlib missing: pip install -r %s (no plot this time)" % req)
        return False
    log("installing matplotlib into %s (tools/bench/requirements.txt)" % sys.prefix)
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "-r", req])
    if r.returncode:
        return False
    try:
        import matplotlib  # noqa: F401,F811
        return True
    except ImportError:
        return False
