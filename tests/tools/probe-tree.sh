# shellcheck shell=sh
# probe-tree.sh DIR NAME: the command of helpers.bash's probe_tree_reach: a setsid'd sleep
# (DIR/NAME-e), an orphaned sleep (DIR/NAME-o: its parent, a shell, exits at once), then the
# command becomes a sleep itself (DIR/NAME-c); the first two pids go to DIR/esc and DIR/orphan.
d=$1 n=$2
setsid "$d/$n-e" 30 &
echo $! >"$d/esc"
sh -c '"$1" 30 & echo $! >"$2"' _ "$d/$n-o" "$d/orphan"
exec "$d/$n-c" 30
