# SPDX-License-Identifier: Apache-2.0
#
# The pkg tier's reporting, sourced by its bash tests:
#   ok NAME / nok NAME [DETAIL...] / skip NAME WHY / check NAME CMD...
#   part CMD...      run another part of the tier: its "ok"/"not ok"/"skip"
#                    and "#" lines shown, its counts (its last line "<name>:
#                    N passed, N failed, N skipped") added; a part that
#                    prints no such line counts as one failure
#   summary NAME     "NAME: N passed, N failed, N skipped"; status 1 on failures

passed=0 failed=0 skipped=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
nok() {
	echo "not ok - $1"
	shift
	local l
	for l in "$@"; do printf '#   %s\n' "$l"; done
	failed=$((failed + 1))
}
skip() { echo "skip - $1 ($2)"; skipped=$((skipped + 1)); }
# check <name> <command...>: ok when the command succeeds
check() { local n=$1; shift; if "$@"; then ok "$n"; else nok "$n"; fi; }

part() {
	local out line
	out=$("$@" 2>&1)
	grep -E '^(ok|not ok|skip) - |^#|: skipped: ' <<<"$out"
	line=$(grep -E '^[a-z0-9-]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' <<<"$out" | tail -n 1)
	if [ -z "$line" ]; then
		nok "$* printed no summary" "$(tail -n 15 <<<"$out")"
		return
	fi
	read -r _ p _ f _ s _ <<<"$line"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

summary() {
	echo "$1: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}
