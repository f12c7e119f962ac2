#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The exit path's length, guarded (make test, section `guard`). Bochs counts
# one TSC tick per instruction, so a path's length is a fact, not a timing:
# a few short bench rows (tests/bench/bench.sh) run on the normal build and
# on the profile build (make PROFILE=1, hv/ops/prof.h), and each row's
# latency (avg, p99, max) and each BENCH_PATH segment of the paths listed
# in tests/bench/budget.txt is held to its budget there. Any figure past its
# budget fails, naming the row or path, the figure and both numbers. A
# budget is raised only by editing budget.txt, with the reason in the commit.
#
#   tests/bench/guard.sh [OUTDIR]          build, run the rows, check
#   tests/bench/guard.sh --check OUTDIR    check the rows already run there
#                                          (OUTDIR/rows and OUTDIR/prof)
# Prints one `GUARD what= key= value= budget= ok=0|1` line per figure and
# ends with `GUARD checked=N over=N`; exit status 0 only with none over.
set -uo pipefail
cd "$(dirname "$0")/../.."

BUDGET=${GUARD_BUDGET:-tests/bench/budget.txt}
# the rows the guard runs: short (BENCH_COUNT), the ones whose path a timer event takes
ROWS="emulated-fixed emulated-random inject-random pv-lazy-fixed direct-random"
PROF_ROWS="emulated-fixed inject-random direct-random"
COUNT=${GUARD_COUNT:-500}

check_only=0
if [ "${1:-}" = --check ]; then
	check_only=1
	shift
fi
out=${1:-${BUILD:-build}/guard}

if [ $check_only = 0 ]; then
	mkdir -p "$out"
	make -s all > "$out/build.log" 2>&1 && make -s PROFILE=1 all >> "$out/build.log" 2>&1 ||
		{ echo "guard: build failed (see $out/build.log)"; tail -n 20 "$out/build.log"; exit 1; }
	BENCH_ROWS="$ROWS" BENCH_COUNT=$COUNT BENCH_JOBS=2 tests/bench/bench.sh "$out/rows" \
		> "$out/rows.log" 2>&1
	BUILD=build-profile BENCH_ROWS="$PROF_ROWS" BENCH_COUNT=$COUNT BENCH_JOBS=2 \
		tests/bench/bench.sh "$out/prof" > "$out/prof.log" 2>&1
fi

[ -f "$BUDGET" ] || { echo "guard: no budget file $BUDGET"; exit 1; }

# The exit stub's step (arch/x86/vmx_entry.S exit_aside): its instructions
# from the exit to its VMRESUME, counted in the plain build's stub for an
# entry mitigation (STUB: none, l1d, verw; and each _scaled, for a
# preemption-timer rate other than 0), whose step falls through every
# branch it passes. A fact of the code, as the rows' counts are of Bochs'
# runs; each must equal its EA_STEP_TICKS* (arch/x86/vmx_defs.h), by which
# that stub counts its hits. It reads the build there now (with --check
# too, not necessarily the one that ran the rows).
step_instr() {
	objdump -d --no-show-raw-insn "${BUILD:-build}/tempo.elf" 2> /dev/null |
		awk -v sym="<vmx_exit_aside_${1:-none}>:" '$2 == sym { on = 1; next }
		     on && /^ *[0-9a-f]+:\t/ { n++; if ($0 ~ /\tvmresume/) { print n; exit } }
		     on && /^$/ { exit }'
}

# value WHAT KEY: the figure now; a row's from its BENCH line, a path's from
# its BENCH_PATH line (WHAT is ROW:PATH:REASON, rt's vCPU 0, profile build),
# the stub's step from the build (WHAT stub-step, KEY instr)
value() {
	local what=$1 key=$2 row path reason line
	case $what in
	stub-step)
		[ "$key" = instr ] && step_instr
		return
		;;
	*:*:*)
		IFS=: read -r row path reason <<< "$what"
		line=$(tr -d '\r' < "$out/prof/$row/serial.txt" 2> /dev/null |
			grep -E "^BENCH_PATH partition=rt vcpu=0 path=$path reason=$reason " | head -n 1)
		;;
	*)
		line=$(grep -E "^BENCH row=$what " "$out/rows/bench.txt" 2> /dev/null | head -n 1)
		;;
	esac
	echo "$line" | tr ' ' '\n' | sed -n "s/^$key=//p" | head -n 1
}

checked=0 over=0
while read -r what key budget _; do
	case $what in '' | '#'*) continue ;; esac
	checked=$((checked + 1))
	v=$(value "$what" "$key")
	if [ -z "$v" ]; then
		echo "GUARD what=$what key=$key value=none budget=$budget ok=0"
		over=$((over + 1))
	elif [ "$v" -gt "$budget" ]; then
		echo "GUARD what=$what key=$key value=$v budget=$budget ok=0"
		over=$((over + 1))
	else
		echo "GUARD what=$what key=$key value=$v budget=$budget ok=1"
	fi
done < "$BUDGET"
# each stub's hit test counts with its step's own length: EA_STEP_TICKS, and
# the mitigations' and the scaled stubs' EA_STEP_TICKS_*, as the C
# preprocessor adds them up from vmx_defs.h
ea_step_ticks() {
	local name=EA_STEP_TICKS v
	[ "$1" = none ] || name+=_${1#none_}
	v=$(printf '#include "arch/x86/vmx_defs.h"\n%s\n' "${name^^}" |
		${CC:-cc} -E -P -I. - 2> /dev/null | tail -n 1)
	[[ -n $v && $v =~ ^[0-9()+\ ]*$ ]] && echo $((v))
}
for stub in none l1d verw none_scaled l1d_scaled verw_scaled; do
	ticks=$(ea_step_ticks $stub)
	steps=$(step_instr $stub)
	checked=$((checked + 1))
	if [ -n "$steps" ] && [ "$steps" = "$ticks" ]; then
		echo "GUARD what=stub-step:$stub key=ea_step_ticks value=$ticks budget=$steps ok=1"
	else
		echo "GUARD what=stub-step:$stub key=ea_step_ticks value=${ticks:-none}" \
			"budget=${steps:-none} ok=0 (its EA_STEP_TICKS must be the step's instructions)"
		over=$((over + 1))
	fi
done
echo "GUARD checked=$checked over=$over"
[ "$checked" -gt 0 ] && [ "$over" -eq 0 ]
