#!/bin/sh
# The benchmark under the name the project's brief gives it: it lives in bench/ with its timer
# (bench/benchrun.c) and its plot; every option is bench/bench.sh's (docs/performance.md).
exec "$(dirname "$0")/../bench/bench.sh" "$@"
