#!/usr/bin/env bats
# The shell completions (completions/): what each real shell offers on a runlimit command
# line: bash with bash-completion, zsh after compinit, fish.  Each shell completes every
# line of one list once, in setup_file (tests/tools/complete-in-*), and the tests read what
# it offered; a shell not installed skips its tests, saying so.  A named run is live
# meanwhile, for --cancel.

bats_require_minimum_version 1.5.0

load helpers

# The lines completed, the cursor at the end of each; a test names a line by its text.
CASES=(
	'runlimit --'
	'runlimit -'
	'runlimit -s '
	'runlimit --signal '
	'runlimit --signal=K'
	'runlimit -vs K'
	'runlimit -k 5 -s '
	'runlimit rlfake'
	'runlimit 10 rlfake'
	'runlimit -k 5 --report out -s KILL 10 rlfake'
	'runlimit --signal=KILL --name=x 10 rlfake'
	'runlimit -- 10 rlfake'
	'runlimit 10 rlfakecmd rlfi'
	'runlimit 10 rlfakecmd --'
	'runlimit 10 runlimit --kill-a'
	'runlimit 10 runlimit -k 1 5 rlfakecmd rlfi'
	'runlimit --report rlfi'
	'runlimit --report=rlfi'
	'runlimit --cancel '
	'runlimit --cancel=compl'
	'runlimit --nproc --'
)

setup_file() {
	export C=$BATS_FILE_TMPDIR
	REPO=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	mkdir -p "$C/bin" "$C/work" "$C/home" "$C/names"
	ln -s "$RUNLIMIT" "$C/bin/runlimit"
	printf '#!/bin/sh\n' >"$C/bin/rlfakecmd"
	chmod +x "$C/bin/rlfakecmd"
	: >"$C/work/rlfile.txt"
	printf '%s\n' "${CASES[@]}" >"$C/lines"
	# Each shell as a user's would be, with nothing of the user's: PATH with the fake
	# command and runlimit first, a home of its own, the named runs in $C/names.
	export RUNLIMIT_DIR=$C/names
	export COMPL_NAME=compltest$$
	"$RUNLIMIT" --name="$COMPL_NAME" 30 sleep 30 </dev/null >/dev/null 2>&1 3>&- &
	wait_until 10 test -S "$RUNLIMIT_DIR/$COMPL_NAME.sock"
	local bc='' f
	for f in ${BASH_COMPLETION_SCRIPT:-} /usr/share/bash-completion/bash_completion \
		/usr/local/share/bash-completion/bash_completion \
		/usr/local/share/bash-completion/bash_completion.sh \
		/opt/homebrew/share/bash-completion/bash_completion; do
		[ -f "$f" ] && bc=$f && break
	done
	# the three at once: the most of this file's time is theirs
	local pids=''
	complete_in bash "$bc" 3>&- &
	pids="$pids $!"
	complete_in zsh 3>&- &
	pids="$pids $!"
	complete_in fish 3>&- &
	pids="$pids $!"
	# shellcheck disable=SC2086 # (not the named run's)
	wait $pids
}

# complete_in SHELL [BASH_COMPLETION]: SHELL completes CASES into $C/SHELL.out, or says in
# $C/SHELL.skip why it cannot (not installed; for bash, no bash-completion 2) or in
# $C/SHELL.failed how it failed.
complete_in() {
	local sh=$1 bc=${2:-} status=0
	if ! command -v "$sh" >/dev/null 2>&1; then
		echo "$sh is not installed" >"$C/$sh.skip"
		return
	fi
	if [ "$sh" = bash ] && [ -z "$bc" ]; then
		echo "bash-completion is not installed" >"$C/$sh.skip"
		return
	fi
	(cd "$C/work" && env HOME="$C/home" XDG_CONFIG_HOME="$C/home" XDG_DATA_HOME="$C/home" \
		XDG_DATA_DIRS="$C/home" PATH="$C/bin:$PATH" \
		"$sh" "$BATS_TEST_DIRNAME/tools/complete-in-$sh" ${bc:+"$bc"} "$REPO/completions" \
		"$C/lines" >"$C/$sh.out" 2>"$C/$sh.err") || status=$?
	if [ "$sh" = bash ] && [ "$status" -eq 3 ]; then
		cat "$C/$sh.err" >"$C/$sh.skip" # this bash cannot run bash-completion 2
	elif [ "$status" -ne 0 ]; then
		echo "$sh failed ($status): $(cat "$C/$sh.err")" >"$C/$sh.failed"
	fi
}

teardown_file() {
	"$RUNLIMIT" --cancel="$COMPL_NAME" >/dev/null 2>&1 || true
}

# shell_ran SHELL: skip if SHELL (or bash-completion) is missing; fail if it failed.
shell_ran() {
	[ ! -e "$C/$1.skip" ] || skip "$(cat "$C/$1.skip")"
	if [ -e "$C/$1.failed" ]; then
		cat "$C/$1.failed"
		return 1
	fi
	SH=$1
}

# expect: each line of stdin, "offers|LINE|WORD..." or "none|LINE|WORD...", holds of what
# $SH completed for LINE (one of CASES).  offers: each WORD is offered, as it is, with "="
# after it (bash's --report=), or after an option's "=" (fish's --cancel=NAME); none: no
# WORD is offered, as it is or with "=" after it.  One awk for all: a test stays quick.
expect() {
	awk -v sh="$SH" -v lines="$C/lines" '
		BEGIN { while ((getline l <lines) > 0) num[l] = ++k }
		FNR == NR { spec[++nspec] = $0; next }
		/^=== / { n = $2; next }
		{
			got[n, $0] = 1
			all[n] = all[n] " " $0
			if (match($0, /^--?[a-z-]*=/)) after[n, substr($0, RLENGTH + 1)] = 1
		}
		END {
			for (s = 1; s <= nspec; s++) {
				split(spec[s], f, "|")
				n = num[f[2]]
				if (!n) { printf "no line \"%s\" in CASES\n", f[2]; bad = 1; continue }
				k = split(f[3], w, " ")
				for (i = 1; i <= k; i++) {
					has = ((n, w[i]) in got) || ((n, w[i] "=") in got)
					if (f[1] == "offers" && !has && !((n, w[i]) in after)) {
						printf "%s offers no %s for \"%s\"; it offers:%s\n", sh, w[i], f[2], all[n]
						bad = 1
					} else if (f[1] == "none" && has) {
						printf "%s offers %s for \"%s\"\n", sh, w[i], f[2]
						bad = 1
					}
				}
			}
			exit bad
		}' - "$C/$SH.out"
}

# Every option --help shows, long and short.
check_options() {
	local long short
	long=$("$RUNLIMIT" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u | grep -vxE -e '--all|--ignore' | tr '\n' ' ')
	short=$("$RUNLIMIT" --help | grep -oE -- '^  -[a-z],' | tr -d ' ,' | tr '\n' ' ')
	[ "$(echo "$long" | wc -w)" -ge 17 ] && [ "$(echo "$short" | wc -w)" -eq 5 ]
	expect <<-EOF
		offers|runlimit --|$long
		offers|runlimit -|$short
	EOF
}

check_signals() {
	expect <<-'EOF'
		offers|runlimit -s |TERM KILL INT HUP USR1
		offers|runlimit --signal |TERM KILL
		offers|runlimit --signal=K|KILL
		offers|runlimit -vs K|KILL
		offers|runlimit -k 5 -s |TERM
		none|runlimit -s |rlfile.txt rlfakecmd
	EOF
}

# After the DURATION, past options and their values in either form: the COMMAND; where
# the DURATION goes, none.
check_command() {
	expect <<-'EOF'
		offers|runlimit 10 rlfake|rlfakecmd
		offers|runlimit -k 5 --report out -s KILL 10 rlfake|rlfakecmd
		offers|runlimit --signal=KILL --name=x 10 rlfake|rlfakecmd
		offers|runlimit -- 10 rlfake|rlfakecmd
		none|runlimit rlfake|rlfakecmd
	EOF
}

# The COMMAND's arguments are its own completion's: a file for a command without one,
# runlimit's options for runlimit itself; runlimit's options are not offered there.
check_command_args() {
	expect <<-'EOF'
		offers|runlimit 10 rlfakecmd rlfi|rlfile.txt
		none|runlimit 10 rlfakecmd --|--kill-after --signal
		offers|runlimit 10 runlimit --kill-a|--kill-after
		offers|runlimit 10 runlimit -k 1 5 rlfakecmd rlfi|rlfile.txt
	EOF
}

check_report() {
	expect <<-'EOF'
		offers|runlimit --report rlfi|rlfile.txt
		offers|runlimit --report=rlfi|rlfile.txt
	EOF
}

check_cancel() {
	expect <<-EOF
		offers|runlimit --cancel |$COMPL_NAME
		offers|runlimit --cancel=compl|$COMPL_NAME
		none|runlimit --cancel |rlfile.txt
	EOF
}

check_nproc() {
	expect <<-'EOF'
		offers|runlimit --nproc --|--all --ignore --help
		none|runlimit --nproc --|--kill-after --signal
	EOF
}

@test "bash: every option, long and short" { shell_ran bash; check_options; }
@test "bash: signal names after -s, --signal, --signal= and -vs" { shell_ran bash; check_signals; }
@test "bash: the command after the DURATION, past runlimit's options" { shell_ran bash; check_command; }
@test "bash: the command's arguments by its own completion" { shell_ran bash; check_command_args; }
@test "bash: a file after --report" { shell_ran bash; check_report; }
@test "bash: a live name after --cancel" { shell_ran bash; check_cancel; }
@test "bash: --nproc's own options" { shell_ran bash; check_nproc; }

@test "zsh: every option, long and short" { shell_ran zsh; check_options; }
@test "zsh: signal names after -s, --signal, --signal= and -vs" { shell_ran zsh; check_signals; }
@test "zsh: the command after the DURATION, past runlimit's options" { shell_ran zsh; check_command; }
@test "zsh: the command's arguments by its own completion" { shell_ran zsh; check_command_args; }
@test "zsh: a file after --report" { shell_ran zsh; check_report; }
@test "zsh: a live name after --cancel" { shell_ran zsh; check_cancel; }
@test "zsh: --nproc's own options" { shell_ran zsh; check_nproc; }

@test "fish: every option, long and short" { shell_ran fish; check_options; }
@test "fish: signal names after -s, --signal, --signal= and -vs" { shell_ran fish; check_signals; }
@test "fish: the command after the DURATION, past runlimit's options" { shell_ran fish; check_command; }
@test "fish: the command's arguments by its own completion" { shell_ran fish; check_command_args; }
@test "fish: a file after --report" { shell_ran fish; check_report; }
@test "fish: a live name after --cancel" { shell_ran fish; check_cancel; }
@test "fish: --nproc's own options" { shell_ran fish; check_nproc; }
