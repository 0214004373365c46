#!/bin/bash
# tests/lab/vm.sh's command line into the VM, with a stand-in vng in a
# copy of the tree (no VM boots): the scenarios go in as arguments only,
# LAB_SCENARIOS stays outside (the guest never reads it), the LAB_*
# settings passed in are plain words, and a scenario name that is not
# one word of [a-z0-9@.-] is refused before anything starts.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/sh/tap.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tests/lab/labkit" "$T/.cache/venv/bin"
cp "$top/tests/lab/vm.sh" "$T/tests/lab/vm.sh"
: > "$T/tests/lab/labkit/plans.py"	# the plans: nothing to make here
printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "%s/vng.args"\n' "$T" > "$T/.cache/venv/bin/vng"
chmod 755 "$T/.cache/venv/bin/vng" "$T/tests/lab/vm.sh"

# run <env...> -- <scenarios...>: vm.sh's exit status; vng's arguments in $T/vng.args
run() {
	local envs=()
	rm -f "$T/vng.args"
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env -i PATH="$PATH" "${envs[@]}" "$T/tests/lab/vm.sh" "$@" >"$T/out" 2>&1
}
exec_line() { grep -A1 -x -- --exec "$T/vng.args" | tail -n 1; }

scenarios_in() {
	run LAB_SCENARIOS='latency@24.10 flood' LAB_AUTORATE_RUNS=2 -- latency@24.10 flood || { cat "$T/out"; return 1; }
	local line
	line=$(exec_line)
	case $line in *LAB_SCENARIOS*) echo "LAB_SCENARIOS passed in: $line"; return 1 ;; esac
	case $line in *"LAB_AUTORATE_RUNS='2'"*) ;; *) echo "a LAB_ setting not passed in: $line"; return 1 ;; esac
	case $line in *"/inside.py --out $T/tests/lab/out latency@24.10 flood") ;; *) echo "scenarios: $line"; return 1 ;; esac
}

bad_setting() {
	run LAB_AUTORATE_RUNS='2;reboot' -- flood && { echo "accepted"; return 1; }
	[ ! -e "$T/vng.args" ] && grep -q "LAB_AUTORATE_RUNS: only" "$T/out"
}

bad_scenario() {
	local s
	for s in 'flood;reboot' 'flood $(reboot)' "flood'" '' '-x'; do
		run -- latency "$s" && { echo "accepted '$s'"; return 1; }
		[ ! -e "$T/vng.args" ] || { echo "vng started for '$s'"; return 1; }
		grep -q "lab: scenario" "$T/out" || { echo "'$s': $(cat "$T/out")"; return 1; }
	done
}

# a guest silent for LAB_SILENT_S: stopped, said so, and the scenarios
# without results run again in a new VM with --keep (results so far stay)
stalled() {
	local vng="$T/.cache/venv/bin/vng" keepvng="$T/vng.keep" line
	cp "$vng" "$keepvng"
	rm -f "$T/calls" "$T"/vng.args.*
	mkdir -p "$T/tests/lab/out"
	cat > "$vng" <<-EOF
	#!/bin/sh
	n=\$(cat "$T/calls" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n > "$T/calls"
	printf '%s\n' "\$@" > "$T/vng.args.\$n"
	[ \$n = 1 ] || exit 0
	echo '{"latency": {"x": 1}}' > "$T/tests/lab/out/results.json"
	echo "lab: scenario flood (limit 1500 s) ..."
	exec sleep 60
	EOF
	chmod 755 "$vng"
	env -i PATH="$PATH" LAB_SILENT_S=3 "$T/tests/lab/vm.sh" latency flood >"$T/out" 2>&1
	mv "$keepvng" "$vng"
	grep -q "printed nothing for 3 s: it stalled" "$T/out" || { echo "not said: $(cat "$T/out")"; return 1; }
	[ "$(cat "$T/calls")" = 2 ] || { echo "VMs started: $(cat "$T/calls")"; return 1; }
	line=$(grep -A1 -x -- --exec "$T/vng.args.2" | tail -n 1)
	case $line in *"/inside.py --out $T/tests/lab/out --keep flood") ;; *) echo "second VM: $line"; return 1 ;; esac
	case $line in *LAB_SILENT_S*) echo "LAB_SILENT_S passed in: $line"; return 1 ;; esac
	[ "$(cat "$T/tests/lab/out/vm-stalled")" = flood ] || { echo "vm-stalled: $(cat "$T/tests/lab/out/vm-stalled")"; return 1; }
}

skipped=0
# vm.sh looks for the kernel it would boot before it starts vng
if ls /boot/vmlinuz-*-amd64 >/dev/null 2>&1; then
	ok "labvm/scenarios: as arguments only, LAB_SCENARIOS not passed into the VM, other LAB_ settings are" scenarios_in
else
	echo "skip - labvm/scenarios (no Debian kernel in /boot: tests/deps.sh installs linux-image-amd64)"
	skipped=1
fi
if ls /boot/vmlinuz-*-amd64 >/dev/null 2>&1; then
	ok "labvm/stalled: a guest silent for LAB_SILENT_S is stopped and said so; the scenarios without results run again in a new VM (--keep)" stalled
else
	echo "skip - labvm/stalled (no Debian kernel in /boot: tests/deps.sh installs linux-image-amd64)"
	skipped=$((skipped + 1))
fi
ok "labvm/bad-setting: a LAB_ setting with ';' refused, no VM" bad_setting
ok "labvm/bad-scenario: a scenario name outside [a-z0-9@.-] refused, no VM" bad_scenario
echo "sh-labvm: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
