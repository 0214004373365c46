# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/owrt/run.sh after init_checks.sh (osh, wait_for, jq_py):
# `reterm apply` through real rpcd while the reload is slow (fw4 made to
# take 5 s in this throwaway root): rpcd answers within its 2 s wait with
# "applying" and a token, other calls are answered meanwhile, and
# `reterm status` then reports that token's outcome.
#
#   api/apply-async

apply_async_check() {
	local t0 t1 r tok st slow=$OWRT_ROOT/sbin/fw4
	osh "/etc/init.d/reterm start" >/dev/null 2>&1
	mv "$slow" "$slow.real" || return 1
	printf '#!/bin/sh\ncase " $* " in *" reload "*) sleep 5 ;; esac\nexec /sbin/fw4.real "$@"\n' > "$slow"
	chmod 755 "$slow"
	# a change the rules show (apply.sh reloads fw4 only then)
	osh "uci add reterm device >/dev/null && uci set reterm.@device[-1].name=slowtest &&
		uci set reterm.@device[-1].mac=02:00:00:00:5e:01 && uci commit reterm" || return 1
	t0=$(date +%s%N)
	r=$(osh "ubus call reterm apply")
	t1=$(date +%s%N)
	tok=$(jq_py "d.get('token') or ''" <<<"$r")
	st=$(osh "ubus call reterm status")
	local ms=$(( (t1 - t0) / 1000000 ))
	local bad=
	[ "$ms" -lt 4000 ] || bad="apply held rpcd for $ms ms"
	grep -q '"applying": true' <<<"$r" && [ -n "$tok" ] || bad="$bad; reply: $r"
	[ "$(jq_py "d['applying']" <<<"$st")" = True ] || bad="$bad; status during the reload: $st"
	wait_for 30 sh -c "chroot '$OWRT_ROOT' ubus call reterm status | grep -q '\"applied_token\": \"$tok\"'" ||
		bad="$bad; the outcome never arrived: $(osh 'ubus call reterm status')"
	st=$(osh "ubus call reterm status")
	mv "$slow.real" "$slow"
	osh "uci delete reterm.@device[-1] && uci commit reterm && /etc/init.d/reterm stop" >/dev/null 2>&1
	[ "$(jq_py "d['applied'], d['applying']" <<<"$st")" = "ok False" ] || bad="$bad; after: $st"
	[ -z "$bad" ] || { echo "${bad#; }"; return 1; }
	echo "apply answered in $ms ms"
}
check "api/apply-async: a 5 s reload: rpcd answers 'applying' with a token in < 4 s, status reports its outcome later" apply_async_check
