#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Guest-side fuzzing of Tempo (guests/fuzz) beside rtbench victims, in Bochs,
# one run per timer mode of the fuzzer's partition. Each run (4 CPUs):
#   CPU 1  victim   rtbench, direct, fixed 100 us events (its own core)
#   CPU 2  fz       the fuzzer, avoid_stop=1 (runs to its end)      timer=MODE
#   CPU 3  fzw      the fuzzer, avoid_stop=0 (may be stopped: fine) timer=MODE
# shared-MODE: CPU 2 is shared by fz and victim2 (rtbench, inject) in a
# [schedule 2] of 400/400/200 us. Saved seeds (tests/guestfuzz/seeds/*.seed,
# one "mode=M cmdline=..." line each) are replayed as runs of their own.
#
#   tests/guestfuzz/run.sh [--short] [--minutes N] [--chunk N] [--seed S] [--modes "LIST"] [--out DIR]
#     --short     about 200 ms of Bochs time per mode (the run_tests.sh section)
#     --minutes   wall-clock budget per mode (default FUZZ_MINUTES or 10); the
#                 fuzzers' Bochs time is sized from it (GF_WALL_PER_BOCHS_S, 4)
#     --chunk     wall minutes per Bochs run (default GF_CHUNK_MINUTES or 2): a
#                 mode's budget is spent in runs of this length, each with
#                 seeds of its own. Single Bochs runs of 7-35 minutes stalled
#                 now and then (README: Bochs asleep writing to its pty).
# GF_JOBS (default 2) Bochs runs go at once.
#     --seed      first seed (default: 1 with --short, else the time)
#     --modes     default "direct inject emulated pv-lazy shared-inject shared-emulated shared-pv-lazy"
# Prints GUESTFUZZ_RUN, GUESTFUZZ_STOP, GUESTFUZZ_ANOMALY and GUESTFUZZ_MODE lines and ends with
#   GUESTFUZZ ops= seed= modes= stops= hv_alive=0|1 victim_lost= victim_dup= victim_stray= ...
# Without --short a quiet run (the victim alone, GF_QUIET=1) comes first and
# the fuzzed victims are held to it (like_quiet=1).
# Exits 0 only if hv_alive=1, the victims show lost=0 dup=0 stray=0 and, where
# measured, like_quiet=1. A run
# in which Tempo did not survive saves its seed under tests/guestfuzz/seeds/
# (GF_SAVE=0: only under the output directory). GF_SEEDS_DIR replays the
# seeds of another folder instead (to try one without committing it).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

BUILD=${BUILD:-build}
short=0 minutes=${FUZZ_MINUTES:-10} chunk=${GF_CHUNK_MINUTES:-2} seed="" out="" modes=""
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=1; shift ;;
	--minutes) minutes=$2; shift 2 ;;
	--chunk) chunk=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--modes) modes=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "guestfuzz: unknown option $1" >&2; exit 2 ;;
	esac
done
modes=${modes:-${FUZZ_MODES:-direct inject emulated pv-lazy shared-inject shared-emulated shared-pv-lazy}}
out=${out:-$BUILD/guestfuzz}
save=${GF_SAVE:-1}
if [ $short = 1 ]; then
	seed=${seed:-1}
	ms=${GF_MS:-200}
	save=${GF_SAVE:-0}
else
	seed=${seed:-$(date +%s)}
	[ "$chunk" -ge 1 ] 2>/dev/null || { echo "guestfuzz: --chunk needs minutes >= 1"; exit 2; }
	[ "$minutes" -lt "$chunk" ] && chunk=$minutes
	chunks=$(((minutes + chunk - 1) / chunk))
	ms=$((chunk * 60 * 1000 / ${GF_WALL_PER_BOCHS_S:-4}))
fi
chunks=${chunks:-1}
fuzz=$BUILD/guests/fuzz-mb2.elf
rtbench=$BUILD/guests/rtbench-mb2.elf
seeds_dir=${GF_SEEDS_DIR:-tests/guestfuzz/seeds}

make -s all > /dev/null || { echo "guestfuzz: make all failed"; exit 1; }
rm -rf "$out"
mkdir -p "$out"

# run_one DIR MODE FZ_CMDLINE FZW_CMDLINE MS: one Bochs run; rc in DIR/rc
run_one() {
	local dir=$1 mode=$2 fzc=$3 fzwc=$4 rms=$5 tmode=${2#shared-} count timeout
	mkdir -p "$dir"
	count=$((rms * 10 + 2000))
	{
		printf '[hypervisor]\ntick_us = 1000\n\n'
		printf '[partition victim]\ncpus = 1\nmemory = 4M\nimage = rtbench-mb2\n'
		printf 'cmdline = "workload=fixed count=%d interval_us=100 wait=busy label=victim"\n' "$count"
		printf 'timer = direct\n\n'
		if [ "$mode" != quiet ]; then
			printf '[partition fz]\ncpus = 2\nmemory = 4M\nimage = fuzz-mb2\n'
			printf 'cmdline = "%s"\ntimer = %s\n\n' "$fzc" "$tmode"
			printf '[partition fzw]\ncpus = 3\nmemory = 4M\nimage = fuzz-mb2\n'
			printf 'cmdline = "%s"\ntimer = %s\n\n' "$fzwc" "$tmode"
			if [[ $mode == shared-* ]]; then
				printf '[partition victim2]\ncpus = 2\nmemory = 4M\nimage = rtbench-mb2\n'
				printf 'cmdline = "workload=fixed count=%d interval_us=100 wait=busy label=victim2"\n' \
					$((count / 2))
				printf 'timer = inject\n\n'
				printf '[schedule 2]\nwindow = fz 400\nwindow = victim2 400\nwindow = idle 200\n'
			fi
		fi
	} > "$dir/guestfuzz.cfg"
	echo "$mode" > "$dir/mode"
	# debugcon=off: the serial file has it all; a long run's port 0xE9 stream
	# filled the emulator's pty and blocked Bochs for good (seen at 2.17M ops)
	boot/mkiso.sh "$dir/guestfuzz.iso" "$BUILD/tempo.elf" "exit=emu loglevel=3 debugcon=off" \
		"$dir/guestfuzz.cfg:partitions" "$fuzz:fuzz-mb2" "$rtbench:rtbench-mb2" \
		> "$dir/mkiso.log" 2>&1 || { echo "guestfuzz: mkiso failed ($dir)"; echo 2 > "$dir/rc"; return; }
	# Bochs: about 4 wall seconds per emulated second here, boot included
	timeout=$((120 + rms * 12 / 1000))
	tests/emu/run.sh --emu bochs --cpus 4 --iso "$dir/guestfuzz.iso" --expect ok \
		--timeout "$timeout" --out "$dir" > "$dir/run.log" 2>&1
	echo $? > "$dir/rc"
}

start=$SECONDS
runs=() k=0 pids=()
# bg CMD...: run in the background, at most GF_JOBS at once
bg() {
	"$@" &
	pids+=($!)
	if [ ${#pids[@]} -ge "${GF_JOBS:-2}" ]; then
		wait "${pids[0]}"
		pids=("${pids[@]:1}")
	fi
}
# The long runs also measure the victim alone (GF_QUIET=0: not): its
# figures are what a fuzzed run's victim is held to.
if [ "${GF_QUIET:-$((1 - short))}" = 1 ]; then
	bg run_one "$out/quiet" quiet "" "" "$ms"
	runs+=(quiet)
fi
for m in $modes; do
	for ((c = 0; c < chunks; c++)); do
		s=$((seed + k * 1000))
		bg run_one "$out/run$k" "$m" "seed=$s ms=$ms avoid_stop=1 log_every=500" \
			"seed=$((s + 1)) ms=$ms avoid_stop=0 log_every=500" "$ms"
		runs+=("run$k")
		k=$((k + 1))
	done
done
# Saved seeds: each replays in its own run, in both fuzzer slots.
for f in "$seeds_dir"/*.seed; do
	[ -f "$f" ] || continue
	m=$(sed -n 's/^mode=\([^ ]*\) .*/\1/p' "$f" | head -n 1)
	c=$(sed -n 's/^mode=[^ ]* cmdline="\(.*\)"$/\1/p' "$f" | head -n 1)
	[ -n "$m" ] && [ -n "$c" ] || { echo "guestfuzz: bad seed file $f"; continue; }
	rms=$(echo "$c" | sed -n 's/.*\bms=\([0-9]*\).*/\1/p')
	mkdir -p "$out/run$k"
	echo "$f" > "$out/run$k/replay"
	bg run_one "$out/run$k" "$m" "$c" "$c" "${rms:-1000}"
	runs+=("run$k")
	k=$((k + 1))
done
wait

# Judge every run.
declare -A mode_ops mode_runs mode_dead
total_ops=0 stops=0 alive=1 lost=0 dup=0 stray=0 worst_max=0 worst_p99=0 anomalies=0
val() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" | head -n 1; }
for r in "${runs[@]}"; do
	dir=$out/$r mode=$(cat "$out/$r/mode")
	log=$(tr -d '\r' < "$dir/serial.txt" 2>/dev/null)
	rc=$(cat "$dir/rc" 2>/dev/null || echo 2)
	run_alive=1 run_ops=0
	[ "$rc" = 0 ] || run_alive=0
	if [ "$mode" = quiet ]; then
		bench=$(echo "$log" | grep "^\\[victim\\] RTBENCH " | head -n 1)
		q_p99=$(echo "$bench" | val lat_p99_ticks) q_max=$(echo "$bench" | val lat_max_ticks)
		q_avg=$(echo "$bench" | val lat_avg_ticks) q_min=$(echo "$bench" | val lat_min_ticks)
		echo "GUESTFUZZ_QUIET run=$r rc=$rc events=$(echo "$bench" | val events)" \
			"lat_min_ticks=${q_min:-na} lat_avg_ticks=${q_avg:-na} lat_p99_ticks=${q_p99:-na}" \
			"lat_max_ticks=${q_max:-na}"
		[ "$rc" = 0 ] && [ -n "$bench" ] || { alive=0; echo "GUESTFUZZ_HV run=$r mode=quiet rc=$rc"; }
		continue
	fi
	for v in victim $([[ $mode == shared-* ]] && echo victim2); do
		line=$(echo "$log" | grep "^\\[$v\\] rtbench:   lost=" | head -n 1)
		bench=$(echo "$log" | grep "^\\[$v\\] RTBENCH " | head -n 1)
		if [ -z "$line" ] || [ -z "$bench" ]; then
			run_alive=0
			echo "GUESTFUZZ_VICTIM run=$r mode=$mode victim=$v results=missing"
			continue
		fi
		l=$(echo "$line" | val lost) d=$(echo "$line" | val dup) s=$(echo "$line" | val stray)
		lost=$((lost + l)) dup=$((dup + d)) stray=$((stray + s))
		p99=$(echo "$bench" | val lat_p99_ticks) max=$(echo "$bench" | val lat_max_ticks)
		if [ "$v" = victim ]; then
			[ "${p99:-0}" != na ] && [ "${p99:-0}" -gt $worst_p99 ] && worst_p99=$p99
			[ "${max:-0}" != na ] && [ "${max:-0}" -gt $worst_max ] && worst_max=$max
		fi
		echo "GUESTFUZZ_VICTIM run=$r mode=$mode victim=$v events=$(echo "$bench" | val events)" \
			"lost=$l early=$(echo "$line" | val early) dup=$d stray=$s" \
			"lat_avg_ticks=$(echo "$bench" | val lat_avg_ticks) lat_p99_ticks=$p99 lat_max_ticks=$max"
	done
	for p in fz fzw; do
		done_line=$(echo "$log" | grep "^\\[$p\\] FUZZ_DONE " | head -n 1)
		last=$(echo "$log" | grep "^\\[$p\\] FUZZ op=" | tail -n 1)
		pseed=$(echo "$log" | grep "^\\[$p\\] FUZZ_START " | val seed)
		if [ -n "$done_line" ]; then
			n=$(echo "$done_line" | val ops)
		else
			n=$(echo "$last" | val op)
			n=$(( ${n:-0} + 1 ))
		fi
		run_ops=$((run_ops + n))
		stop=$(echo "$log" | grep "^PARTITION_STOP name=$p " | head -n 1)
		if [ -n "$stop" ]; then
			stops=$((stops + 1))
			echo "GUESTFUZZ_STOP run=$r mode=$mode part=$p seed=${pseed:-na}" \
				"reason=$(echo "$stop" | val reason) last_op=$(echo "$last" | val op)" \
				"last_name=$(echo "$last" | val name) may_stop=$(echo "$last" | grep -c may_stop=1)"
		elif [ -z "$done_line" ]; then
			echo "GUESTFUZZ_STOP run=$r mode=$mode part=$p seed=${pseed:-na} reason=no_end" \
				"last_op=$(echo "$last" | val op) last_name=$(echo "$last" | val name)"
			[ "$run_alive" = 1 ] && run_alive=0
		fi
	done
	a=$(echo "$log" | grep -c '^\[fzw\?\] FUZZ_ANOMALY ')
	anomalies=$((anomalies + a))
	echo "$log" | grep '^\[fzw\?\] FUZZ_ANOMALY ' | sed "s/^\\[\\(fzw\\?\\)\\] FUZZ_ANOMALY /GUESTFUZZ_ANOMALY run=$r mode=$mode part=\\1 /" | head -n 40
	# What the hypervisor said when it did not finish well
	if [ $run_alive = 0 ]; then
		alive=0
		echo "GUESTFUZZ_HV run=$r mode=$mode rc=$rc $(tail -n 1 "$dir/run.log" 2>/dev/null)"
		echo "$log" | grep -v '^\[' | grep -iE 'exception|fault|TEMPO_EXIT|panic|halt' | head -n 8 | sed 's/^/  /'
		if [ ! -f "$dir/replay" ]; then
			c=$(sed -n 's/^cmdline = "\(seed=[0-9]* .*avoid_stop=1.*\)"$/\1/p' "$dir/guestfuzz.cfg" | head -n 1)
			cw=$(sed -n 's/^cmdline = "\(seed=[0-9]* .*avoid_stop=0.*\)"$/\1/p' "$dir/guestfuzz.cfg" | head -n 1)
			for cc in "$c" "$cw"; do
				sf="$out/new-seeds/$mode-$(echo "$cc" | val seed).seed"
				mkdir -p "$out/new-seeds"
				echo "mode=$mode cmdline=\"$cc\"" > "$sf"
				[ "$save" = 1 ] && mkdir -p "$seeds_dir" && cp "$sf" "$seeds_dir/"
			done
			echo "  saved: $(ls "$out/new-seeds" | tr '\n' ' ')"
		fi
	fi
	total_ops=$((total_ops + run_ops))
	if [ ! -f "$dir/replay" ]; then
		mode_ops[$mode]=$(( ${mode_ops[$mode]:-0} + run_ops ))
		mode_runs[$mode]=$(( ${mode_runs[$mode]:-0} + 1 ))
		[ "$run_alive" = 1 ] || mode_dead[$mode]=1
	fi
	echo "GUESTFUZZ_RUN run=$r mode=$mode ops=$run_ops hv_alive=$run_alive rc=$rc" \
		"anomalies=$a$( [ -f "$dir/replay" ] && echo " replay=$(basename "$(cat "$dir/replay")")")"
done
for m in $modes; do
	echo "GUESTFUZZ_MODE mode=$m runs=${mode_runs[$m]:-0} ops=${mode_ops[$m]:-0}" \
		"bochs_ms=$(( ${mode_runs[$m]:-0} * ms )) hv_alive=$((1 - ${mode_dead[$m]:-0}))"
done
# Held to the quiet run: p99 within 10 ticks of it, the worst case within one
# more tick exit (the quiet worst case is one tick exit on a deadline).
like_quiet=na
if [ -n "${q_p99:-}" ] && [ "$q_p99" != na ] && [ -n "${q_max:-}" ] && [ "$q_max" != na ]; then
	like_quiet=1
	[ "$worst_p99" -le $((q_p99 + 10)) ] && [ "$worst_max" -le $((2 * q_max)) ] || like_quiet=0
fi
echo "GUESTFUZZ ops=$total_ops seed=$seed modes=$(echo "$modes" | tr ' ' ',') stops=$stops" \
	"hv_alive=$alive victim_lost=$lost victim_dup=$dup victim_stray=$stray" \
	"victim_lat_p99_ticks=$worst_p99 victim_lat_max_ticks=$worst_max" \
	"quiet_lat_p99_ticks=${q_p99:-na} quiet_lat_max_ticks=${q_max:-na} like_quiet=$like_quiet" \
	"anomalies=$anomalies ms_per_run=$ms runs=${#runs[@]} wall_s=$((SECONDS - start))"
[ $alive = 1 ] && [ $lost = 0 ] && [ $dup = 0 ] && [ $stray = 0 ] && [ $like_quiet != 0 ]
