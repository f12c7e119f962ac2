# SPDX-License-Identifier: MIT
# The VMCS checker's verdict on a run of the checking build, sourced by
# tests/vmcscheck/one.sh and run.sh, and by tests/run_tests.sh, whose
# section vmcs shows that a log with a violation fails.

# vmcs_tempo_logs: of the serial logs named on stdin, Tempo's: those of a
# Bochs run, its bochsrc beside them (a partition's own COM2, which
# tests/emu/devices.sh keeps in a folder of its own, is the guest's)
vmcs_tempo_logs() {
	local f
	while IFS= read -r f; do
		[ -f "$(dirname "$f")/bochsrc" ] && echo "$f"
	done
}

# vmcs_judge OUT [UNENDED]: every serial log under OUT ends with the
# checker's clean summary, "VMCS_CHECK violations=0 ... unreadable=0", and
# entries were checked in every run where a guest ran (its exits were
# counted). UNENDED=1 (a test that ends Bochs on
# purpose, with Tempo running: no summary is printed): a log without the
# summary passes when the checking build said it is on and no entry broke
# a rule (each broken rule and refused entry has its line at once), or
# when it ended before any partition was built. Sets
# vc_logs, vc_entries, vc_violations, vc_unended (the logs judged without
# a summary) and vc_why (empty when clean); returns 0 when
# clean.
vmcs_judge() {
	local out=$1 unended=${2:-0} f s v u e
	vc_logs=0 vc_entries=0 vc_violations=0 vc_unended=0 vc_why=""
	while IFS= read -r f; do
		vc_logs=$((vc_logs + 1))
		s=$(tr -d '\r' < "$f" | grep -a '^VMCS_CHECK violations=' | tail -n 1)
		if [ -z "$s" ] && [ "$unended" = 1 ]; then
			vc_unended=$((vc_unended + 1))
			# refused entries; a broken rule's line whose FAIL line the
			# end cut off counts as one. grep reads the file itself:
			# a -q in a pipeline (pipefail) fails on a long log by SIGPIPE
			v=$(grep -ac '^VMCS_CHECK_FAIL \|^VMCS_CHECK_ERROR ' "$f")
			[ "$v" != 0 ] || ! grep -aq '^VMCS_CHECK rule=' "$f" || v=1
			vc_violations=$((vc_violations + v))
			# no boot line of the checker: only a log ended before VMX was
			# set up (no partition built, no guest line) made no entry
			if ! grep -aq '^VMCS checker: on' "$f" &&
				grep -aq "^Partition '\|^\[[a-z0-9_-]*\] " "$f"; then
				vc_why+=" ${f#"$out"/}: no summary, and no sign of the checking build;"
			elif [ "$v" != 0 ]; then
				vc_why+=" ${f#"$out"/}: $v entries refused or unreadable before the run was ended;"
			fi
			continue
		fi
		if [ -z "$s" ]; then
			vc_why+=" ${f#"$out"/}: no VMCS_CHECK summary (the run did not end);"
			continue
		fi
		v=$(echo "$s" | sed -n 's/.* violations=\([0-9]*\).*/\1/p')
		u=$(echo "$s" | sed -n 's/.* unreadable=\([0-9]*\).*/\1/p')
		e=$(echo "$s" | sed -n 's/.* entries=\([0-9]*\).*/\1/p')
		vc_violations=$((vc_violations + ${v:-0})) vc_entries=$((vc_entries + ${e:-0}))
		[ "$v" = 0 ] && [ "$u" = 0 ] || vc_why+=" ${f#"$out"/}: $s;"
		if [ "$e" = 0 ] && grep -aq '^EXITS partition=' "$f"; then
			vc_why+=" ${f#"$out"/}: guests ran, no entry checked;"
		fi
	done < <(find "$out" -name serial.txt 2>/dev/null | sort | vmcs_tempo_logs)
	[ "$vc_logs" -gt 0 ] || vc_why=" no serial log"
	[ -z "$vc_why" ]
}

# vmcs_rules OUT: the checker's rule lines under OUT, most frequent first
vmcs_rules() {
	find "$1" -name serial.txt 2>/dev/null | vmcs_tempo_logs | tr '\n' '\0' |
		xargs -0 -r grep -ah '^VMCS_CHECK rule=\|^VMCS_CHECK_FAIL \|^VMCS_CHECK_ERROR ' |
		tr -d '\r' | sort | uniq -c | sort -rn | head -n 20
}

# vmcs_why OUT: after a vmcs_judge of OUT that failed, why, for the FAIL
# line the runner keeps: " VMCS checker: rules NAME (SDM N.N),...; " and
# vc_why (the first three rules broken, by name)
vmcs_why() {
	local rules
	rules=$(vmcs_rules "$1" |
		sed -n 's/.* VMCS_CHECK rule=\([^ ]*\) sdm=\([^ ]*\).*/\1 (SDM \2)/p' |
		head -n 3 | paste -sd, -)
	echo " VMCS checker:${rules:+ rules $rules;}$vc_why"
}

# vmcs_verdict ENTRY OUT OWN OWN_COUNTED ONE_LOG SECS [UNENDED]: the lines
# of one run of the checking build that tests/run_tests.sh reads: the
# VMCS_CHECK_TEST line, then "PASS ENTRY (...)" or "FAIL ENTRY: why [log:
# OUT]", where why names each broken rule (and its SDM section) or the
# test's own last words (the FAIL line tests/emu/one.sh left in ONE_LOG)
# when OWN (pass or fail) counts (OWN_COUNTED=1); UNENDED as vmcs_judge's;
# returns 0 on a pass
vmcs_verdict() {
	local entry=$1 out=$2 own=$3 own_counted=$4 one_log=$5 secs=$6 unended=${7:-0} ok=1 why=''
	local rules t=${1%@*} model=''
	[ "$t" = "$entry" ] || model=${entry#*@}
	if ! vmcs_judge "$out" "$unended"; then
		ok=0
		why=$(vmcs_why "$out")
	fi
	if [ "$own_counted" = 1 ] && [ "$own" != pass ]; then
		ok=0
		why=" own assertions: $(sed -n 's/^FAIL [^ ]*: //p' "$one_log" 2>/dev/null | tail -n 1 |
			sed 's/ \[log: [^]]*\]$//')${why:+;$why}"
	fi
	echo "VMCS_CHECK_TEST name=$t model=${model:-default} logs=$vc_logs entries=$vc_entries" \
		"violations=$vc_violations unended=$vc_unended own=$own ok=$ok"
	if [ $ok = 1 ]; then
		[ "$vc_unended" = 0 ] || unended=" unended=$vc_unended"
		[ "$vc_unended" != 0 ] || unended=''
		echo "PASS $entry (${secs}s, entries=$vc_entries$unended violations=0 own=$own)"
		return 0
	fi
	vmcs_rules "$out" | sed 's/^/  /'
	echo "FAIL $entry:$why [log: $out]"
	return 1
}
