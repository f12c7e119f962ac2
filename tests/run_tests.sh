#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole suite: host unit tests, then the emulator tests. Ends with one
# line "N passed, N failed"; exits non-zero if anything failed.
#   tests/run_tests.sh [--list] [layering|unit|fuzz|guard|emu|matrix|attack|vmcs|guestfuzz|linux|grub|tools|kut] [NAME_FILTER]
# (all runs kut's quick part; kut alone runs every kvm-unit-tests run)
# --list runs nothing: one line "SECTION NAME" per test it would run, so that
# a change to the runner can be checked to run the same tests. NAME_FILTER is
# a part of the names the emulator sections print (TEST or TEST@MODEL) and
# of kvm-unit-tests' "TEST MODE".
# The emulator sections run their tests two at a time with GNU parallel
# (EMU_JOBS=1: one at a time), each through tests/emu/one.sh.
set -uo pipefail
cd "$(dirname "$0")/.."

listing=0
[ "${1:-}" = --list ] && { listing=1; shift; }
what=${1:-all}
filter=${2:-}
BUILD=${BUILD:-build}
logdir=$BUILD/test-logs
mkdir -p "$logdir"
passed=0
failed=0
failures=()

pass() { passed=$((passed + 1)); printf 'PASS %s\n' "$1"; }
# list_only SECTION NAME...: with --list, print each NAME's line and succeed
# (the section's body is skipped); without, fail and print nothing
list_only() {
	[ "$listing" = 1 ] || return 1
	listed "$@"
}
# listed SECTION NAME...: the --list line of each
listed() {
	local n s=$1
	shift
	for n in "$@"; do printf '%s %s\n' "$s" "$n"; done
}
fail() { failed=$((failed + 1)); failures+=("$1"); printf 'FAIL %s: %s\n' "$1" "$2"; }

# tally NAME RC OK BAD LOG WHAT: add a section's counts to the totals; a
# non-zero exit with no failure counted is a failure of its own (a build or
# harness error), shown with the log's tail
tally() {
	passed=$((passed + $3))
	if [ "$4" -gt 0 ]; then
		failed=$((failed + $4))
		failures+=("$1: $4 $6 (see $5)")
	fi
	if [ "$2" -ne 0 ] && [ "$4" -eq 0 ]; then
		fail "$1-run" "exited $2 (see $5)"
		tail -n 30 "$5"
	fi
}

# run_emu ENTRY...: emulator tests, an ENTRY being TEST or TEST@MODEL (on
# that Bochs model), each run by tests/vmcscheck/emu.sh once the checking
# build is made (vmcs_ready: a Bochs test on it, judged by its own assertions
# and the VMCS checker; the rest by tests/emu/one.sh on the plain build),
# else by tests/emu/one.sh, EMU_JOBS (2) at a time by
# GNU parallel: these machines have 2 cores and an emulator keeps one busy,
# so a long test takes one core while the other runs the rest beside it.
# They start in the order given, a PASS or FAIL line each as it ends (the
# section vmcs sets emu_one and emu_build: its own runner and build). Sets
# emu_result[ENTRY] (PASS or FAIL) and emu_secs[ENTRY] (its run time, from
# parallel's job log) for the MODEL lines.
declare -A emu_result emu_secs
run_emu() {
	local e st name rest seq secs entries=() joblog=$logdir/jobs-$section.log
	for e in "$@"; do
		[ -n "$filter" ] && [[ $e != *$filter* ]] && continue
		entries+=("$e")
	done
	if [ "$listing" = 1 ]; then
		listed "$section" "${entries[@]}"
		return
	fi
	[ ${#entries[@]} -gt 0 ] || return 0
	emu_result=() emu_secs=()
	while read -r st name rest; do
		case $st in
		PASS) pass "$name $rest"; emu_result[$name]=PASS ;;
		FAIL) fail "${name%:}" "$rest"; emu_result[${name%:}]=FAIL ;;
		# the checker's counts are on the PASS line too: shown in vmcs only
		VMCS_CHECK_TEST) [ "$section" != vmcs ] || echo "$st $name $rest" ;;
		*) echo "$st $name $rest" ;;
		esac
	done < <(BUILD="${emu_build:-$BUILD}" VMCS_CHECK_BUILD="$vmcs_build" \
		parallel --will-cite -j "${EMU_JOBS:-2}" --joblog "$joblog" \
		"${emu_one:-$emu_one_default}" ::: "${entries[@]}")
	# the job log's Seq is the entry's place in the list
	while IFS=$'\t' read -r seq _ _ secs _; do
		[[ $seq =~ ^[0-9]+$ ]] && emu_secs[${entries[seq - 1]}]=${secs%.*}
	done < "$joblog"
	for e in "${entries[@]}"; do
		[ -n "${emu_result[$e]:-}" ] ||
			{ fail "$e" "no PASS or FAIL line from ${emu_one:-$emu_one_default} (see $joblog)"; emu_result[$e]=FAIL; }
	done
}

# emu_model_line MODEL PART SUFFIX: the MODEL line of the last run_emu's
# entries that end in SUFFIX (@MODEL, or empty: those that name no model);
# wall_s is the seconds they ran, added up
emu_model_line() {
	local e ok=0 bad=0 secs=0 n=0
	for e in "${!emu_result[@]}"; do
		if [ -n "$3" ]; then [[ $e == *"$3" ]] || continue; else [[ $e != *@* ]] || continue; fi
		n=$((n + 1))
		secs=$((secs + ${emu_secs[$e]:-0}))
		if [ "${emu_result[$e]}" = PASS ]; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
	done
	[ "$n" -eq 0 ] || model_line "$1" "$2" "$ok" "$bad" "$secs"
}

# One line per CPU model and part for the summary:
# MODEL model=NAME part=emu|matrix|attack passed=N failed=N wall_s=N
model_lines=()
model_line() {
	[ "$listing" = 0 ] || return 0
	model_lines+=("MODEL model=$1 part=$2 passed=$3 failed=$4 wall_s=$5")
	echo "  ${model_lines[-1]}"
}

# begin_section NAME: the section the lines below belong to (run_emu's job
# log is named after it); the seconds each took go into the summary's
# SECTIONS line, so that a slow part of the suite shows where it is
section=''
section_t0=$SECONDS
section_secs=()
begin_section() {
	[ -n "$section" ] && [ $((SECONDS - section_t0)) -gt 0 ] &&
		section_secs+=("$section=$((SECONDS - section_t0))")
	section=$1
	section_t0=$SECONDS
	disk_note
}

# The disk: a full run leaves about 1.5 GB of build trees, images and
# logs (measured: see the DISK line a run ends with), and one that runs out
# midway fails in every section after with errors that do not say why. A
# whole run checks first and stops at once, naming the shortfall; each
# section's start notes the free space, so the DISK line gives the least
# seen and what the run used.
DISK_NEED_MB=${DISK_NEED_MB:-2000}
disk_free_mb() {
	local d
	d=$(df -Pm "${1:-.}" 2>/dev/null | awk 'NR == 2 { print $4 }')
	echo "${d:-0}"
}
disk_start_mb=$(disk_free_mb .)
disk_min_mb=$disk_start_mb
disk_note() {
	local f
	f=$(disk_free_mb .)
	[ "$f" -lt "$disk_min_mb" ] && disk_min_mb=$f
	return 0
}
if [ "$what" = all ] && [ "$listing" = 0 ] && [ "$disk_start_mb" -lt "$DISK_NEED_MB" ]; then
	echo "FAIL disk: $disk_start_mb MB free on $(df -P . | awk 'NR == 2 { print $6 }') (the tree's" \
		"filesystem), where a whole run needs about $DISK_NEED_MB MB for its builds," \
		"images and logs: free some space (or set DISK_NEED_MB to try anyway)"
	echo "0 passed, 1 failed"
	exit 1
fi

begin_section layering
if { [ "$what" = all ] || [ "$what" = layering ]; } &&
	! list_only layering layering layering_check_fails_on_a_broken_tree layering_calls \
		layering_calls_fails_on_a_back_call core_freestanding; then
	# docs/architecture.md's include rules on the tree, the check itself on
	# a tree that breaks them, and the core built freestanding on its own.
	echo "== layering (tests/layering/check.sh)"
	if out=$(tests/layering/check.sh 2>&1); then
		pass "layering ($(echo "$out" | tail -n 1))"
	else
		fail layering "$(echo "$out" | tail -n 6 | tr '\n' ' ')"
	fi
	bad_tree=$(mktemp -d "${TMPDIR:-/tmp}/tempo-layers.XXXXXX")
	mkdir -p "$bad_tree/hv/core" "$bad_tree/arch/x86" "$bad_tree/hv/state" "$bad_tree/hv/exit"
	grep '^HV_ROOMS' Makefile > "$bad_tree/Makefile"
	printf '#include "arch/x86/apic.h"\n' > "$bad_tree/hv/core/policy.c"
	printf '#include "hv/state/partition.h"\n' > "$bad_tree/arch/x86/apic.h"
	printf '\n' > "$bad_tree/hv/state/partition.h"
	# a lower room's header reaching up into a higher room's
	printf '#include "hv/exit/exit.h"\n' > "$bad_tree/hv/state/vcpu.h"
	printf '\n' > "$bad_tree/hv/exit/exit.h"
	out=$(tests/layering/check.sh "$bad_tree" 2>&1)
	if [ $? -ne 0 ] && echo "$out" | grep 'file=hv/core/policy.c include=arch/x86/apic.h' > /dev/null &&
		echo "$out" | grep 'file=arch/x86/apic.h include=hv/state/partition.h' > /dev/null &&
		echo "$out" | grep 'file=hv/state/vcpu.h include=hv/exit/exit.h from=room:state to=room:exit' > /dev/null; then
		pass layering_check_fails_on_a_broken_tree
	else
		fail layering_check_fails_on_a_broken_tree "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
	rm -rf "$bad_tree"
	# the call graph (tests/layering/calls.py): hv/'s rooms call only downwards and no
	# files call each other in a circle; and the check itself on a tree with a
	# back-call from the state room into the exit room, and a circle in one room
	if out=$(tests/layering/calls.py 2>&1); then
		pass "layering_calls ($(echo "$out" | tail -n 1))"
	else
		fail layering_calls "$(echo "$out" | tail -n 8 | tr '\n' ' ')"
	fi
	bad_tree=$(mktemp -d "${TMPDIR:-/tmp}/tempo-calls.XXXXXX")
	mkdir -p "$bad_tree/hv/state" "$bad_tree/hv/exit" "$bad_tree/hv/time" "$bad_tree/arch" \
		"$bad_tree/drivers"
	{ grep '^HV_ROOMS' Makefile; echo 'KCFLAGS := -O2 -ffreestanding'
	  printf 'print-%%:\n\t@echo '"'"'$($*)'"'"'\n'; } > "$bad_tree/Makefile"
	printf 'void exit_fn(void);\nvoid state_fn(void) { exit_fn(); }\n' > "$bad_tree/hv/state/low.c"
	printf 'void state_fn(void);\nvoid exit_fn(void) { state_fn(); }\n' > "$bad_tree/hv/exit/high.c"
	printf 'void b_fn(void);\nvoid a_fn(void) { b_fn(); }\n' > "$bad_tree/hv/time/a.c"
	printf 'void a_fn(void);\nvoid b_fn(void) { a_fn(); }\n' > "$bad_tree/hv/time/b.c"
	out=$(tests/layering/calls.py --root "$bad_tree" 2>&1)
	if [ $? -ne 0 ] &&
		echo "$out" | grep 'CALL_VIOLATION file=hv/state/low.c calls=exit_fn in=hv/exit/high.c from=state to=exit' > /dev/null &&
		echo "$out" | grep 'CALL_CIRCLE files=hv/time/a.c,hv/time/b.c' > /dev/null; then
		pass layering_calls_fails_on_a_back_call
	else
		fail layering_calls_fails_on_a_back_call "$(echo "$out" | tail -n 4 | tr '\n' ' ')"
	fi
	rm -rf "$bad_tree"
	if make -s -C tests/unit core-freestanding BUILD="$(readlink -f "$BUILD")" \
		> "$logdir/core-freestanding.log" 2>&1; then
		pass "core_freestanding ($(tail -n 1 "$logdir/core-freestanding.log"))"
	else
		fail core_freestanding "see $logdir/core-freestanding.log"
		tail -n 10 "$logdir/core-freestanding.log"
	fi
fi

begin_section unit
if { [ "$what" = all ] || [ "$what" = unit ]; } && ! list_only unit "tests/unit (cmocka)"; then
	echo "== host unit tests (cmocka, ASan+UBSan)"
	# built on both cores, run in turn (one log, in order)
	make -s -j2 -C tests/unit all BUILD="$(readlink -f "$BUILD")" > "$logdir/unit.log" 2>&1
	make -s -C tests/unit run BUILD="$(readlink -f "$BUILD")" >> "$logdir/unit.log" 2>&1
	unit_rc=$?
	ok=$(grep -c '^\[       OK \]' "$logdir/unit.log")
	bad=$(grep -E '^\[  FAILED  \] [A-Za-z_]' "$logdir/unit.log" | grep -vc 'test(s)')
	grep -E '^\[==========\] .* ran|^\[  (PASSED|FAILED)  \]' "$logdir/unit.log" | sed 's/^/  /'
	tally unit "$unit_rc" "$ok" "$bad" "$logdir/unit.log" "cmocka tests"
	echo "  unit: $ok passed, $bad failed"
fi

begin_section fuzz
if { [ "$what" = all ] || [ "$what" = fuzz ]; } &&
	! list_only fuzz $(make -s -C tests/fuzz list | sed 's/[^ ]*/fuzz_&/g'); then
	# A short bounded run of every libFuzzer target plus its saved crash
	# inputs; `make fuzz` runs them longer.
	secs=${FUZZ_SECONDS:-10}
	echo "== fuzz targets (${secs}s each, ASan+UBSan)"
	fb=$(readlink -f "$BUILD")
	if ! { make -s -j2 -C tests/fuzz all BUILD="$fb" &&
		make -s -C tests/fuzz regress BUILD="$fb"; } > "$logdir/fuzz-build.log" 2>&1; then
		fail fuzz-build "fuzz build or regression replay failed (see $logdir/fuzz-build.log)"
		tail -n 20 "$logdir/fuzz-build.log"
	else
		# two targets at a time (these machines have 2 cores), reported in
		# order: each job prints its target and make's exit status
		while read -r t rc; do
			if [ "$rc" = 0 ]; then
				execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logdir/fuzz-$t.log")
				pass "fuzz_$t (${execs:-?} execs)"
			else
				fail "fuzz_$t" "finding (see $logdir/fuzz-$t.log)"
				tail -n 20 "$logdir/fuzz-$t.log"
			fi
		done < <(FUZZ_SECONDS=$secs BUILD=$fb LOGDIR=$logdir parallel --will-cite -j 2 --keep-order \
			'make -s -C tests/fuzz run FUZZ_TARGETS={} FUZZ_SECONDS="$FUZZ_SECONDS" BUILD="$BUILD" \
				> "$LOGDIR/fuzz-{}.log" 2>&1; echo {} $?' ::: $(make -s -C tests/fuzz list))
	fi
fi

begin_section guard
if { [ "$what" = all ] || [ "$what" = guard ]; } && ! list_only guard guard_exit_path; then
	# The exit path's length held to tests/bench/budget.txt: short bench
	# rows, normal and profile builds, two emulators at once (nothing else
	# runs beside this section). About 2 minutes.
	echo "== exit-path guard (tests/bench/guard.sh, budgets in tests/bench/budget.txt)"
	start=$SECONDS
	if tests/bench/guard.sh "$logdir/guard" > "$logdir/guard.log" 2>&1; then
		pass "guard_exit_path ($(tail -n 1 "$logdir/guard.log"), $((SECONDS - start))s)"
	else
		fail guard_exit_path "$(grep -E 'ok=0|^guard:' "$logdir/guard.log" | head -n 8 |
			tr '\n' ';') [log: $logdir/guard.log]"
	fi
fi

# vmcs_ready: the VMCS_CHECK=1 build (docs/containment.md) made in its own
# folder, once, for every emulator section: the Bochs tests of emu, matrix
# and linux run on it (tests/vmcscheck/emu.sh) and the section vmcs runs
# its own entries on it. VMCS_CHECK_EMU=0 keeps the emulator sections on
# the plain build. A failed build is a failure; the emulator sections then
# run on the plain build, the section vmcs not at all.
vmcs_build=${VMCS_CHECK_BUILD:-build-vmcs-check}
vmcs_state=''			# '', ok or failed
emu_one_default=tests/emu/one.sh
vmcs_ready() {
	[ -n "$vmcs_state" ] || [ "$listing" = 1 ] || {
		if make -s VMCS_CHECK=1 BUILD="$vmcs_build" all test-images \
			> "$logdir/vmcs-build.log" 2>&1; then
			vmcs_state=ok
		else
			vmcs_state=failed
			fail vmcs-build "make VMCS_CHECK=1 all test-images failed (see $logdir/vmcs-build.log)"
			tail -n 30 "$logdir/vmcs-build.log"
		fi
	}
	[ "$vmcs_state" = ok ] || [ "$listing" = 1 ]
}

# emu_ready: the test images built, the checking build too (vmcs_ready)
# and tests/emu/tests.sh sourced (once); a failed build of the test images
# is a failure, and the section it guards is skipped
emu_sourced=0
emu_ready() {
	[ "$emu_sourced" = 1 ] && return 0
	if [ "$listing" = 0 ] && ! make -s test-images > "$logdir/build.log" 2>&1; then
		fail build "make test-images failed (see $logdir/build.log)"
		tail -n 30 "$logdir/build.log"
		return 1
	fi
	if [ "${VMCS_CHECK_EMU:-1}" = 1 ] && vmcs_ready; then
		emu_one_default=tests/vmcscheck/emu.sh
	fi
	# shellcheck source=tests/emu/tests.sh
	. tests/emu/tests.sh
	emu_sourced=1
}

# emu_lists_check: every test_NAME defined in tests/emu/*.sh once, and on
# exactly one of the lists the runner reads (a test left off them would
# never run); every name on them defined
emu_lists_check() {
	local n why="" defined listed
	defined=$(grep -ho '^test_[a-z0-9_]*()' tests/emu/*.sh | sed 's/^test_//; s/()$//' | sort)
	# shellcheck source=tests/emu/linux.sh
	listed=$(. tests/emu/linux.sh; echo $EMU_LARGE_TEST $EMU_TESTS $LINUX_TESTS $LINUX_BG_TEST |
		tr ' ' '\n' | sort)
	for n in $(echo "$defined" | uniq -d); do why+="test_$n defined twice; "; done
	for n in $(echo "$listed" | uniq -d); do why+="$n listed twice; "; done
	for n in $(comm -23 <(echo "$defined" | uniq) <(echo "$listed" | uniq)); do
		why+="test_$n on no list; "
	done
	for n in $(comm -13 <(echo "$defined" | uniq) <(echo "$listed" | uniq)); do
		why+="$n listed, no test_$n; "
	done
	if [ -z "$why" ]; then
		pass "emu_lists ($(echo "$defined" | wc -l) tests in $(grep -l "^test_" tests/emu/*.sh | wc -l) files, each listed once)"
	else
		fail emu_lists "${why%; } (tests/emu/tests.sh, tests/emu/linux.sh)"
	fi
}

begin_section emu
if [ "$what" = all ] || [ "$what" = emu ]; then
	# The long one (EMU_LARGE=1) first, so that it takes one core while the
	# other runs the rest; with EMU_MODEL set, all on that Bochs model. The
	# Bochs tests run on the VMCS_CHECK=1 build (emu_ready), judged by their
	# own assertions and the VMCS checker, here and in the sections matrix
	# and linux
	[ "$listing" = 1 ] || echo "== emulator tests"
	if emu_ready; then
		if [ -z "$filter" ] && ! list_only emu emu_lists; then
			emu_lists_check
		fi
		large=""
		if [ "${EMU_LARGE:-0}" = 1 ] || [ "$filter" = "$EMU_LARGE_TEST" ]; then
			large=$EMU_LARGE_TEST
		fi
		run_emu $(for t in $large $EMU_TESTS; do echo "$t${EMU_MODEL:+@$EMU_MODEL}"; done)
		emu_model_line "${EMU_MODEL:-corei7_ivy_bridge_3770k}" emu "${EMU_MODEL:+@$EMU_MODEL}"
	fi
fi

begin_section matrix
if [ "$what" = all ] || [ "$what" = matrix ]; then
	# The CPU-model matrix: a fast subset of the emulator tests (several
	# partitions; the two timer modes that lean on the CPU's VMX, the
	# guest's own deadline MSR and external-interrupt exits) on every other
	# Bochs model with VMX and x2APIC; the attack suite below adds
	# skylake_x and tigerlake. Sandy Bridge's refusal is bochs_no_x2apic
	# above. About 1 minute. In the whole suite skylake_x (AVX-512) and
	# tigerlake (APIC virtualization) run every emulator test instead,
	# beside the Linux tests (below); FULL_MATRIX=0 gives them this subset
	# here instead.
	[ "$listing" = 1 ] || echo "== CPU-model matrix (MATRIX_MODELS x MATRIX_TESTS)"
	matrix_models="corei7_haswell_4770 broadwell_ult corei3_cnl corei7_icelake_u"
	full_matrix=${FULL_MATRIX:-1}
	[ "$what" = all ] || full_matrix=0
	[ "$full_matrix" = 1 ] || matrix_models+=" corei7_skylake_x tigerlake"
	if emu_ready; then
		matrix_jobs=()
		for model in ${MATRIX_MODELS:-$matrix_models}; do
			tests=${MATRIX_TESTS:-bochs_partitions bochs_timer_direct bochs_timer_inject}
			# APIC virtualization: the virtual-LAPIC modes take another path
			# there, on dedicated and shared cores
			[ -z "${MATRIX_TESTS:-}" ] && [ "$model" = tigerlake ] &&
				tests+=" bochs_timer_emulated bochs_pv_lazy bochs_shared"
			for t in $tests; do matrix_jobs+=("$t@$model"); done
		done
		run_emu "${matrix_jobs[@]}"
		for model in ${MATRIX_MODELS:-$matrix_models}; do
			emu_model_line "$model" matrix "@$model"
		done
	fi
fi

begin_section attack
if { [ "$what" = all ] || [ "$what" = attack ]; } &&
	! list_only attack $(for m in ${ATTACK_MODELS:-corei7_ivy_bridge_3770k corei7_skylake_x tigerlake}; do
		echo "attack-$m"; done); then
	# Every hostile-guest attack against docs/attacks.md, on each CPU model of
	# ATTACK_MODELS: the default, one with AVX-512 (larger XSAVE state, more
	# XCR0 bits) and one with APIC virtualization (../shared/EMULATORS.md).
	echo "== attacks (guests/hostile, tests/attack/expected.txt)"
	models=${ATTACK_MODELS:-corei7_ivy_bridge_3770k corei7_skylake_x tigerlake}
	for model in $models; do
		start=$SECONDS
		log=$logdir/attack-$model.log
		BUILD="$BUILD" tests/attack/run_attacks.sh --model "$model" "$BUILD/attack/$model" \
			> "$log" 2>&1
		attack_rc=$?
		ok=$(grep -c '^ATTACK .* ok=1$' "$log")
		bad=$(grep -c '^ATTACK .* ok=0$' "$log")
		grep -E '^(VICTIM|ATTACKS) ' "$log" | sed 's/^/  /'
		grep '^ATTACK .* ok=0$' "$log" | sed "s/^/  $model: /"
		tally "attack-$model" "$attack_rc" "$ok" "$bad" "$log" attacks
		echo "  attack $model: $ok passed, $bad failed ($((SECONDS - start))s)"
		model_line "$model" attack "$ok" "$bad" $((SECONDS - start))
	done
fi

# vmcs_judge_check: the verdict every Bochs test of the emulator sections
# gets (tests/vmcscheck/lib.sh, vmcs_verdict) on serial logs in the
# hypervisor's own words: a clean one passes; one with a broken rule fails,
# its FAIL line naming the entry and the rule; so does one that ran guests
# with no entry checked, one with no summary, and a clean one whose test's
# own assertions failed where they count (and only there)
vmcs_judge_check() {
	local d why='' e=bochs_partitions@corei7_ivy_bridge_3770k out
	d=$(mktemp -d "${TMPDIR:-/tmp}/tempo-judge.XXXXXX")
	# shellcheck source=tests/vmcscheck/lib.sh
	. tests/vmcscheck/lib.sh
	mkdir -p "$d/$e/com2"
	: > "$d/$e/bochsrc"
	# a partition's COM2 log: the guest's, never judged
	echo 'com2: hello' > "$d/$e/com2/serial.txt"
	echo "FAIL $e: rt0 did not finish [log: $d/$e]" > "$d/$e.one.log"
	judged() {	# LINES...: the serial log, then the verdict's lines
		printf '%s\r\n' "$@" > "$d/$e/serial.txt"
	}
	local exits='EXITS partition=rt0 vcpu=0 total=981 cpuid=5 vmcall=20'
	local clean='VMCS_CHECK violations=0 entries=981 launches=3 resumes=978 asides=0 refused_entries=0 unreadable=0 check_avg_ticks=2059 check_max_ticks=9000'
	judged "$exits" "$clean" 'TEMPO_EXIT code=0 status=ok reason="all partitions ended"'
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9) ||
		why+="a clean log failed: $out; "
	out=$(vmcs_verdict "$e" "$d/$e" fail 0 "$d/$e.one.log" 9) ||
		why+="own assertions counted where they do not: $out; "
	out=$(vmcs_verdict "$e" "$d/$e" fail 1 "$d/$e.one.log" 9) &&
		why+="a failed own assertion passed; "
	[[ $out == *"FAIL $e: own assertions: rt0 did not finish"* ]] ||
		why+="the own failure not named: $out; "
	judged "$exits" \
		'VMCS_CHECK rule=guest.pending_dbg_reserved sdm=26.3.1.5 field=GUEST_PENDING_DBG value=0x10 entry=vmresume vmcs=0xf7e3000' \
		'VMCS_CHECK_FAIL violations=1 entry=vmresume vmcs=0xf7e3000 guest_rip=0x103d3b exit_reason=0x1e full=0' \
		"${clean/violations=0/violations=1}"
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9) && why+="a violation passed; "
	[[ $out == *"FAIL $e: VMCS checker: rules guest.pending_dbg_reserved (SDM 26.3.1.5);"* ]] ||
		why+="the rule not named: $out; "
	judged "$exits" "${clean/entries=981/entries=0}"
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9) && why+="no entry checked passed; "
	# one run checked, another (restart's quiet baseline, say) where guests
	# ran and no entry was checked: fails, naming that run
	mkdir -p "$d/$e/quiet"
	: > "$d/$e/quiet/bochsrc"
	judged "$exits" "$clean"
	printf '%s\r\n' "$exits" "${clean/entries=981/entries=0}" > "$d/$e/quiet/serial.txt"
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9) &&
		why+="a run with no entry checked beside a checked one passed; "
	[[ $out == *"quiet/serial.txt: guests ran, no entry checked"* ]] ||
		why+="the unchecked run not named: $out; "
	# and the other way round: the unchecked log the last one read
	judged "$exits" "${clean/entries=981/entries=0}"
	printf '%s\r\n' "$exits" "$clean" > "$d/$e/quiet/serial.txt"
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9) &&
		why+="a checked run beside one with no entry checked passed; "
	rm -rf "$d/$e/quiet"
	judged "$exits" 'TEMPO_EXIT code=0 status=ok reason="all partitions ended"'
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9) && why+="no summary passed; "
	# a run ended from outside (VMCS_CHECK_NO_END): the checking build's
	# boot line and no refused entry pass; a refused entry, or a guest
	# that ran with no sign of that build, fail; a log ended before any
	# partition was built passes
	local on='VMCS checker: on, every VM entry checked first (SDM Vol. 3C 26.2, 26.3)'
	judged "$on" "Partition 'rt0': 1 vCPU" '[rt0] rtbench: start'
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9 1) ||
		why+="a clean run ended from outside failed: $out; "
	[[ $out == *"unended=1 "* ]] || why+="the unended run not counted: $out; "
	judged "$on" '[rt0] rtbench: start' \
		'VMCS_CHECK_FAIL violations=1 entry=vmresume vmcs=0xf7e3000 guest_rip=0x103d3b exit_reason=0x1e full=0'
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9 1) &&
		why+="a refused entry in a run ended from outside passed; "
	judged "$on" '[rt0] rtbench: start' \
		'VMCS_CHECK rule=guest.pending_dbg_reserved sdm=26.3.1.5 field=GUEST_PENDING_DBG value=0x10 entry=vmresume vmcs=0xf7e3000'
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9 1) &&
		why+="a broken rule's line with its FAIL line cut off passed; "
	judged "Partition 'rt0': 1 vCPU" '[rt0] rtbench: start'
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9 1) &&
		why+="a run ended from outside with no sign of the checking build passed; "
	# the same, long (a pipeline's grep -q ending early must not pass it)
	{ printf "Partition 'rt0': 1 vCPU\r\n"; yes '[rt0] rtbench: a line of its output, long enough' |
		head -n 4000 | sed 's/$/\r/'; } > "$d/$e/serial.txt"
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9 1) &&
		why+="a long run ended from outside with no sign of the checking build passed; "
	judged 'Tempo hypervisor 0.1'
	out=$(vmcs_verdict "$e" "$d/$e" pass 1 "$d/$e.one.log" 9 1) ||
		why+="a run ended before any partition failed: $out; "
	rm -rf "$d"
	if [ -z "$why" ]; then
		pass "vmcs_judge_fails (a violation, no entry checked (in the only run, or in one of two), no summary and a failed own assertion each fail; a clean log passes; of a run ended from outside, a refused entry or a log not of the checking build fails)"
	else
		fail vmcs_judge_fails "${why%; }"
	fi
}

begin_section vmcs
if [ "$what" = all ] || [ "$what" = vmcs ]; then
	# The VMCS checker (docs/containment.md) on the VMCS_CHECK=1 build
	# (vmcs_ready): the sections emu, matrix and linux ran their Bochs tests
	# on it already, judged by their own assertions and the checker. Here:
	# vmcs_break(_regs) show a broken entry is refused, then, on all three
	# models, the attack suite and the tests whose own assertions
	# stay on the plain build (VMCS_CHECK_OWN_PLAIN in
	# tests/vmcscheck/entries.sh: latency bounds the checker's cost an entry
	# inflates), each run by tests/vmcscheck/one.sh: its serial logs must
	# end "VMCS_CHECK violations=0", its own assertions not counted. About 4
	# minutes two at a time (253 s on 2026-12-07, beside a build: 493 s of
	# Bochs).
	# VMCS_CHECK_FULL=1: every Bochs emulator test instead.
	[ "$listing" = 1 ] || echo "== VMCS checker (make VMCS_CHECK=1: every VM entry checked)"
	vmcs_mode=quick
	[ "${VMCS_CHECK_FULL:-0}" = 1 ] && vmcs_mode=all
	if ! list_only vmcs vmcs_judge_fails; then
		vmcs_judge_check
	fi
	if vmcs_ready; then
		start=$SECONDS
		# shellcheck source=tests/vmcscheck/entries.sh
		. tests/vmcscheck/entries.sh
		# shellcheck source=tests/emu/tests.sh
		[ -n "${EMU_TESTS:-}" ] || . tests/emu/tests.sh
		emu_one=tests/vmcscheck/one.sh emu_build=$vmcs_build
		run_emu $(vmcs_check_entries $vmcs_mode)
		emu_one='' emu_build=''
		[ "$listing" = 1 ] || echo "  vmcs: $((SECONDS - start))s"
	fi
fi

begin_section guestfuzz
if { [ "$what" = all ] || [ "$what" = guestfuzz ]; } && ! list_only guestfuzz guestfuzz; then
	# The guest-side fuzzer, short: every timer mode and the shared core, plus
	# the saved seeds; Tempo must finish and the victims stay clean. On the
	# checking build (vmcs_ready, as the emulator sections), where every
	# entry of the fuzzed guests, whose state is the guest's choice, is
	# checked too: the short run's own checks hold no latency bound.
	echo "== guest-side fuzzer (guests/fuzz, tests/guestfuzz/run.sh --short)"
	start=$SECONDS
	gf_build=$BUILD gf_check=''
	if [ "${VMCS_CHECK_EMU:-1}" = 1 ] && vmcs_ready; then
		gf_build=$vmcs_build gf_check=1
	fi
	BUILD="$gf_build" VMCS_CHECK=$gf_check tests/guestfuzz/run.sh --short \
		--out "$gf_build/guestfuzz-short" > "$logdir/guestfuzz.log" 2>&1
	gf_rc=$?
	grep -E '^GUESTFUZZ(_RUN|_STOP|_ANOMALY|_HV)? ' "$logdir/guestfuzz.log" | sed 's/^/  /'
	# the checker's verdict first: an entry it refused stops that partition
	# (a victim's stop reads as a disturbed victim below), so a failure
	# names the broken rules too
	gf_why=''
	if [ -n "$gf_check" ]; then
		# shellcheck source=tests/vmcscheck/lib.sh
		. tests/vmcscheck/lib.sh
		if ! vmcs_judge "$gf_build/guestfuzz-short"; then
			vmcs_rules "$gf_build/guestfuzz-short" | sed 's/^/  /'
			gf_why=";$(vmcs_why "$gf_build/guestfuzz-short")"
		fi
	fi
	# the short run's seeds are fixed and Bochs is deterministic: an anomaly (the
	# guest saw Tempo break its own documented rules) is a finding, not noise
	if [ $gf_rc -ne 0 ] || ! grep -q '^GUESTFUZZ .*hv_alive=1 ' "$logdir/guestfuzz.log"; then
		fail guestfuzz "hypervisor or victim disturbed$gf_why (see $logdir/guestfuzz.log)"
	elif ! grep -q '^GUESTFUZZ .* anomalies=0 ' "$logdir/guestfuzz.log"; then
		fail guestfuzz "anomalies: $(grep -c '^GUESTFUZZ_ANOMALY ' "$logdir/guestfuzz.log")$gf_why (see $logdir/guestfuzz.log)"
	elif [ -n "$gf_why" ]; then
		fail guestfuzz "${gf_why#;} [log: $gf_build/guestfuzz-short]"
	else
		pass "guestfuzz ($((SECONDS - start))s${gf_check:+, entries=$vc_entries violations=0})"
	fi
fi

begin_section linux
if [ "$what" = all ] || [ "$what" = linux ]; then
	# A Linux partition (Debian's PREEMPT_RT kernel; make linux-image fetches it)
	[ "$listing" = 1 ] || echo "== Linux partition tests"
	# The whole suite runs the CPU-model matrix's two full models here, every
	# Bochs emulator test but those that name their own model on skylake_x
	# (AVX-512) and on tigerlake (APIC virtualization), in the same jobs as
	# the Linux tests: those are long (linux_boot about 4 minutes) and
	# run beside the short ones. About 6 minutes of emulator time per
	# model; two emulators at once run each at nearly full speed on these
	# 2-core machines (measured: 26 s and 38 s alone, 30 s and 38 s
	# together). FULL_MATRIX=0: neither model here (the matrix section above
	# runs their subset). LINUX_LARGE=1: linux_large_mem too, first (about
	# 7 minutes alone; beside the other Linux tests a run has taken more
	# than its 1,500 s timeout).
	full_jobs=()
	if [ "${full_matrix:-${FULL_MATRIX:-1}}" = 1 ] && [ "$what" = all ] && emu_ready; then
		for model in corei7_skylake_x tigerlake; do
			for t in $EMU_TESTS; do
				[[ $t == bochs_* ]] && [[ " $EMU_PINNED " != *" $t "* ]] &&
					full_jobs+=("$t@$model")
			done
		done
	fi
	if [ "$listing" = 0 ] && ! make -s linux-image linux-test-images > "$logdir/linux-build.log" 2>&1; then
		fail linux-build "make linux-image linux-test-images failed (see $logdir/linux-build.log)"
		tail -n 30 "$logdir/linux-build.log"
		run_emu "${full_jobs[@]}"
	else
		# the Linux tests the checker judges (tests/vmcscheck/entries.sh):
		# their images in the checking build, with this build's kernel
		# shellcheck source=tests/vmcscheck/entries.sh
		. tests/vmcscheck/entries.sh
		# shellcheck disable=SC2046  # one image a word
		if [ "$emu_one_default" = tests/vmcscheck/emu.sh ] && [ "$listing" = 0 ] &&
			! make -s VMCS_CHECK=1 BUILD="$vmcs_build" LINUX_DIR="$BUILD/linux" \
				$(for i in $VMCS_CHECK_LINUX_ISOS; do echo "$vmcs_build/test/$i.iso"; done) \
				> "$logdir/vmcs-linux-build.log" 2>&1; then
			fail vmcs-linux-build "the checking build's Linux images failed (see $logdir/vmcs-linux-build.log)"
			tail -n 30 "$logdir/vmcs-linux-build.log"
		fi
		# shellcheck source=tests/emu/linux.sh
		. tests/emu/linux.sh
		# each test of VMCS_CHECK_LINUX_VERDICT followed by its second
		# run, checked_TEST (the checker's verdict alone), so that the two
		# long runs start first, one a core
		linux_jobs=()
		for t in $LINUX_TESTS; do
			linux_jobs+=("$t")
			# (what the run does: checked runs only when the whole suite
			# runs, emu_ready, and VMCS_CHECK_EMU is not 0)
			if [[ " $VMCS_CHECK_LINUX_VERDICT " == *" $t "* ]] &&
				{ [ "$emu_one_default" = tests/vmcscheck/emu.sh ] ||
					{ [ "$listing" = 1 ] && [ "$what" = all ] &&
						[ "${VMCS_CHECK_EMU:-1}" = 1 ]; }; }; then
				linux_jobs+=("checked_$t")
			fi
		done
		[ "${LINUX_LARGE:-0}" = 1 ] && linux_jobs=("$LINUX_BG_TEST" "${linux_jobs[@]}")
		run_emu "${linux_jobs[@]}" "${full_jobs[@]}"
	fi
	if [ ${#full_jobs[@]} -gt 0 ]; then
		emu_model_line corei7_skylake_x emu @corei7_skylake_x
		emu_model_line tigerlake emu @tigerlake
	fi
fi

begin_section grub
if { [ "$what" = all ] || [ "$what" = grub ]; } &&
	! list_only grub tests/grub/test_grubd.sh tests/grub/test_run_kvm.sh; then
	echo "== GRUB install script and run-kvm checks"
	for t in tests/grub/test_grubd.sh tests/grub/test_run_kvm.sh; do
		if out=$(BUILD="$BUILD" "$t" 2>&1); then
			n=$(echo "$out" | grep -c '^PASS ')
			passed=$((passed + n))
			echo "$out" | grep -E '^(PASS|FAIL) ' | sed 's/^/  /'
		else
			n=$(echo "$out" | grep -c '^FAIL ')
			[ "$n" -gt 0 ] || n=1
			failed=$((failed + n))
			failures+=("$t")
			echo "$out" | tail -n 20
		fi
	done
fi

begin_section tools
tools_tests="tests/tools/test_tempo_config.sh tests/tools/test_rtdemo_table.sh
	tests/tools/test_deb.sh tests/tools/test_console_term.sh tests/tools/test_plot_buckets.sh
	tests/tools/test_icr_fences.sh"
# shellcheck disable=SC2086  # the list splits on purpose
if { [ "$what" = all ] || [ "$what" = tools ]; } && ! list_only tools $tools_tests; then
	echo "== tempo-config, the Debian package, the tools' own checks"
	for t in $tools_tests; do
		start=$SECONDS
		out=$(BUILD="$BUILD" "$t" 2>&1)
		rc=$?
		ok=$(echo "$out" | grep -c '^PASS ')
		bad=$(echo "$out" | grep -c '^FAIL ')
		[ "$rc" -ne 0 ] && [ "$bad" -eq 0 ] && bad=1
		passed=$((passed + ok))
		failed=$((failed + bad))
		[ "$bad" -gt 0 ] && failures+=("$t")
		echo "$out" | grep -E '^(PASS|FAIL|SKIP) ' | sed 's/^/  /'
		[ "$rc" -ne 0 ] && echo "$out" | grep -vE '^(PASS|FAIL|SKIP) ' | tail -n 10
		echo "  $t: $ok passed, $bad failed ($((SECONDS - start))s)"
	done
fi

# kvm-unit-tests' x86 tests, unmodified, as partitions (docs/kvm-unit-tests.md):
# "all" runs tests/kut/expected-quick.txt (about 5 minutes), "kut" every run
# of tests/kut/expected.txt; skipped where the tree is absent.
begin_section kut
if { [ "$what" = all ] || [ "$what" = kut ]; } &&
	! list_only kut "$([ "$what" = all ] && echo tests/kut/expected-quick.txt || echo tests/kut/expected.txt)"; then
	kut_expected=tests/kut/expected.txt
	[ "$what" = all ] && kut_expected=tests/kut/expected-quick.txt
	echo "== kvm-unit-tests (tests/kut/suite.sh, $kut_expected)"
	start=$SECONDS
	log=$logdir/kut.log
	# tscdeadline_latency's runs on the checking build (every entry
	# checked, docs/containment.md); checked, the xapic runs (some two
	# million entries each) would take the section from 3 minutes to 10
	kut_checked=''
	[ "${VMCS_CHECK_EMU:-1}" = 1 ] && vmcs_ready && kut_checked=tscdeadline_latency
	KUT_VMCS_CHECK_TESTS=$kut_checked VMCS_CHECK_BUILD="$vmcs_build" KUT_EXPECTED=$kut_expected \
		BUILD="$BUILD" tests/kut/suite.sh "$filter" > "$log" 2>&1
	kut_rc=$?
	ok=$(grep -c '^PASS ' "$log")
	bad=$(grep -c '^FAIL ' "$log")
	grep -E '^(  KUT|  kut:|PASS|FAIL|SKIP|KUTS) ' "$log" | sed 's/^/  /'
	tally kut "$kut_rc" "$ok" "$bad" "$log" "kvm-unit-tests runs"
	echo "  kut: $ok passed, $bad failed ($((SECONDS - start))s)"
fi

[ "$listing" = 0 ] || exit 0
begin_section end
echo
[ ${#section_secs[@]} -eq 0 ] || echo "SECTIONS ${section_secs[*]} total=$SECONDS"
echo "DISK free_start_mb=$disk_start_mb free_min_mb=$disk_min_mb used_mb=$((disk_start_mb - disk_min_mb))"
for l in "${model_lines[@]}"; do echo "$l"; done
for f in "${failures[@]}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
