#!/bin/bash
# The whole test suite (`make test`): installs what it needs, then runs
#   js     vitest: our modules and views on OpenWrt's luci-base in jsdom,
#          a test router behind HTTP (docs/testing.md)
#   browser  the views and graphs on the same LuCI in real Chromium, redraw
#          benchmark
#   ucode  renderer/API tests with mock modules (those needing ucode skipped
#          without it; golden nft/haproxy files and the OUI table checked
#          anyway, the grade vectors when LuCI is built)
#   sh     apply.sh against recording stand-ins for fw4, haproxy, ip, sysctl,
#          and with the real ip and sysctl in network namespaces
#   pkg    the .ipk layout and control fields
#   owrt   the .ipk on OpenWrt's real procd, ubusd, rpcd, uhttpd,
#          rc.common/procd.sh and firewall4, built by tools/owrt/build.sh
#          ($RETERM_OWRT, default /opt/owrt; one counted skip without them)
#   owrt-24.10  the same on that root with OpenWrt 24.10's ucode (rpcd's
#          plugin, uhttpd's handler and LuCI's modules built against it)
#   lab    the network lab in a VM: behaviour checked with floors physics
#          sets (tests/lab/checks.py); with LAB_MODE=bench (`make lab`) the
#          benchmark instead: the README's speed targets measured and
#          judged in one table (tests/lab/benchmark.py)
# and ends with one line: "total: N passed, N failed, N skipped".
# `tests/run.sh js ucode` (or TIERS="js ucode") limits the run;
# LAB_SCENARIOS overrides the lab list.  Before the total it prints how
# long each tier (and each lab scenario) took.  With CI=true the lab VM gets
# what is left of RETERM_CI_BUDGET (default 5400 s, the CI's 90 minutes,
# counted from this script's start) less 300 s for the checks and summary,
# unless LAB_VM_TIMEOUT is set.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
TIERS=${*:-${TIERS:-"js browser ucode ucode-24.10 sh pkg owrt owrt-24.10 lab"}}
LAB_SCENARIOS=${LAB_SCENARIOS:-"baseline proxy proxy-web hardening shaping sqm latency autorate flood latency@24.10 autorate@24.10"}
mkdir -p .cache

passed=0 failed=0 skipped=0
# "ucode 81205a25": the part of tools/owrt/parts.lock a tier ran on
ucode_pin() { awk -v n="$1" '$1 == n { print "ucode " substr($3, 1, 8) }' tools/owrt/parts.lock; }
# add the counts from a "<tier>: N passed, N failed[, N skipped]" line
tally() {
	local line p f s
	line=$(grep -E "^$1: [0-9]+ passed, [0-9]+ failed" "$2" | tail -n 1)
	if [ -z "$line" ]; then
		echo "not ok - $1 tier printed no summary"
		failed=$((failed + 1)); return
	fi
	p=$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	s=$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$line")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
}

tests/deps.sh || { echo "total: 0 passed, 1 failed"; exit 1; }
times="deps ${SECONDS}s"

for tier in $TIERS; do
	log=".cache/tier-$tier.log"
	echo "=== $tier"
	t0=$SECONDS
	case $tier in
	js)
		rm -f .cache/vitest.json # a stale report must not stand in for this run
		npx vitest run --reporter=default --reporter=json \
			--outputFile=.cache/vitest.json 2>&1 | tee "$log"
		node tests/js/summary.mjs .cache/vitest.json "${PIPESTATUS[0]}" 2>&1 | tee -a "$log" ;;
	browser)
		node tests/browser/graph.browser.mjs 2>&1 | tee "$log"
		node tests/browser/overview.browser.mjs 2>&1 | tee -a "$log"
		node tests/browser/wizard.browser.mjs 2>&1 | tee -a "$log" ;;
	ucode) tests/ucode/run.sh 2>&1 | sed "s/^ucode: \(.*\)/ucode: \1 ($(ucode_pin ucode))/" | tee "$log"
		# the flash-wear benchmark, for the lab's results.json
		sed -n 's/.*bench flash_bytes_per_100_tests=\([0-9][0-9]*\).*/{"flash_bytes_per_100_tests": \1}/p' "$log" |
			tail -n 1 > .cache/bench-ucode.json ;;
	ucode-24.10) # the same tests on the ucode OpenWrt 24.10 pins
		RETERM_UCODE=${RETERM_OWRT:-/opt/owrt}/host-24.10/bin/ucode tests/ucode/run.sh 2>&1 |
			sed "s/^ucode: \(.*\)/ucode-24.10: \1 (24.10 $(ucode_pin ucode-24.10))/" | tee "$log"
		# its flash-wear benchmark, for latency@24.10 in the lab's results.json
		sed -n 's/.*bench flash_bytes_per_100_tests=\([0-9][0-9]*\).*/{"scenario": "latency@24.10", "flash_bytes_per_100_tests": \1}/p' "$log" |
			tail -n 1 > .cache/bench-ucode-24.10.json ;;
	sh) { tests/sh/apply_test.sh; tests/sh/apply_bg_test.sh; tests/sh/apply_ns_test.sh; tests/sh/labvm_test.sh; tests/sh/owrt_pidof_test.sh; tests/sh/lab_ticks_test.sh; } 2>&1 | tee "$log" ;;
	pkg) tests/pkg/ipk_test.sh 2>&1 | tee "$log" ;;
	owrt) tests/owrt/run.sh 2>&1 | sed "s/^owrt: \([0-9].*\)/owrt: \1 ($(ucode_pin ucode))/" | tee "$log" ;;
	owrt-24.10) # the same checks on the root with 24.10's ucode
		OWRT_ROOTNAME=root-24.10 tests/owrt/run.sh 2>&1 |
			sed "s/^owrt: \([0-9].*\)/owrt-24.10: \1 (24.10 $(ucode_pin ucode-24.10))/" | tee "$log" ;;
	lab)
		if [ "${CI:-}" = true ] && [ -z "${LAB_VM_TIMEOUT:-}" ]; then
			budget=${RETERM_CI_BUDGET:-5400}
			case $budget in ''|*[!0-9]*) budget=5400 ;; esac
			left=$((budget - SECONDS - 300))
			export LAB_VM_TIMEOUT=$((left > 600 ? left : 600))
			echo "lab: the VM gets ${LAB_VM_TIMEOUT} s (what is left of the CI's ${budget} s)"
		fi
		tests/lab/vm.sh $LAB_SCENARIOS 2>&1 | tee "$log"
		python3 tests/lab/merge_bench.py tests/lab/out/results.json tests/browser/out/bench.json .cache/bench-ucode.json .cache/bench-ucode-24.10.json
		if [ "${LAB_MODE:-check}" = bench ]; then
			python3 tests/lab/benchmark.py tests/lab/out/results.json $LAB_SCENARIOS \
				--markdown docs/benchmarks.md 2>&1 | tee -a "$log"
		else
			python3 tests/lab/checks.py tests/lab/out/results.json $LAB_SCENARIOS 2>&1 | tee -a "$log"
		fi ;;
	*) echo "unknown tier $tier" > "$log" ;;
	esac
	tally "$tier" "$log"
	times="$times, $tier $((SECONDS - t0))s"
	if [ "$tier" = lab ]; then
		times="$times ($(sed -n 's/^lab: scenario \([a-z0-9@.-]*\) done in \([0-9]*\) s.*/\1 \2s/p' "$log" | paste -sd, - | sed 's/,/, /g'))"
	fi
	if [ "$tier" = browser ]; then tally overview "$log"; tally wizard "$log"; fi
	if [ "$tier" = sh ]; then tally sh-bg "$log"; tally sh-ns "$log"; tally sh-labvm "$log"; tally sh-pidof "$log"; tally sh-labticks "$log"; fi
done

# the failures again, so the last lines of a long log say what went wrong
if [ "$failed" -gt 0 ]; then
	echo "=== failed"
	for tier in $TIERS; do grep -h "^not ok" ".cache/tier-$tier.log" 2>/dev/null; done
fi
echo "times: $times; in all ${SECONDS}s"
echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
