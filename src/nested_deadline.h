/* RUNLIMIT_DEADLINE, the deadline a run passes down to its command (the manual, NESTED
 * LIMITS): its text, and the arithmetic between the wall clock it is written in and the
 * deadline clock the supervisor waits on.  Pure functions: nothing here reads a clock. */
#ifndef RUNLIMIT_NESTED_DEADLINE_H
#define RUNLIMIT_NESTED_DEADLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for any text deadline_format or deadline_left_text writes, with its NUL. */
#define DEADLINE_TEXT 32

/* s as a time since the epoch: decimal digits, then optionally a point and more digits
 * ("1764662400.250", "1764662400", "1764662400."), and nothing else (no sign, space,
 * exponent or locale's decimal point).  Into *wall, in nanoseconds, the digits past the
 * ninth decimal dropped.  False if s is not that, or names a time past INT64_MAX ns. */
bool deadline_parse(const char *s, int64_t *wall);

/* wall (nanoseconds since the epoch) as seconds with three decimals, rounded down, so that a
 * deadline passed on is never later than the one it stands for; before the epoch as
 * "0.000".  buf holds at least DEADLINE_TEXT bytes. */
void deadline_format(int64_t wall, char *buf, size_t size);

/* On a clock that reads now while the wall clock reads wall_now: when the wall clock reads
 * wall, less lead (>= 0) nanoseconds.  Saturates, and stays below INT64_MAX (which the
 * supervisor reads as "no deadline"). */
int64_t deadline_on_clock(int64_t wall, int64_t lead, int64_t wall_now, int64_t now);

/* The other way: what the wall clock reads when the clock that reads now reads at.
 * Saturates within 0 and INT64_MAX. */
int64_t deadline_on_wall(int64_t at, int64_t now, int64_t wall_now);

/* --remaining: left nanoseconds as seconds with one decimal, rounded down ("57.3"); false
 * when that would be 0.0 or less, which a reader of it (timeout, pytest) takes for "no
 * limit".  buf holds at least DEADLINE_TEXT bytes. */
bool deadline_left_text(int64_t left, char *buf, size_t size);

#endif
