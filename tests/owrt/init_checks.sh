# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/owrt/run.sh (ok/notok/check, owrt_* from env.sh): the
# init scripts /etc/init.d/reterm and /etc/init.d/reterm-latencyd through OpenWrt's
# real rc.common and procd.sh, OpenWrt's procd doing the instances.
#
#   init/start            instance, respawn, limits, file and triggers sent;
#                         haproxy listens, rule/route/includes/nft in place,
#                         state "ok"
#   init/reload           a `uci commit` + config.change event (what
#                         reload_config and LuCI's apply cause): new rules,
#                         haproxy not restarted
#   init/rejected         a bad config keeps the previous state running and
#                         status/apply say so
#   init/crash-loop       haproxy that cannot bind: respawn gives up, status
#                         reports the loop and haproxy's error line
#   init/fd-limit         maxconn 8192 under procd's default descriptor limit
#   init/reterm-latencyd-reload   a config change reloads reterm-latencyd: a running test and
#                         the live rings survive
#   init/autorate         adaptive shaping's settings reach reterm-latencyd through
#                         the reload trigger: refused, on, off
#   init/stop             nothing left behind

osh() { owrt_sh "$@"; }
event() { osh "ubus call service event '{\"type\":\"config.change\",\"data\":{\"package\":\"$1\"}}'"; }
# procd runs a reload trigger PROCD_RELOAD_DELAY (1 s) after the event, as
# "/etc/rc.common /etc/init.d/NAME reload": wait past the delay, then until
# no init script has run in the root for 0.6 s
rc_running() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$OWRT_ROOT" ] || continue
		tr '\0' ' ' < "$p/cmdline" 2>/dev/null | grep -q '/etc/rc.common' && return 0
	done
	return 1
}
triggers_idle() {
	local n=150 quiet=0
	sleep 1.2
	while [ $n -gt 0 ]; do
		if rc_running; then quiet=0; else quiet=$((quiet + 1)); fi
		[ $quiet -ge 3 ] && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}
svc_json() { osh "ubus call service list '{\"name\":\"$1\"}'"; }
jq_py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
haproxy_pid() { svc_json reterm | jq_py "d['reterm']['instances']['haproxy'].get('pid') or ''"; }
# the last "service set" the init script NAME sent procd (ubus monitor)
last_set() { owrt_service_sets "$1" | tail -n 1; }
listening() { osh "netstat -ltn 2>/dev/null" | grep -q "127.0.0.1:15001 "; }
wait_for() { local n=$(($1 * 5)); shift; while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.2; n=$((n - 1)); done; return 1; }

# bridge netfilter: this network namespace's own switches (the host module
# may be loaded); on, reterm refuses to apply
brnf() {
	local k
	for k in bridge-nf-call-iptables bridge-nf-call-ip6tables; do
		[ -w /proc/sys/net/bridge/$k ] && echo "$1" > /proc/sys/net/bridge/$k
	done
	return 0
}
brnf 0

osh "uci -q batch" >/dev/null <<'EOF'
set reterm.main.enabled='1'
add reterm device
set reterm.@device[-1].name='nintendo-3ds'
set reterm.@device[-1].mac='02:00:00:00:3d:51'
set reterm.@device[-1].ports='all'
set reterm.@device[-1].enabled='1'
commit reterm
EOF

# ---- start ------------------------------------------------------------------
init_start() {
	osh "/etc/init.d/reterm start" || return 1
	wait_for 10 listening || { echo "haproxy does not listen on 15001"; tail "$OWRT_LOG/procd.log"; return 1; }
	last_set reterm | python3 -c '
import json, sys
m = json.loads(sys.stdin.read())
i = m["instances"]["haproxy"]
want = {"command": ["/usr/libexec/reterm/haproxy-run"], "respawn": ["60", "5", "5"],
        "file": ["/var/etc/reterm/haproxy.cfg"], "reload_signal": 12}
bad = [k for k, v in want.items() if i.get(k) != v]
nofile = i.get("limits", {}).get("nofile", "")
if not nofile or int(nofile.split()[0]) < 3 * 256:
    bad.append("limits " + repr(i.get("limits")))
trig = json.dumps(m.get("triggers"))
if "config.change" not in trig or "\"reterm\"" not in trig or "\"firewall\"" not in trig:
    bad.append("triggers " + trig)
if bad:
    sys.exit("service set differs: %s\n%s" % (bad, json.dumps(i)))
' || return 1
	osh "grep -qx result=ok /var/run/reterm/state" || { echo "state: $(osh 'cat /var/run/reterm/state')"; return 1; }
	osh "ip rule show pref 90" | grep -q "fwmark 0x10000000/0x10000000 lookup 100" || { echo "no ip rule"; return 1; }
	osh "ip route show table 100" | grep -q "local default dev lo" || { echo "no route in table 100"; return 1; }
	for f in ruleset-pre/reterm.nft table-pre/reterm.nft chain-pre/mangle_prerouting/reterm.nft chain-pre/input/reterm.nft; do
		osh "test -L /usr/share/nftables.d/$f && test -r /usr/share/nftables.d/$f" || { echo "include $f missing"; return 1; }
	done
	osh "nft list chain inet fw4 mangle_prerouting" | grep -q "jump reterm_prerouting" &&
		osh "nft list chain inet fw4 reterm_divert" | grep -q "tproxy" || { echo "no tproxy rule loaded"; return 1; }
}
check "init/start: rc.common + procd.sh send instance, respawn, limits, file, triggers; rules loaded, haproxy listens, state ok" init_start

# ---- reload after uci commit -------------------------------------------------
init_reload() {
	local pid0 pid1
	pid0=$(haproxy_pid)
	osh "uci set reterm.@device[0].ports='80 443 8080-8090' && uci commit reterm" || return 1
	event reterm && triggers_idle || { echo "the reload trigger did not end"; return 1; }
	osh "grep -qx result=ok /var/run/reterm/state" || { echo "state: $(osh 'cat /var/run/reterm/state')"; return 1; }
	osh "nft list ruleset" | grep -q "8080-8090" || { echo "new ports not in the ruleset"; return 1; }
	pid1=$(haproxy_pid)
	[ -n "$pid0" ] && [ "$pid0" = "$pid1" ] || { echo "haproxy restarted: $pid0 -> $pid1"; return 1; }
}
check "init/reload: uci commit + config.change reloads the rules, haproxy keeps running" init_reload

# ---- a config the service refuses keeps the previous state --------------------
# br_netfilter on (as the real parts showed): device_set saves, the init
# script refuses to apply; rc.common still exits 0
init_rejected() {
	local pid0 pid1 st api
	[ -w /proc/sys/net/bridge/bridge-nf-call-iptables ] || { echo "no br_netfilter switches here"; return 1; }
	pid0=$(haproxy_pid)
	brnf 1
	api=$(osh "ubus call reterm device_set '{\"mac\":\"02:00:00:00:3d:51\",\"ports\":\"web\"}'")
	st=$(osh "ubus call reterm status")
	pid1=$(haproxy_pid)
	brnf 0
	osh "/etc/init.d/reterm reload"
	grep -q '"applied": false' <<<"$api" && grep -q 'br_netfilter is active' <<<"$api" || { echo "device_set answered: $api"; return 1; }
	grep -q '"applied": "rejected"' <<<"$st" && grep -q 'br_netfilter is active' <<<"$st" || { echo "status: $st"; return 1; }
	[ "$pid0" = "$pid1" ] || { echo "haproxy restarted: $pid0 -> $pid1"; return 1; }
	osh "nft list chain inet fw4 mangle_prerouting" | grep -q "reterm_prerouting" || { echo "rules gone"; return 1; }
	listening || { echo "listener gone"; return 1; }
}
check "init/rejected: br_netfilter on, device_set: applied false with the reason, status says rejected, previous state runs" init_rejected

# ---- haproxy's descriptors -----------------------------------------------------
# haproxy's "show info" over its stats socket (from outside the chroot)
hap_info() {
	python3 - "$OWRT_ROOT/var/run/reterm/haproxy.sock" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"show info\n")
out = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    out += b
print(out.decode())
EOF
}
# maxconn 8192 under procd's default limit (soft 1024, hard 4096): procd is
# asked for 3 x 8192 + 64 descriptors; where it cannot raise the hard limit
# (no CAP_SYS_RESOURCE, as in this sandbox) haproxy must still start and
# size its maxconn to the limit it got
init_fd_limit() {
	local info lim mc
	osh "uci set reterm.main.maxconn='8192' && uci commit reterm && /etc/init.d/reterm restart" || return 1
	wait_for 10 listening || { echo "haproxy does not listen with maxconn 8192"; osh "cat /var/run/reterm/haproxy.err"; return 1; }
	last_set reterm | grep -q '"nofile": "24640 24640"' || { echo "procd not asked for 24640 descriptors: $(last_set reterm)"; return 1; }
	sleep 1
	info=$(hap_info) || { echo "no stats socket"; return 1; }
	lim=$(sed -n 's/^Ulimit-n: //p' <<<"$info")
	mc=$(sed -n 's/^Maxconn: //p' <<<"$info")
	[ -n "$lim" ] && [ -n "$mc" ] && [ $((2 * mc)) -le "$lim" ] || { echo "maxconn $mc with $lim descriptors"; return 1; }
	[ -n "$(haproxy_pid)" ] || { echo "haproxy not running"; return 1; }
	echo "maxconn $mc, ulimit-n $lim" > "$OWRT_DIR/fd-limit.txt"
	osh "uci delete reterm.main.maxconn; uci commit reterm; /etc/init.d/reterm restart"
}
check "init/fd-limit: maxconn 8192 under procd's default limit (1024/4096): haproxy runs, its maxconn fits the descriptors it got" init_fd_limit

# ---- crash loop ----------------------------------------------------------------
init_crash_loop() {
	local st
	osh "/etc/init.d/reterm stop"
	python3 -c 'import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 15001)); s.listen(); time.sleep(60)' &
	local blocker=$!
	sleep 0.5
	osh "/etc/init.d/reterm start"
	# 6 short runs 5 s apart, then procd gives up
	wait_for 45 grep -q 'Instance reterm::haproxy s in a crash loop' "$OWRT_LOG/procd.log" ||
		{ echo "respawn never gave up"; tail "$OWRT_LOG/procd.log"; kill $blocker; return 1; }
	st=$(osh "ubus call reterm status")
	kill $blocker; wait $blocker 2>/dev/null
	osh "/etc/init.d/reterm restart"
	wait_for 10 listening || { echo "no recovery after the port was freed"; return 1; }
	python3 - "$st" <<'EOF'
import json, sys
s = json.loads(sys.argv[1])
h = s.get("haproxy") or {}
ok = (h.get("crash_loop") is True and h.get("running") is False
      and "bind" in (h.get("last_error") or "").lower()
      and any("haproxy keeps exiting" in e for e in s.get("errors", [])))
sys.exit(0 if ok else "status: " + json.dumps(s))
EOF
}
check "init/crash-loop: haproxy failing at start gives up after 6 runs; status shows the loop and its bind error" init_crash_loop

# ---- reterm-latencyd: reload keeps a running test and the rings --------------------------
init_reterm-latencyd_reload() {
	local port pid0 pid1 id0 id1 tid st
	python3 "$TOP/tests/ucode/latency/httpd.py" > "$OWRT_DIR/httpd.port" 2>/dev/null &
	local httpd=$!
	wait_for 5 test -s "$OWRT_DIR/httpd.port"
	port=$(head -n 1 "$OWRT_DIR/httpd.port")
	# the local httpd is a private target: only the admin-only option
	# (a package the app's ACL cannot write) allows it; read at test_start
	osh "touch /etc/config/reterm_admin && uci set reterm_admin.latency=latency &&
		uci set reterm_admin.latency.test_server=127.0.0.1 && uci commit reterm_admin"
	osh "/etc/init.d/reterm-latencyd start"
	wait_for 10 sh -c "chroot '$OWRT_ROOT' ubus call reterm.latency status >/dev/null 2>&1" || { echo "reterm-latencyd not up"; kill $httpd; return 1; }
	last_set reterm-latencyd | grep -q '"file"' && { echo "reterm-latencyd still restarts on file changes: $(last_set reterm-latencyd)"; kill $httpd; return 1; }
	pid0=$(svc_json reterm-latencyd | jq_py "d['reterm-latencyd']['instances']['reterm-latencyd']['pid']")
	id0=$(osh "ubus call reterm.latency samples" | jq_py "d['id']")
	tid=$(osh "ubus call reterm.latency test_start '{\"download_url\":\"http://127.0.0.1:$port/bytes/100000000\",\"upload_url\":\"http://127.0.0.1:$port/upload\"}'" | jq_py "d.get('id') or d")
	sleep 1
	osh "uci add_list reterm.latency.reflector='127.0.0.1' && uci commit reterm" && event reterm && triggers_idle
	osh "uci set sqm.test=queue && uci set sqm.test.interface=lo && uci set sqm.test.enabled=0 && uci commit sqm" && event sqm && triggers_idle
	sleep 1
	pid1=$(svc_json reterm-latencyd | jq_py "d['reterm-latencyd']['instances']['reterm-latencyd']['pid']")
	st=$(osh "ubus call reterm.latency test_status")
	id1=$(osh "ubus call reterm.latency samples" | jq_py "d['id']")
	osh "ubus call reterm.latency test_stop" >/dev/null
	osh "rm -f /etc/config/reterm_admin"
	kill $httpd
	[ "$pid0" = "$pid1" ] || { echo "reterm-latencyd restarted: $pid0 -> $pid1"; return 1; }
	grep -q '"state": "running"' <<<"$st" && grep -q "\"id\": \"$tid\"" <<<"$st" || { echo "test lost: $st (id $tid)"; return 1; }
	[ "$id0" = "$id1" ] || { echo "rings replaced: $id0 -> $id1"; return 1; }
	osh "ubus call reterm.latency status" | grep -q '"127.0.0.1"' || { echo "new reflector not in force"; return 1; }
}
check "init/reterm-latencyd-reload: reterm and sqm changes reload reterm-latencyd; the running test and the rings survive" init_reterm-latencyd_reload

# ---- adaptive shaping through procd's reload trigger ------------------------------
# (the sandbox kernel has no CAKE: reterm-latencyd holds its rates and says so)
init_autorate() {
	local st
	osh "uci set sqm.test.enabled=1 && uci set sqm.test.download=18000 && uci set sqm.test.upload=4500 &&
		uci set sqm.test.qdisc=cake && uci commit sqm &&
		uci set reterm.test=autorate && uci set reterm.test.enabled=1 && uci set reterm.test.dl_min=50000 &&
		uci commit reterm" || return 1
	event reterm && triggers_idle
	st=$(osh "ubus call reterm.latency autorate_status")
	grep -q '"enabled": false' <<<"$st" && grep -q 'minimum 50000 <= base 18000' <<<"$st" ||
		{ echo "bad settings not refused with the reason: $st"; return 1; }
	osh "ubus call reterm.latency status" | grep -q '"autorate": "error"' || { echo "reterm.latency status does not say error"; return 1; }
	osh "uci set reterm.test.dl_min=4000 && uci commit reterm" && event reterm && triggers_idle
	st=$(osh "ubus call reterm.latency autorate_status")
	grep -q '"enabled": true' <<<"$st" && grep -q '"queue": "test"' <<<"$st" && grep -q '"rate_kbit": 18000' <<<"$st" &&
		grep -q '"dl": false' <<<"$st" || { echo "autorate not on with sqm's rates, or CAKE not reported missing: $st"; return 1; }
	osh "uci set reterm.test.enabled=0 && uci commit reterm" && event reterm && triggers_idle
	st=$(osh "ubus call reterm.latency autorate_status")
	osh "uci delete reterm.test && uci commit reterm && uci set sqm.test.enabled=0 && uci commit sqm"
	event reterm && event sqm && triggers_idle
	grep -q '"enabled": false' <<<"$st" && ! grep -q 'minimum' <<<"$st" || { echo "not off: $st"; return 1; }
}
check "init/autorate: adaptive shaping follows /etc/config/reterm through procd's reload: bad settings refused with the reason, on with sqm's rates, off" init_autorate

# ---- stop ------------------------------------------------------------------------
init_stop() {
	local left=
	osh "/etc/init.d/reterm stop" || return 1
	sleep 0.5
	osh "nft list ruleset" | grep -q reterm && left="$left nft"
	for f in ruleset-pre/reterm.nft table-pre/reterm.nft chain-pre/mangle_prerouting/reterm.nft chain-pre/input/reterm.nft; do
		osh "test -e /usr/share/nftables.d/$f || test -L /usr/share/nftables.d/$f" && left="$left include:$f"
	done
	osh "ip rule show" | grep -q "lookup 100" && left="$left ip-rule"
	osh "ip -6 rule show" | grep -q "lookup 100" && left="$left ip6-rule"
	[ -n "$(osh 'ip route show table 100' 2>/dev/null)" ] && left="$left route"
	[ -n "$(owrt_pidof haproxy)" ] && left="$left haproxy"
	osh "test -e /var/etc/reterm" && left="$left /var/etc/reterm"
	[ -z "$left" ] || { echo "left behind:$left"; return 1; }
}
check "init/stop: no chain, set, include, ip rule, route, haproxy or /var/etc/reterm left" init_stop
