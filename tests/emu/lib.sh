# SPDX-License-Identifier: MIT
# The emulator tests' shared helpers: reading the serial log, booting through
# tests/emu/run.sh, and the checks several subjects make (rtbench's figures,
# host ticks, hello's run, channel lines, the console driver). Sourced by
# tests/emu/tests.sh before the subject files, and by tests/linux/bench.sh.

DEMO_ISO=${BUILD:-build}/tempo.iso
TEST_ISO_DIR=${BUILD:-build}/test
ISO=$TEST_ISO_DIR/platform.iso	# no partition config: the platform report only

# The serial log without carriage returns and terminal escapes.
serial() {
	tr -d '\r' < "$1/serial.txt" | sed 's/\x1b\[[0-9;=]*[A-Za-z]//g'
}

# need OUT REGEX WHAT: the serial log must have a line matching REGEX. (No grep -q
# after a pipe: under pipefail its early exit fails the pipeline by SIGPIPE.)
need() {
	serial "$1" | grep -E -- "$2" > /dev/null && return 0
	echo "missing: $3 (/$2/)"
	return 1
}

# count_lines OUT REGEX
count_lines() {
	serial "$1" | grep -Ec -- "$2"
}

# bochs OUT RUN_SH_ARGS..., qemu OUT RUN_SH_ARGS...: one boot through tests/emu/run.sh
bochs() { tests/emu/run.sh --emu bochs --timeout 120 --out "$@"; }
qemu() { tests/emu/run.sh --timeout 120 --out "$@"; }

# kv LINE KEY
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# window OUT KEY [PARTITION]: KEY's growth between the two VCPU_STATS lines of
# the partition's vCPU 0 (rtbench takes them around its measurement loop)
window() {
	local a b p=${3:-rt}
	a=$(serial "$1" | grep -E "^VCPU_STATS partition=$p vcpu=0 " | sed -n 1p)
	b=$(serial "$1" | grep -E "^VCPU_STATS partition=$p vcpu=0 " | sed -n 2p)
	[ -n "$a" ] && [ -n "$b" ] || { echo "no VCPU_STATS pair" >&2; return 1; }
	echo $(($(kv "$b" "$2") - $(kv "$a" "$2")))
}

# stats_delta OUT PARTITION KEY: KEY's growth between the partition's two VCPU_STATS lines
stats_delta() { window "$1" "$3" "$2"; }

# rtbench_line OUT PARTITION: its RTBENCH line
rtbench_line() {
	serial "$1" | grep -E "^\\[$2\\] RTBENCH " | sed "s/^\\[$2\\] //"
}

# rtbench_clean OUT EVENTS [PARTITION]: all events measured, none lost, early or doubled
rtbench_clean() {
	local line
	line=$(rtbench_line "$1" "${3:-rt}")
	[ -n "$line" ] || { echo "no RTBENCH line"; return 1; }
	[ "$(kv "$line" events)" = "$2" ] && [ "$(kv "$line" lost)" = 0 ] &&
		[ "$(kv "$line" early)" = 0 ] && [ "$(kv "$line" dup)" = 0 ] ||
		{ echo "timer events not clean: $line"; return 1; }
}

# late_events OUT PARTITION MIN: how many of the partition's events rtbench's
# log2 histogram puts at MIN ticks late or more (MIN a power of two)
late_events() {
	serial "$1" | awk -v p="[$2]" -v min="$3" '
		$1 == p && $2 == "rtbench:" && $3 ~ /^[0-9]+\.\.[0-9]+$/ {
			split($3, r, "\\.\\."); if (r[1] + 0 >= min) n += $4 }
		END { print n + 0 }'
}

# rt_undisturbed OUT QUIET WHAT: rt's 10,000 random events beside WHAT (OUT)
# against the same run without it (QUIET): p99 within 10 ticks, and no
# more than 15 more events 8 ticks late or more (as in bochs_shared: 3
# standard deviations of the difference of two such counts). The max is
# not compared: rt's worst events meet a host tick whose step-aside ran out
# (its 50-150 us deadlines keep falling in the tick's window), and where in
# that exit depends on how Bochs interleaves the busy CPUs. Measured:
# beside the flood 772 against 448 quiet (15 and 7 late events), beside
# the restarts 245 against 721 quiet (5 and 7), on ivy_bridge; 608 against
# 453 (12 and 11) on tigerlake. A kick or a flush WHAT caused on rt's core
# would cost hundreds of ticks on a share of the events, not a few.
rt_undisturbed() {
	local q l late_l late_q
	q=$(rtbench_line "$2" rt) l=$(rtbench_line "$1" rt)
	[ "$(late_events "$1" rt 0)" = 10000 ] && [ "$(late_events "$2" rt 0)" = 10000 ] ||
		{ echo "rt's latency histogram does not hold its 10,000 events"; return 1; }
	late_l=$(late_events "$1" rt 8) late_q=$(late_events "$2" rt 8)
	[ $(($(kv "$l" lat_p99_ticks) - $(kv "$q" lat_p99_ticks))) -le 10 ] &&
		[ "$late_l" -le $((late_q + 15)) ] ||
		{ echo "rt beside $3: $late_l events 8+ ticks late, $late_q quiet: $l; quiet: $q"; return 1; }
}

# ticks_on_time OUT CPU MIN_TICKS [LATE]: host ticks kept coming, none later than LATE
# (1000) TSC ticks past the slack a dedicated core may place them by (slack_ticks,
# tick_slack_us in docs/timer-modes.md)
ticks_on_time() {
	local h slack late=${4:-1000}
	h=$(serial "$1" | grep -E "^HOSTTICK cpu=$2 ")
	[ -n "$h" ] || { echo "no HOSTTICK line for CPU $2"; return 1; }
	slack=$(kv "$h" slack_ticks)
	[ -n "$slack" ] && [ "$(kv "$h" offset_max_ticks)" -le "$slack" ] ||
		{ echo "tick placed past its slack: $h"; return 1; }
	[ "$(kv "$h" missed)" = 0 ] && [ "$(kv "$h" late_max_ticks)" -lt $((slack + late)) ] &&
		[ "$(kv "$h" ticks)" -ge "$3" ] || { echo "host ticks late or missing: $h"; return 1; }
}

# apicv_on OUT: Tempo said it uses APIC virtualization (a model that has it)
apicv_on() { serial "$1" | grep '^VMX: APIC virtualization on' > /dev/null; }

# hello_ran OUT NAME MB CPUS APIC_IDS: a hello guest ran to its end in NAME
hello_ran() {
	need "$1" "^\\[$2\\] hello: start \\(multiboot$3\\) " "[$2] started as multiboot$3" &&
	need "$1" "^\\[$2\\] hello: under Tempo$" "[$2] detects Tempo by CPUID" &&
	need "$1" "^\\[$2\\] hello: partition=$2 vcpus=$4 memory=[0-9]+$" "[$2] info hypercall" &&
	need "$1" "^\\[$2\\] hello: hypercall console ok$" "[$2] console hypercall" &&
	need "$1" "^\\[$2\\] hello: cpus=$4 apic_ids=$5$" "[$2] sees only its CPUs ($5)" &&
	need "$1" "^\\[$2\\] hello: all $4 CPUs online$" "[$2] started its APs" &&
	need "$1" "^\\[$2\\] hello: done$" "[$2] finished" &&
	need "$1" "^PARTITION_END name=$2 state=shutdown exit_code=0$" "[$2] shut down cleanly"
}

# ends_whole OUT: the serial log ends with the TEMPO_EXIT line and its newline
# (the emulator quits at once: Tempo waits for the UART to drain first)
ends_whole() {
	[ "$(tail -c 1 "$1/serial.txt" | od -An -c | tr -d ' ')" = '\n' ] &&
		tr -d '\r' < "$1/serial.txt" | tail -n 1 | grep '^TEMPO_EXIT ' > /dev/null && return 0
	echo "the log's end was cut: $(tail -c 40 "$1/serial.txt" | od -An -c | tr -s ' ' | tr -d '\n')"
	return 1
}

# chan_line OUT PARTITION ROLE [PHASE]: its CHANTEST line (without PHASE: the one with no phase=)
chan_line() {
	local l
	l=$(serial "$1" | grep -E "^\\[$2\\] CHANTEST role=$3 " | sed "s/^\\[$2\\] //")
	if [ -n "${4:-}" ]; then
		echo "$l" | grep -E "^CHANTEST role=$3 phase=$4 " | head -n 1
	else
		echo "$l" | grep -v ' phase=' | head -n 1
	fi
}

# ping_pong_clean LOG N RTT: ping's N one-way doorbells and pong's RTT
# answers all arrived, once each, the receiver took no exit for them and the
# sender one a ring, and the channel's counts agree; the run ended whole
ping_pong_clean() {
	local r s ex tick n=$2 rtt=$3 recv_exits=${4:-0}
	r=$(chan_line "$1" pong recv) s=$(chan_line "$1" ping send)
	[ -n "$r" ] && [ -n "$s" ] || { echo "no CHANTEST lines"; return 1; }
	[ "$(kv "$r" received)" = "$n" ] && [ "$(kv "$r" doorbells)" = "$n" ] &&
		[ "$(kv "$r" lost)" = 0 ] && [ "$(kv "$r" doubled)" = 0 ] &&
		[ "$(kv "$r" checksum_ok)" = 1 ] && [ "$(kv "$r" strays)" = 0 ] &&
		[ "$(kv "$s" lost)" = 0 ] && [ "$(kv "$s" dropped)" = 0 ] ||
		{ echo "one-way doorbells not clean: $r / $s"; return 1; }
	r=$(chan_line "$1" pong recv rtt) s=$(chan_line "$1" ping send rtt)
	[ "$(kv "$r" answered)" = "$rtt" ] && [ "$(kv "$s" lost)" = 0 ] && [ "$(kv "$s" strays)" = 0 ] ||
		{ echo "round trips not clean: $r / $s"; return 1; }
	ex=$(stats_delta "$1" pong exits) tick=$(stats_delta "$1" pong tick_exits) || return 1
	[ $((ex - tick - 1)) -eq "$recv_exits" ] || { echo "the receiver took $((ex - tick - 1)) exits besides host ticks for $n doorbells"; return 1; }
	ex=$(stats_delta "$1" ping exits) tick=$(stats_delta "$1" ping tick_exits) || return 1
	[ $((ex - tick)) -eq $((n + 1)) ] || { echo "the sender took $((ex - tick - 1)) exits for $n rings"; return 1; }
	need "$1" "^CHANNEL name=link peer=ping access=rw rings=$((n + rtt)) throttled=0 delivered=$rtt dropped=0\$" "ping's counts" &&
		need "$1" "^CHANNEL name=link peer=pong access=rw rings=$rtt throttled=0 delivered=$((n + rtt)) dropped=0\$" "pong's counts" &&
		ends_whole "$1"
}

# script_gave_up OUT FOLDER MSG: a run whose console script (OUT/FOLDER's
# drive.txt; FOLDER empty: COM1's, in OUT) waits at its step 4 for a line
# never printed, its steps to 3 passed, was ended there by run.sh with Tempo
# still running, and said so in MSG, naming FOLDER when there is one
script_gave_up() {
	local out=$1 dir=${2:+$1/$2} msg=$3 where=${2:+ .*($2/drive.txt)}
	echo "$msg" | grep -q "the console script failed, so the run was ended: DRIVE step=4 ok=0 what=expect pattern='^this line is never printed\$'$where" ||
		{ echo "not ended for the script's failure: $msg"; return 1; }
	grep -q '^DRIVE step=3 ok=1 ' "${dir:-$out}/drive.txt" && ! serial "$out" | grep '^TEMPO_EXIT' > /dev/null ||
		{ echo "the script's first steps did not pass, or Tempo had ended"; return 1; }
	echo "ended at the script's miss: $(cat "$out/script-failed.txt")"
}

# console_run OUT SCRIPT TIMEOUT RUN_SH_ARGS...: Bochs with COM1 on a loopback
# socket that tests/emu/console_drive.py types SCRIPT into; every step must pass
console_run() {
	local out=$1 script=$2 limit=$3 port drv
	shift 3
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
		{ echo "no free loopback port"; return 1; }
	mkdir -p "$out"
	rm -f "$out/serial.done" "$out/drive.txt"
	timeout $((limit + 60)) python3 tests/emu/console_drive.py "$port" "$out" "$script" &
	drv=$!
	bochs "$out" --timeout "$limit" --com1-socket "$port" "$@" ||
		{ wait $drv; grep 'ok=0' "$out/drive.txt"; return 1; }
	wait $drv || { grep 'ok=0' "$out/drive.txt"; return 1; }
	grep -q '^DRIVE done ok=1$' "$out/drive.txt" || { echo "the console script did not finish"; return 1; }
}
