# fish completion for runlimit; `make install` puts it in
# $(datarootdir)/fish/vendor_completions.d.
#
# Before the DURATION: runlimit's options, a signal after -s/--signal, a file after
# --report, a live name after --cancel (from `runlimit --list`).  After the DURATION: the
# COMMAND and its arguments, completed as that command's own completion does.

# The index (from 1) of the DURATION among the words before the cursor, or nothing.
function __runlimit_duration_at
    set -l words (commandline -opc)
    set -l i 2
    while test $i -le (count $words)
        switch $words[$i]
            case --
                set i (math $i + 1)
                test $i -le (count $words); and echo $i
                return
            case --kill-after --signal --report --output-grace --no-output-timeout \
                    --report-tail --name --cancel --marker-ttl --reserve \
                    --on-timeout --on-timeout-limit --memory --max-procs --cpu-time \
                    --budget-interval --cgroup
                set i (math $i + 1) # its value is the next word
            case '--*'
            case '-?*'
                # short flags, the last perhaps -k or -s with its value in the next word
                if string match -qr -- '^-[vfp]*[ks]$' $words[$i]
                    set i (math $i + 1)
                end
            case '*'
                echo $i
                return
        end
        set i (math $i + 1)
    end
end

# Is the cursor before the DURATION or on it (runlimit's options, not the command's)?
function __runlimit_options
    set -l words (commandline -opc)
    set -l at (__runlimit_duration_at)
    test -z "$at"; and not string match -q -- --nproc "$words[2]"
end

# Does the line start with --nproc, which has options of its own?
function __runlimit_nproc
    set -l words (commandline -opc)
    string match -q -- --nproc "$words[2]"
end

# Is the cursor on the COMMAND or one of its arguments?
function __runlimit_in_command
    set -l at (__runlimit_duration_at)
    test -n "$at"
end

# What the COMMAND's own completion offers, as if the line started at the COMMAND.
function __runlimit_command
    set -l at (__runlimit_duration_at)
    set -l words (commandline -opc)
    set -l rest $words[(math $at + 1)..-1]
    complete -C (string join -- ' ' (string escape -- $rest) (commandline -ct))
end

# The names `runlimit --list` shows, before the first tab (UID:NAME to root); nothing if
# it fails.
function __runlimit_names
    set -l rl (commandline -opc)[1]
    command $rl --list 2>/dev/null | string replace -r '\t.*' ''
end

# The signal names of this system, from fish's own list ("NUMBER NAME").
function __runlimit_signals
    __fish_make_completion_signals
    for s in $__kill_signals
        string replace -r '^(\d+) (.*)' '$2\tsignal $1' -- $s
    end
end

complete -c runlimit -f
complete -c runlimit -n __runlimit_in_command -a '(__runlimit_command)'

complete -c runlimit -n __runlimit_options -s k -l kill-after -x -d 'KILL what is left this long after the first signal'
complete -c runlimit -n __runlimit_options -s s -l signal -x -a '(__runlimit_signals)' -d 'Signal to send at the deadline'
complete -c runlimit -n __runlimit_options -s v -l verbose -d 'Report every signal sent on stderr'
complete -c runlimit -n __runlimit_options -s f -l foreground -d 'Signal only the command, not its children'
complete -c runlimit -n __runlimit_options -s p -l preserve-status -d "Exit with the command's own status"
complete -c runlimit -n __runlimit_options -l kill-leftovers -d 'When the command exits, end what it left running'
complete -c runlimit -n __runlimit_options -l die-with-parent -d 'When the process that started runlimit ends, end the run'
complete -c runlimit -n __runlimit_options -l report -r -F -d 'Write what happened to FILE as one line of JSON'
complete -c runlimit -n __runlimit_options -l output-grace -x -d "Relay the output; return this long after the command's exit"
complete -c runlimit -n __runlimit_options -l no-output-timeout -x -d 'Time out when no output comes for this long'
complete -c runlimit -n __runlimit_options -l report-tail -x -d 'Keep the last SIZE bytes of stderr in the report'
complete -c runlimit -n __runlimit_options -l name -x -d 'Register the run as NAME'
complete -c runlimit -n __runlimit_options -l cancel -x -a '(__runlimit_names)' -d 'End the run named NAME'
complete -c runlimit -n __runlimit_options -l marker-ttl -x -d 'With --cancel: how long its marker stands'
complete -c runlimit -n __runlimit_options -l on-timeout -x -d 'When a limit runs out, run COMMAND before the first signal'
complete -c runlimit -n __runlimit_options -l on-timeout-limit -x -d 'KILL the --on-timeout command after this long'
complete -c runlimit -n __runlimit_options -l memory -x -d "Time out when the tree's resident memory exceeds SIZE"
complete -c runlimit -n __runlimit_options -l max-procs -x -d 'Time out when more than N processes of the tree are alive'
complete -c runlimit -n __runlimit_options -l cpu-time -x -d 'Time out when the tree has used this much CPU time'
complete -c runlimit -n __runlimit_options -l budget-interval -x -d 'How often the tree is measured for the budgets'
complete -c runlimit -n __runlimit_options -l cgroup -x -a 'auto no required' -d "Enforce the budgets by a cgroup of the run's own"
complete -c runlimit -n __runlimit_options -l list -d 'Show the named runs'
complete -c runlimit -n __runlimit_options -l json -d 'With --list: one JSON object per run, per line'
complete -c runlimit -n __runlimit_options -l nproc -d 'Print the processors usable'
complete -c runlimit -n __runlimit_options -l reserve -x -d 'Time out this long before RUNLIMIT_DEADLINE'
complete -c runlimit -n __runlimit_options -l no-inherit -d 'Let RUNLIMIT_DEADLINE not shorten the limit'
complete -c runlimit -n __runlimit_options -l remaining -d 'Print the seconds left before RUNLIMIT_DEADLINE'
complete -c runlimit -n __runlimit_options -l help -d 'Display the help and exit'
complete -c runlimit -n __runlimit_options -l version -d 'Output the version and exit'

complete -c runlimit -n __runlimit_nproc -l all -d 'Count the processors installed'
complete -c runlimit -n __runlimit_nproc -l ignore -x -d 'Leave N processors out'
complete -c runlimit -n __runlimit_nproc -l help -d 'Show the help of --nproc'
complete -c runlimit -n __runlimit_nproc -l version -d 'Show the version'
