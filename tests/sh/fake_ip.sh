#!/bin/sh
# Stand-in for `ip` in tests/sh/apply_test.sh: records every call in $LOG
# and keeps the policy rules and routes it is told about in $IPSTATE, so
# that a test can see what apply.sh left behind (and plant rules and routes
# of other packages).  Only what apply.sh uses:
#
#   ip -4|-6 rule add pref P [fwmark M[/K]] lookup T     (exists: fails)
#   ip -4|-6 rule del [pref P] [fwmark M[/K]] [lookup T] (the first rule
#            matching every given selector, like the kernel; none: fails)
#   ip -4|-6 rule show
#   ip -4|-6 route add|del TYPE DST dev D table T  (DST 0.0.0.0/0
#            and ::/0 are "default"; add over any route to DST in that
#            table and del of a missing route fail)
#   ip -4|-6 route show table all
#   -N (numbers for names) is accepted anywhere before the object; this
#   stand-in knows no names.
#
# State files $IPSTATE/rules4|rules6|routes4|routes6, one per line:
#   pref=90 fwmark=0x10000000/0x10000000 lookup=100
#   table=100 local default dev lo
# FAIL_IP: a call whose arguments match this shell pattern fails (exit 2).

echo "ip $*" >> "$LOG"
[ -n "${FAIL_IP:-}" ] && case "$*" in $FAIL_IP) echo "RTNETLINK answers: Operation not permitted" >&2; exit 2 ;; esac

fam=
while :; do
	case "$1" in -N) ;; -4|-6) fam=${1#-} ;; *) break ;; esac
	shift
done
obj=$1; cmd=$2; shift 2
rules=$IPSTATE/rules$fam routes=$IPSTATE/routes$fam
mkdir -p "$IPSTATE"; touch "$rules" "$routes"

# the first line of file $1 matching every word of $2 (or nothing)
first_match() {
	while read -r line; do
		ok=1
		for w in $2; do
			case " $line " in *" $w "*) ;; *) ok=0 ;; esac
		done
		[ $ok = 1 ] && { echo "$line"; return 0; }
	done < "$1"
	return 1
}

# drop the line $2 (its first occurrence) from file $1
drop_line() {
	awk -v l="$2" '!done && $0 == l { done = 1; next } { print }' "$1" > "$1.new" && mv "$1.new" "$1"
}

case "$obj $cmd" in
rule\ add|rule\ del)
	sel=
	while [ $# -gt 0 ]; do
		case "$1" in
			pref|priority) sel="$sel pref=$2" ;;
			fwmark) sel="$sel fwmark=$2" ;;
			lookup|table) sel="$sel lookup=$2" ;;
			*) echo "fake ip: unsupported rule selector $1" >&2; exit 1 ;;
		esac
		shift 2
	done
	sel=${sel# }
	if [ "$cmd" = add ]; then
		grep -qxF -- "$sel" "$rules" && { echo "RTNETLINK answers: File exists" >&2; exit 2; }
		echo "$sel" >> "$rules"
	else
		line=$(first_match "$rules" "$sel") || { echo "RTNETLINK answers: No such file or directory" >&2; exit 2; }
		drop_line "$rules" "$line"
	fi ;;
rule\ show|rule\ list)
	printf '0:\tfrom all lookup local\n'
	while read -r line; do
		pref= fwmark= lookup=
		for w in $line; do
			case "$w" in pref=*) pref=${w#pref=} ;; fwmark=*) fwmark=" fwmark ${w#fwmark=}" ;; lookup=*) lookup=${w#lookup=} ;; esac
		done
		printf '%s:\tfrom all%s lookup %s\n' "$pref" "$fwmark" "$lookup"
	done < "$rules"
	printf '32766:\tfrom all lookup main\n32767:\tfrom all lookup default\n' ;;
route\ add|route\ del)
	type=$1 dst=$2 dev=$4 table=$6
	case "$dst" in 0.0.0.0/0|::/0) dst=default ;; esac
	line="table=$table $type $dst dev $dev"
	if [ "$cmd" = add ]; then
		awk -v t="table=$table" -v d="$dst" '$1 == t && $3 == d { found = 1 } END { exit !found }' "$routes" &&
			{ echo "RTNETLINK answers: File exists" >&2; exit 2; }
		echo "$line" >> "$routes"
	else
		grep -qxF -- "$line" "$routes" || { echo "RTNETLINK answers: No such process" >&2; exit 2; }
		drop_line "$routes" "$line"
	fi ;;
route\ show|route\ list)
	[ "$*" = "table all" ] || { echo "fake ip: unsupported: route show $*" >&2; exit 1; }
	sed -n 's/^table=\([0-9]*\) \(.*\)/\2 table \1/p' "$routes" ;;
*)
	echo "fake ip: unsupported: $obj $cmd" >&2; exit 1 ;;
esac
exit 0
