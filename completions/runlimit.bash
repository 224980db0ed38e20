# bash completion for runlimit, loaded by bash-completion (2.x), which `make install` puts
# it in: $(datarootdir)/bash-completion/completions/runlimit.
#
# Before the DURATION: runlimit's options, a signal name after -s/--signal, a file after
# --report, a live name after --cancel (from `runlimit --list`).  After the DURATION: the
# COMMAND and its arguments, completed as that command's own completion does.
# shellcheck shell=bash
# No candidate here holds a space or a glob character, so COMPREPLY=($(compgen ...)), the
# idiom of bash-completion's own files, splits them right.
# shellcheck disable=SC2207

# Options that take a value in the next word (or after "=").
_runlimit_argopts='--kill-after --signal --report --output-grace --no-output-timeout
	--report-tail --name --cancel --marker-ttl --reserve
	--on-timeout --on-timeout-limit --memory --max-procs --cpu-time --budget-interval
	--cgroup'

# _runlimit_takes_arg WORD: WORD is an option whose value is the next word: a long one
# above, or short flags ending in -k or -s ("-vk", "-s"); the short one is then in
# _runlimit_short ("k" or "s").
_runlimit_takes_arg()
{
	local w=$1
	_runlimit_short=
	case $w in
	--*) [[ " ${_runlimit_argopts//[$'\n\t']/ } " == *" $w "* ]] ;;
	-?*)
		w=${w#-}
		while [[ $w == [vfp]?* ]]; do w=${w#?}; done
		[[ $w == [ks] ]] && _runlimit_short=$w
		;;
	*) return 1 ;;
	esac
}

# _runlimit_duration_at: the index in COMP_WORDS of the DURATION before the cursor, or 0.
# (COMP_WORDS has "--signal=KILL" as three words, "--signal", "=" and "KILL".)
_runlimit_duration_at()
{
	local i=1 w
	while ((i < COMP_CWORD)); do
		w=${COMP_WORDS[i]}
		if [[ ${COMP_WORDS[i + 1]-} == = ]]; then
			((i += 3))
			continue
		fi
		case $w in
		--)
			echo $((i + 1))
			return
			;;
		-?*) _runlimit_takes_arg "$w" && ((i++)) ;;
		*)
			echo "$i"
			return
			;;
		esac
		((i++))
	done
	echo 0
}

_runlimit()
{
	local cur prev words cword split
	# bash-completion 2.12 names it _comp_initialize; 2.11 and older _init_completion.
	if declare -F _comp_initialize >/dev/null; then
		_comp_initialize -s -n : -- "$@" || return
	else
		_init_completion -s -n : || return
	fi

	local at
	at=$(_runlimit_duration_at)
	if ((at > 0 && at < COMP_CWORD)); then
		# The COMMAND and its arguments, as if the line started there.
		if declare -F _comp_command_offset >/dev/null; then
			_comp_command_offset $((at + 1))
		else
			_command_offset $((at + 1))
		fi
		return
	fi

	# --nproc, first, has options of its own.
	if ((cword > 1)) && [[ ${words[1]} == --nproc ]]; then
		case $prev in --ignore) return ;; esac
		$split && return
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W '--all --ignore= --help --version' -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
		return
	fi

	local _runlimit_short
	_runlimit_takes_arg "$prev" && [[ $_runlimit_short == s ]] && prev=--signal
	case $prev in
	--signal)
		local sig
		COMPREPLY=()
		for sig in $(compgen -A signal -- "SIG$cur"); do
			[[ $sig == *[!A-Z0-9+-]* ]] || COMPREPLY+=("${sig#SIG}") # not bash's "JUNK(32)"
		done
		return
		;;
	--report)
		_filedir
		return
		;;
	--cancel)
		# The names `runlimit --list` shows, tab-separated before the pid (UID:NAME to
		# root); nothing if it fails.
		local names
		names=$("${words[0]}" --list 2>/dev/null | cut -f1)
		COMPREPLY=($(compgen -W "$names" -- "$cur"))
		__ltrim_colon_completions "$cur"
		return
		;;
	--list)
		COMPREPLY=($(compgen -W '--json' -- "$cur"))
		return
		;;
	--cgroup)
		COMPREPLY=($(compgen -W 'auto no required' -- "$cur"))
		return
		;;
	--help | --version | --json | --nproc | --remaining) return ;;
	esac
	if _runlimit_takes_arg "$prev"; then
		return # a duration, a size or a new name: nothing to offer
	fi
	$split && return

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '-k --kill-after= -s --signal= -v --verbose -f --foreground
			-p --preserve-status --kill-leftovers --die-with-parent --report= --output-grace=
			--no-output-timeout= --report-tail= --name= --cancel= --marker-ttl= --list
			--on-timeout= --on-timeout-limit= --memory= --max-procs= --cpu-time=
			--budget-interval= --cgroup=
			--json --nproc --reserve= --no-inherit --remaining --help --version' -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
	fi
} &&
	complete -F _runlimit runlimit
