#!/bin/sh
# Run every tests/*.bats file, JOBS files at a time (default 4), each in its own bats
# process; print each file's TAP output, then one summary line: "N passed, N failed".
set -u
jobs=${1:-4}
cd "$(dirname "$0")/.." || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The slowest files first (measured on a 2-core machine), so that the last one to finish
# does not start late: the rest follow in name order.
slow="python python39 relay-bound named-bound safety tree cli silence tty"
files=${BATS_FILES:-$(for s in $slow; do [ -e "tests/$s.bats" ] && echo "tests/$s.bats"; done
	for f in tests/*.bats; do
		case " $slow " in *" $(basename "$f" .bats) "*) ;; *) echo "$f" ;; esac
	done)}
# shellcheck disable=SC2086,SC2016
# Each file runs under scripts/reaper.py, which reaps whatever its tests orphan at once.
printf '%s\n' $files | xargs -P "$jobs" -I{} sh -c 'f=$1; o=$2/$(basename "$f").tap
	scripts/reaper.py bats --tap "$f" >"$o" 2>&1; echo $? >"$o.rc"' _ {} "$out"
pass=0 fail=0 skip=0 bad=0
for f in $files; do
	tap=$out/$(basename "$f").tap
	echo "# $f"
	cat "$tap"
	p=$(grep -c '^ok ' "$tap")
	s=$(grep -c '^ok .* # skip' "$tap")
	n=$(grep -c '^not ok ' "$tap")
	pass=$((pass + p - s)) skip=$((skip + s)) fail=$((fail + n))
	if [ "$(cat "$tap.rc")" != 0 ] && [ "$n" -eq 0 ]; then
		echo "# $f: bats failed without a failing test"; bad=$((bad + 1))
	fi
done
echo "bats: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$bad" -eq 0 ] && [ "$pass" -gt 0 ]
