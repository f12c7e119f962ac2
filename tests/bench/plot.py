#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Plot what `make bench` measured (tests/bench/bench.sh).

    tests/bench/plot.py [BENCH_DIR] [--out DIR] [--partition NAME]

Reads BENCH_DIR (default build/bench): bench.txt (BENCH lines,
../shared/LINES.md) and every run's NAME/serial.txt, where rtbench printed
its RTBENCH line and its log2 latency histogram (with a "[rt] " prefix under
Tempo, none bare metal). Writes PNGs into --out (default BENCH_DIR):

    latency-WORKLOAD.png   the histograms of one workload: bare metal and each
                           timer mode on the same axes
    exits-per-event.png    VM exits per guest timer event, per mode and
                           workload, host-tick exits and the rest stacked

Needs Debian's python3-matplotlib (make deps); draws with the Agg backend.
"""
import argparse
import math
import os
import re
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
except ImportError:
    sys.exit("plot.py: matplotlib is missing: make deps (Debian package python3-matplotlib)")

MODE_ORDER = ["bare", "direct", "inject", "emulated", "pv-lazy"]
MODE_COLOUR = {
    "bare": "#4d4d4d",
    "direct": "#1b9e77",
    "inject": "#d95f02",
    "emulated": "#7570b3",
    "pv-lazy": "#e7298a",
}
WORKLOAD_ORDER = ["fixed", "random", "rewrite-later", "rewrite-earlier", "cyclictest"]


def parse_kv(line):
    """TAG key=value ... -> dict (values stay strings)."""
    return dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)


def read_bench_lines(path):
    rows = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("BENCH "):
                rows.append(parse_kv(line))
    return rows


HIST_RE = re.compile(r"^rtbench:\s+(< 0|-?\d+\.\.-?\d+)\s+(\d+)$")
PART_RE = re.compile(r"^Partition '([^']+)': .* timer (\S+)$")


def read_run(path, partition):
    """One run's serial log -> dict, or None without a measured RTBENCH line."""
    prefix = "[%s] " % partition
    rt = None
    hist = []
    in_hist = False
    modes = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n").replace("\r", "")
            m = PART_RE.match(line)
            if m:
                modes[m.group(1)] = m.group(2)
                continue
            if line.startswith(prefix):
                line = line[len(prefix):]
            elif line.startswith("["):
                continue  # another partition's console
            if line.startswith("rtbench: histogram"):
                in_hist, hist = True, []
                continue
            if in_hist:
                m = HIST_RE.match(line)
                if m:
                    hist.append((m.group(1), int(m.group(2))))
                    continue
                in_hist = False
            if line.startswith("RTBENCH ") and rt is None:
                rt = parse_kv(line)
    if rt is None:
        return None
    bare = rt.get("env") == "bare"
    return {
        "label": rt.get("label", os.path.basename(os.path.dirname(path))),
        "workload": rt.get("workload", "?"),
        "mode": "bare" if bare else modes.get(partition, "?"),
        "neighbours": [] if bare else sorted(p for p in modes if p != partition),
        "rt": rt,
        "hist": hist,
    }


def bucket_index(name):
    """rtbench's log2 bucket number (guests/rtbench/latstat.c, lat_log2_bounds)."""
    if name == "< 0":
        return 0
    lo = int(name.split("..")[0])
    return 1 if lo == 0 else lo.bit_length() + 1


def bucket_name(index):
    """The name rtbench prints for bucket @index (the inverse of bucket_index)."""
    if index == 0:
        return "< 0"
    if index == 1:
        return "0..0"
    return "%d..%d" % (1 << (index - 2), (1 << (index - 1)) - 1)


def bucket_span(names):
    """Every bucket from the lowest to the highest of @names, empty ones included.

    rtbench prints only the buckets that counted something; a bucket that
    stayed empty between two full ones is a gap in the distribution, which
    the plot must show, not close up.
    """
    if not names:
        return []
    idx = [bucket_index(n) for n in names]
    return [bucket_name(i) for i in range(min(idx), max(idx) + 1)]


def bucket_label(name):
    if name == "< 0":
        return "< 0\n(early)"
    lo, hi = name.split("..")
    return lo if lo == hi else "%s-%s" % (lo, hi)


def series_name(run):
    name = run["mode"] if run["mode"] != "bare" else "bare metal"
    if run["label"].startswith("tgl-"):
        name += " (tigerlake)"  # bench.sh's rows on the APIC-virtualization model
    if run["neighbours"]:
        name += " + busy neighbour" if run["neighbours"] == ["busy"] else \
            " + " + ",".join(run["neighbours"])
    return name


def run_order(run):
    mode = run["mode"]
    return (MODE_ORDER.index(mode) if mode in MODE_ORDER else len(MODE_ORDER),
            len(run["neighbours"]), run["label"])


def plot_latency(workload, runs, out):
    runs = sorted(runs, key=run_order)
    buckets = bucket_span({b for r in runs for b, _ in r["hist"]})
    if not buckets:
        return None
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(buckets) + 3), 6))
    width = 0.8 / len(runs)
    ymax = 1
    for i, r in enumerate(runs):
        counts = dict(r["hist"])
        xs = [k + (i - (len(runs) - 1) / 2) * width for k in range(len(buckets))]
        ys = [counts.get(b, 0) for b in buckets]
        ymax = max([ymax] + ys)
        rt = r["rt"]
        label = "%s (p99 %s, max %s ticks)" % (series_name(r), rt.get("lat_p99_ticks", "na"),
                                               rt.get("lat_max_ticks", "na"))
        colour = MODE_COLOUR.get(r["mode"], None)
        ax.bar(xs, ys, width=width, label=label, color=colour,
               hatch="//" if r["neighbours"] else None,
               edgecolor="white" if r["neighbours"] else colour, linewidth=0)
    ax.set_yscale("log")
    ax.set_ylim(0.7, ymax * 2)
    ax.set_xticks(range(len(buckets)))
    ax.set_xticklabels([bucket_label(b) for b in buckets])
    ax.set_xlabel("latency: TSC at handler entry - deadline (ticks, log2 buckets)")
    ax.set_ylabel("timer events (log scale)")
    rt0 = runs[0]["rt"]
    # the hypervisor's TSC figure where there is one (bare metal calibrates its own)
    khz = next((r["rt"].get("tsc_khz") for r in runs if r["mode"] != "bare"), rt0.get("tsc_khz"))
    sub = ""
    if khz and khz.isdigit() and int(khz):
        sub = " - 1 tick = %.3g ns (TSC %s kHz)" % (1e6 / int(khz), khz)
    ax.set_title("rtbench latency, workload=%s, %s events per run%s"
                 % (workload, rt0.get("events", "?"), sub), fontsize=10)
    ax.grid(axis="y", which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
              frameon=False)
    fig.tight_layout()
    path = os.path.join(out, "latency-%s.png" % workload)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def plot_exits(rows, out):
    bars = []
    for r in rows:
        epe, events, ticks = num(r.get("exits_per_event")), num(r.get("events")), \
            num(r.get("tick_exits"))
        if epe is None or not events:
            continue
        tick_pe = ticks / events if ticks is not None else 0.0
        name = "%s\n%s" % (r.get("mode", "?"), r.get("workload", "?"))
        # shared cores: the row is not the dedicated one of the same mode
        shared = num(r.get("shared"))
        if shared is not None and shared > 1:
            name = "shared %d:\n%s" % (shared, name)
        if r.get("neighbour", "none") != "none":
            name += "\n+%s neighbour" % r["neighbour"]
        if r.get("cpu_model") != rows[0].get("cpu_model"):
            name += "\n%s" % r.get("cpu_model", "?")
        bars.append((r, name, epe, min(tick_pe, epe)))
    if not bars:
        return None

    def order(b):
        r = b[0]
        mode, wl = r.get("mode"), r.get("workload")
        return (r.get("cpu_model") != rows[0].get("cpu_model"),
                MODE_ORDER.index(mode) if mode in MODE_ORDER else 99,
                num(r.get("shared")) or 1,
                r.get("neighbour", "none") != "none",
                WORKLOAD_ORDER.index(wl) if wl in WORKLOAD_ORDER else 99)
    bars.sort(key=order)
    fig, ax = plt.subplots(figsize=(max(7, 1.05 * len(bars) + 2), 5))
    xs = range(len(bars))
    ticks = [b[3] for b in bars]
    rest = [b[2] - b[3] for b in bars]
    colours = [MODE_COLOUR.get(b[0].get("mode"), "#999999") for b in bars]
    ax.bar(xs, ticks, color="#bbbbbb")
    ax.bar(xs, rest, bottom=ticks, color=colours)
    handles = [Patch(color="#bbbbbb", label="host-tick exits (VMX-preemption timer)")]
    for mode in MODE_ORDER:
        if any(b[0].get("mode") == mode and b[2] - b[3] > 0.0005 for b in bars):
            handles.append(Patch(color=MODE_COLOUR[mode], label="%s: the other exits" % mode))
    for x, b in zip(xs, bars):
        ax.text(x, b[2], "%.3f" % b[2], ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([b[1] for b in bars], fontsize=8)
    ax.set_ylabel("VM exits per guest timer event")
    r0 = bars[0][0]
    ax.set_title("VM exits per timer event (measured vCPU; tick_us=%s, %s)"
                 % (r0.get("tick_us", "?"), r0.get("cpu_model", "?")), fontsize=10)
    ax.set_ylim(0, max(b[2] for b in bars) * 1.15 + 0.05)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(handles=handles, fontsize=8, loc="upper left")
    fig.tight_layout()
    path = os.path.join(out, "exits-per-event.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description="Plot the results of make bench.")
    ap.add_argument("bench_dir", nargs="?", default="build/bench")
    ap.add_argument("--out", help="where the PNGs go (default: BENCH_DIR)")
    ap.add_argument("--partition", default="rt", help="the measured partition (default rt)")
    args = ap.parse_args()
    out = args.out or args.bench_dir
    bench_txt = os.path.join(args.bench_dir, "bench.txt")
    if not os.path.isfile(bench_txt):
        sys.exit("plot.py: %s not found: run make bench first" % bench_txt)
    os.makedirs(out, exist_ok=True)

    runs = []
    for name in sorted(os.listdir(args.bench_dir)):
        serial = os.path.join(args.bench_dir, name, "serial.txt")
        if os.path.isfile(serial):
            r = read_run(serial, args.partition)
            if r is not None and r["hist"]:
                runs.append(r)
    written = []
    workloads = sorted({r["workload"] for r in runs},
                       key=lambda w: (WORKLOAD_ORDER.index(w) if w in WORKLOAD_ORDER else 99, w))
    for wl in workloads:
        p = plot_latency(wl, [r for r in runs if r["workload"] == wl], out)
        if p:
            written.append(p)
    p = plot_exits(read_bench_lines(bench_txt), out)
    if p:
        written.append(p)
    if not written:
        sys.exit("plot.py: nothing to plot in %s (no histograms, no BENCH lines)" % args.bench_dir)
    for p in written:
        print("plot: wrote %s" % p)


if __name__ == "__main__":
    main()
