#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# boot/rtdemo-table.sh, the `make run` table, on a saved `make run` serial
# log (tests/tools/rtdemo/: its RTBENCH, VCPU_STATS, HOSTTICK and Partition
# lines, and the bare-metal run's RTBENCH line): the rows it computes, the
# same rows when the console has not cut the RTBENCH lines, and a log with
# no results refused.
#   tests/tools/test_rtdemo_table.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/tempo-rtdemo.XXXXXX")
trap 'rm -rf "$work"' EXIT
d=tests/tools/rtdemo
failed=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

# exits/event = (3768 - 665) / 30000 and (94169 - 677) / 30000, from the two
# VCPU_STATS lines of each; us = ticks / 50 (tsc_khz=50000); tick late from
# HOSTTICK of the partition's CPU (1 and 2)
want=$(cat <<'ROWS'
rt-direct    direct      30000   0.10        0        1        4      216      0.00    0.02    0.08    4.32       332
rt-emulated  emulated    30000   3.12      362      561      585      869      7.24   11.22   11.70   17.38       570
bare metal   no Tempo    30000      0        2        6       11       11      0.04    0.12    0.22    0.22        na
ROWS
)
rows() { grep -E '^(rt-[a-z]+ |bare metal  )' "$1"; }

if boot/rtdemo-table.sh "$d/serial.txt" "$d/bare.txt" > "$work/table.txt" 2>&1 &&
	[ "$(rows "$work/table.txt")" = "$want" ]; then
	pass rtdemo_table
else
	fail rtdemo_table "$(tr '\n' '|' < "$work/table.txt")"
fi

# The same log with each RTBENCH line whole (the console cuts long lines).
awk 'join { sub(/^\[[^]]*\] /, ""); printf "%s\n", $0; join = 0; next }
	/ RTBENCH / { printf "%s", $0; join = 1; next } { print }' "$d/serial.txt" > "$work/whole.txt"
if [ "$(grep -c ' RTBENCH ' "$work/whole.txt")" = 2 ] &&
	! grep -q '^\[rt-direct\] ed=3' "$work/whole.txt" &&
	boot/rtdemo-table.sh "$work/whole.txt" "$d/bare.txt" > "$work/table2.txt" 2>&1 &&
	[ "$(rows "$work/table2.txt")" = "$want" ]; then
	pass rtdemo_table_whole_lines
else
	fail rtdemo_table_whole_lines "$(tr '\n' '|' < "$work/table2.txt")"
fi

# Cut where the figures are: lat_max_ticks=2 | 16 (and tsc_khz on the next
# line), so only a correct join gives 216 and the us columns.
sed -e 's/^\(\[rt-direct\] RTBENCH .*lat_max_ticks=2\)\(16 .*\)/\1\n[rt-direct] \2/' \
	"$work/whole.txt" > "$work/cut.txt"
if grep -qx '\[rt-direct\] 16 tsc_khz=50000 .*' "$work/cut.txt" &&
	boot/rtdemo-table.sh "$work/cut.txt" "$d/bare.txt" > "$work/table3.txt" 2>&1 &&
	[ "$(rows "$work/table3.txt")" = "$want" ]; then
	pass rtdemo_table_cut_in_a_figure
else
	fail rtdemo_table_cut_in_a_figure "$(tr '\n' '|' < "$work/table3.txt")"
fi

grep -v RTBENCH "$d/serial.txt" > "$work/none.txt"
if boot/rtdemo-table.sh "$work/none.txt" > "$work/out.txt" 2>&1; then
	fail rtdemo_table_no_results "exit status 0"
elif grep -q 'no RTBENCH line' "$work/out.txt"; then
	pass rtdemo_table_no_results
else
	fail rtdemo_table_no_results "$(cat "$work/out.txt")"
fi

exit $failed
