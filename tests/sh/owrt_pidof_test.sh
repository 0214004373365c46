#!/bin/bash
# tests/owrt/env.sh's owrt_pidof on stand-ins (root /, no OpenWrt parts
# needed): an init script run through its shebang has the script's name
# as comm too and must not count as the program; a binary of that name
# and a script of that name run by ucode do.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/sh/tap.sh"
. "$top/tests/owrt/env.sh"
OWRT_ROOT=/

T=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do pkill -P "$p"; kill "$p"; done 2>/dev/null; rm -rf "$T"' EXIT
mkdir -p "$T/init.d" "$T/sbin/script" "$T/bin"
name=reterm-pidoft	# unique here: nothing else runs by this name
printf 'sleep 30\n' > "$T/rc.common"
printf '#!/bin/sh %s\n' "$T/rc.common" > "$T/init.d/$name"
ln -s /bin/sh "$T/bin/ucode"	# an interpreter named ucode
printf '#!%s\nsleep 30\n' "$T/bin/ucode" > "$T/sbin/script/$name"
cp "$(command -v sleep)" "$T/sbin/$name"
chmod 755 "$T/init.d/$name" "$T/sbin/script/$name"

# started (its pid in $pid), then waited for until its comm is the name
start() { "$@" & pid=$!; pids+=($pid); for _ in $(seq 50); do [ "$(cat /proc/$pid/comm 2>/dev/null)" = "$name" ] && break; sleep 0.05; done; }

start "$T/init.d/$name"; init=$pid
ok "owrt_pidof: the init script of that name is not the program" test -z "$(owrt_pidof "$name")"
start "$T/sbin/$name" 30; bin=$pid
start "$T/sbin/script/$name"; script=$pid
ok "owrt_pidof: a binary and a ucode script of that name are ($bin $script; init $init)" \
	test "$(owrt_pidof "$name" | tr ' ' '\n' | sort | tr '\n' ' ')" = "$(printf '%s\n' "$bin" "$script" | sort | tr '\n' ' ')"
echo "sh-pidof: $passed passed, $failed failed"
[ "$failed" = 0 ]
