# SPDX-License-Identifier: MIT
# The VMCS checker's verdict on a run of the checking build, sourced by
# tests/vmcscheck/one.sh and run.sh.

# vmcs_judge OUT: every serial log under OUT ends with the checker's clean
# summary, "VMCS_CHECK violations=0 ... unreadable=0", and entries were
# checked wherever a guest ran (its exits were counted). Sets vc_logs,
# vc_entries, vc_violations and vc_why (empty when clean); returns 0 when
# clean.
vmcs_judge() {
	local out=$1 f s v u e
	vc_logs=0 vc_entries=0 vc_violations=0 vc_why=""
	while IFS= read -r f; do
		vc_logs=$((vc_logs + 1))
		s=$(tr -d '\r' < "$f" | grep -a '^VMCS_CHECK violations=' | tail -n 1)
		if [ -z "$s" ]; then
			vc_why+=" ${f#"$out"/}: no VMCS_CHECK summary (the run did not end);"
			continue
		fi
		v=$(echo "$s" | sed -n 's/.* violations=\([0-9]*\).*/\1/p')
		u=$(echo "$s" | sed -n 's/.* unreadable=\([0-9]*\).*/\1/p')
		e=$(echo "$s" | sed -n 's/.* entries=\([0-9]*\).*/\1/p')
		vc_violations=$((vc_violations + ${v:-0})) vc_entries=$((vc_entries + ${e:-0}))
		[ "$v" = 0 ] && [ "$u" = 0 ] || vc_why+=" ${f#"$out"/}: $s;"
		if [ "$e" = 0 ] && tr -d '\r' < "$f" | grep -aq '^EXITS partition='; then
			vc_why+=" ${f#"$out"/}: guests ran, no entry checked;"
		fi
	done < <(find "$out" -name serial.txt 2>/dev/null | sort)
	[ "$vc_logs" -gt 0 ] || vc_why=" no serial log"
	[ -z "$vc_why" ]
}

# vmcs_rules OUT: the checker's rule lines under OUT, most frequent first
vmcs_rules() {
	find "$1" -name serial.txt -exec grep -ah \
		'^VMCS_CHECK rule=\|^VMCS_CHECK_FAIL \|^VMCS_CHECK_ERROR ' {} + 2>/dev/null |
		tr -d '\r' | sort | uniq -c | sort -rn | head -n 20
}
