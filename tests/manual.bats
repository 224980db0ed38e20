#!/usr/bin/env bats
# The manual (man/runlimit.1) against the program it documents: every option that --help
# or --nproc --help lists has an entry in the manual, and every option the manual has an
# entry for is one of theirs; and the manual stays a reference of behaviour, within its
# size (at most 43,900 bytes: why and how go to docs/design.md, figures to
# docs/performance.md, the report's fields to docs/report.schema.json).  The manual is
# read as mdoc source, so no formatter is needed; where the suite runs without the
# source tree (an initramfs, an installed copy of the tests), the tests skip, saying so.

bats_require_minimum_version 1.5.0

load helpers

MANUAL=${RUNLIMIT_MANUAL:-$BATS_TEST_DIRNAME/../man/runlimit.1}
MANUAL_MAX_BYTES=43900

need_manual() {
	[ -f "$MANUAL" ] || skip "no manual at $MANUAL (tests run outside the source tree)"
}

# help_options: the options --help and --nproc --help list, one per line, sorted: the
# short and long names of each "  -s, --signal=SIGNAL" line and the long name of each
# "      --name=NAME" line.  The description lines (indented further) and the usage lines
# are not option entries, even where they name an option.
help_options() {
	{ "$RUNLIMIT" --help && "$RUNLIMIT" --nproc --help; } | awk '
		/^  -[A-Za-z], --[a-z]/ { print substr($1, 1, 2); split($2, a, "="); print a[1]; next }
		/^      --[a-z]/ { split($1, a, "="); print a[1] }' | sort -u
}

# manual_options: the options the manual has an entry for, one per line, sorted: each
# name that a "Fl" gives on an ".It Fl" line of a list (OPTIONS, CORE COUNT's), such as
# ".It Fl s Ar signal , Fl \-signal Ns = Ns Ar signal": -s and --signal.  A flag's words
# run until the next macro; the arguments (Ar) and punctuation are not names.
manual_options() {
	awk '/^\.It Fl / {
		flag = 0
		for (i = 2; i <= NF; i++) {
			if ($i == "Fl") { flag = 1; continue }
			if ($i ~ /^[A-Z][a-z]$/) { flag = 0; continue }
			if (!flag || $i ~ /^[(),.:;|!?]+$/) continue
			w = $i
			gsub(/\\-/, "-", w)
			print "-" w
		}
	}' "$MANUAL" | sort -u
}

# only_in A B: the lines of file A that file B lacks, as one line (both sorted).
only_in() { comm -23 "$1" "$2" | tr '\n' ' '; }

@test "every option --help and --nproc --help list has an entry in the manual, and the reverse" {
	need_manual
	local h=$BATS_TEST_TMPDIR/help m=$BATS_TEST_TMPDIR/manual missing extra
	help_options >"$h"
	manual_options >"$m"
	# Neither list may be empty or cut short by a change of format: then every option would
	# "match".
	grep -qx -- --signal "$h" && grep -qx -- -s "$h" && grep -qx -- --ignore "$h" ||
		{ echo "the options of --help were not found: $(tr '\n' ' ' <"$h")"; return 1; }
	[ "$(wc -l <"$h")" -ge 30 ] || { echo "only $(wc -l <"$h") options in --help"; return 1; }
	[ "$(wc -l <"$m")" -ge 30 ] ||
		{ echo "only $(wc -l <"$m") option entries in $MANUAL: $(tr '\n' ' ' <"$m")"; return 1; }
	missing=$(only_in "$h" "$m")
	extra=$(only_in "$m" "$h")
	[ -z "$missing" ] || echo "listed by --help but without an entry in the manual: $missing"
	[ -z "$extra" ] || echo "with an entry in the manual but not listed by --help: $extra"
	[ -z "$missing" ] && [ -z "$extra" ]
}

@test "the manual is at most 43,900 bytes" {
	need_manual
	local size
	size=$(($(wc -c <"$MANUAL")))
	[ "$size" -le "$MANUAL_MAX_BYTES" ] ||
		{ echo "$MANUAL is $size bytes, over $MANUAL_MAX_BYTES: rationale and figures go to docs/"; return 1; }
}
