/* The regular files the command writes to, for the relay (relay.h): a file is never
 * interposed.  For --no-output-timeout its size is looked at every so often, for the report
 * its growth is counted, and for --report-tail its end is read back once the run is over. */
#ifndef RUNLIMIT_RELAY_WATCH_H
#define RUNLIMIT_RELAY_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "relay_tail.h"

/* Note which of stdout and stderr are regular files (one, when both are the same file). */
void watch_files(void);

/* The command has started, at now: its files are looked at every `every` from here on
 * (every 0: never, nothing is timed). */
void watch_start(int64_t now, int64_t every);

/* If it is time to: look at the files' sizes; true if one of them changed. */
bool watch_look(int64_t now);

/* When the files are next looked at (CLOCK_NEVER: no file is watched, or none is timed). */
int64_t watch_next_look(void);

/* How much the file on std (1 or 2) grew during the run; -1 if std is no watched file (with
 * both the same file, it is stdout's). */
long long watch_grown(int std);

/* Are stdout and stderr one watched file? */
bool watch_shared(void);

/* The end of stderr, where it is a watched file, read back into t (sized by tail_init): as
 * much of what the command wrote as t holds.  False if stderr is no watched file or cannot
 * be read back. */
bool watch_read_tail(struct tail *t);

#endif
