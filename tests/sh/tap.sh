# shellcheck shell=bash
# Sourced by the sh tier's tests: "ok - NAME" / "not ok - NAME" lines and
# the counts for the summary line ("<tier>: N passed, N failed").
passed=0 failed=0

ok() {  # ok <name> <command...>
	local name=$1; shift
	if "$@"; then echo "ok - $name"; passed=$((passed + 1))
	else echo "not ok - $name"; failed=$((failed + 1)); fi
}
