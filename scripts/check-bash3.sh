#!/bin/sh
# check-bash3.sh: the test suite runs under macOS's /bin/bash, which is bash 3.2.  Fail, with
# file:line and the construct, where the shell code of the tests, the scripts or .ci/run uses
# something bash 3.2 does not have.  Comment lines are skipped; so is this file (its patterns
# would match themselves).  A grep, not a parser: it catches the usual forms only.
# The descriptions and patterns are literal text, single-quoted on purpose.
# shellcheck disable=SC2016
set -u
cd "$(dirname "$0")/.." || exit 1
files=
for f in tests/*.bats tests/vm/*.bats tests/vm/*.bash tests/helpers.bash tests/tools/*.sh tests/tools/block_signals scripts/*.sh bench/*.sh .ci/run; do
	[ -f "$f" ] && [ "$f" != scripts/check-bash3.sh ] && files="$files $f"
done
id='[A-Za-z_][A-Za-z0-9_]*'
not_word='(^|[^A-Za-z0-9_])'
found=0

# check DESCRIPTION ERE: report every non-comment line of the files that matches ERE.
check() {
	# shellcheck disable=SC2086 # the file list is split on purpose (no spaces in it)
	hits=$(grep -nE -- "$2" $files /dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
	[ -n "$hits" ] || return 0
	printf '%s\n' "$hits" | while IFS= read -r hit; do printf '%s\n    ^ %s\n' "$hit" "$1"; done
	found=1
}

# ${x,,} ${x^^} ${x,} ${x^}: case modification, bash 4.0.
check 'case modification ${x,,} / ${x^^} (bash 4.0)' "\\\$\\{$id(\\[[^]]*\\])?(,|\\^)"
# declare -A: associative arrays, bash 4.0.
check 'associative array, declare -A (bash 4.0)' "$not_word(declare|typeset|local)[[:space:]]+-[A-Za-z]*A"
# local -n / declare -n: namerefs, bash 4.3.
check 'nameref, local -n / declare -n (bash 4.3)' "$not_word(declare|typeset|local)[[:space:]]+-[A-Za-z]*n"
# declare -g (4.2), -l and -u (4.0).
check 'declare -g / -l / -u (bash 4)' "$not_word(declare|typeset|local)[[:space:]]+-[A-Za-z]*[glu]"
# local - (save the shell options), bash 4.4.
check 'local - (bash 4.4)' "${not_word}local[[:space:]]+-([[:space:]]|;|\$)"
# wait -n (4.3), wait -f (5.0), wait -p (5.1).
check 'wait -n / -f / -p (bash 4.3+)' "${not_word}wait[[:space:]]+-[A-Za-z]*[nfp]"
# mapfile and its other name readarray, bash 4.0.
check 'mapfile / readarray (bash 4.0)' "$not_word(mapfile|readarray)([^A-Za-z0-9_-]|\$)"
# &>> appends stdout and stderr, bash 4.0 (&> is older and fine).
check '&>> (bash 4.0)' '&>>'
# |& pipes stderr too, bash 4.0.
check '|& (bash 4.0)' '\|&'
# ${var@Q} and the other transformations, bash 4.4.
check '${var@op} transformation (bash 4.4)' '\$\{[^}]*@[QEPAaKkuUL]\}'
# ${a[-1]} and a[-1]=: negative array indices, bash 4.3.
check 'negative array index (bash 4.3)' "$id\\[-[0-9]+\\]"
# ;;& and ;& end a case item and go on, bash 4.0.
check ';;& / ;& in case (bash 4.0)' ';;&|;&([[:space:]]|$)'
# coproc, bash 4.0.
check 'coproc (bash 4.0)' "${not_word}coproc([^A-Za-z0-9_]|\$)"
# $BASHPID, bash 4.0.
check '$BASHPID (bash 4.0)' '\$\{?BASHPID'
# Variables of bash 5.
check '$EPOCHREALTIME / $EPOCHSECONDS / $SRANDOM / $BASH_ARGV0 (bash 5)' \
	'\$\{?(EPOCHREALTIME|EPOCHSECONDS|SRANDOM|BASH_ARGV0)'
# exec {fd}>file: a descriptor in a variable, bash 4.1.
check '{fd}> descriptor in a variable (bash 4.1)' "(^|[^\$A-Za-z0-9_])\\{$id\\}[<>]"
# [[ -v name ]] and test -v, bash 4.2.
check '[[ -v ]] / test -v (bash 4.2)' '(\[\[?|test)[[:space:]]+-v[[:space:]]'
# shopt options that 3.2 does not know.
check 'shopt option of bash 4+' \
	'shopt[[:space:]]+-s[[:space:]].*(globstar|lastpipe|inherit_errexit|autocd|checkjobs|direxpand|globasciiranges|localvar_inherit|assoc_expand_once|patsub_replacement)'
# read -N (4.1), read -i (4.0), a fractional read -t (4.0).
check 'read -N / -i / fractional -t (bash 4)' \
	"${not_word}read[[:space:]]+(-[A-Za-z]+[[:space:]]+)*-[A-Za-z]*[Ni]|${not_word}read[[:space:]].*-t[[:space:]]*[0-9]*\\."
# printf '%(...)T': dates in printf, bash 4.2.
check "printf '%(fmt)T' (bash 4.2)" 'printf[[:space:]].*%\([^)]*\)T'
# ${x:1:-1}: a negative substring length, bash 4.2.
check 'negative substring length ${x:1:-1} (bash 4.2)' "\\\$\\{$id:[^}:]*:[[:space:]]*-[0-9]"

if [ "$found" -ne 0 ]; then
	echo "check-bash3: constructs that bash 3.2 (macOS's /bin/bash) lacks, above" >&2
	exit 1
fi
echo "check-bash3: no bash-4 constructs in:$files"
