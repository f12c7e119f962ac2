#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/bench/plot.py keeps the latency histogram's empty buckets: rtbench
# prints only the log2 buckets that counted something, and a bucket left
# empty between two full ones is information (a gap) the plot must show.
# matplotlib is replaced by a recorder, so the test needs no display and
# no python3-matplotlib, and checks the x axis the plot would draw.
#   tests/tools/test_plot_buckets.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

out=$(python3 - <<'PY' 2>&1
import importlib.util
import sys
import types

calls = {}


class Recorder:
    def __getattr__(self, name):
        def record(*args, **kwargs):
            calls.setdefault(name, []).append(args)
            return Recorder()
        return record


mpl = types.ModuleType("matplotlib")
mpl.use = lambda *a, **k: None
pyplot = types.ModuleType("matplotlib.pyplot")
pyplot.subplots = lambda *a, **k: (Recorder(), Recorder())
pyplot.close = lambda *a, **k: None
patches = types.ModuleType("matplotlib.patches")
patches.Patch = object
mpl.pyplot, mpl.patches = pyplot, patches
sys.modules.update({"matplotlib": mpl, "matplotlib.pyplot": pyplot,
                    "matplotlib.patches": patches})
spec = importlib.util.spec_from_file_location("plot", "tests/bench/plot.py")
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)

bad = []
# every bucket name rtbench prints maps to its number and back
for i in range(0, 40):
    if plot.bucket_index(plot.bucket_name(i)) != i:
        bad.append("bucket %d round trip: %s" % (i, plot.bucket_name(i)))
for name, want in (("< 0", 0), ("0..0", 1), ("1..1", 2), ("2..3", 3), ("64..127", 8)):
    if plot.bucket_index(name) != want:
        bad.append("%s is bucket %d, not %d" % (name, plot.bucket_index(name), want))
if plot.bucket_span([]) != []:
    bad.append("no buckets: %r" % plot.bucket_span([]))

# bare metal counted 0..0 and 8..15, a mode 2..3 and 64..127: every bucket
# from 0..0 to 64..127 is on the axis, the empty ones at 0
runs = [
    {"label": "bare", "mode": "bare", "neighbours": [], "rt": {"events": "10"},
     "hist": [("0..0", 5), ("8..15", 5)]},
    {"label": "d", "mode": "direct", "neighbours": [], "rt": {"tsc_khz": "50000"},
     "hist": [("2..3", 9), ("64..127", 1)]},
]
plot.plot_latency("fixed", runs, "/nonexistent")
labels = list(calls["set_xticklabels"][0][0])
want = ["0", "1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127"]
if labels != want:
    bad.append("x axis %r, expected %r" % (labels, want))
heights = [list(c[1]) for c in calls["bar"]]
if heights != [[5, 0, 0, 0, 5, 0, 0, 0], [0, 0, 9, 0, 0, 0, 0, 1]]:
    bad.append("bars %r" % heights)
print("\n".join(bad) if bad else "ok")
PY
)
if [ "$out" = ok ]; then
	echo "PASS plot_empty_buckets"
else
	echo "FAIL plot_empty_buckets: $(echo "$out" | tr '\n' '|')"
	exit 1
fi
