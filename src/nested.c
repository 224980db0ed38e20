#include "nested.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "escalation.h"
#include "msg.h"
#include "nested_deadline.h"
#include "os/os.h"
#include "quote.h"

#define NAME "RUNLIMIT_DEADLINE"
#define SECOND ((int64_t)1000000000)

extern char **environ;

static struct inherited taken;
static bool was_taken;
static int64_t kill_by = CLOCK_NEVER;
static int64_t run_deadline = CLOCK_NEVER;
static char **command_env;
/* The command's environment where it fits, not malloc'd: this list was the one allocation of
 * a run, and a C library's first malloc sets up its heap (musl's: four system calls and
 * three pages touched at every start; docs/performance.md). */
#define ENV_ROOM 256
static char *env_room[ENV_ROOM];
static char entry[sizeof NAME "=" + DEADLINE_TEXT];

/* The inherited deadline into *wall; false if there is none.  Empty is none (a shell's
 * "RUNLIMIT_DEADLINE= cmd" clears it); what is not a time is none too, with a warning
 * (unless quiet): a limit is never lost silently, and never fails the command. */
static bool inherited(int64_t *wall, bool quiet)
{
	const char *v = getenv(NAME);
	if (!v || !*v)
		return false;
	if (deadline_parse(v, wall))
		return true;
	if (!quiet)
		msg("ignoring %s=%s: not a time in seconds since the epoch", NAME, quote(v));
	return false;
}

static bool is_ours(const char *e)
{
	return strncmp(e, NAME "=", sizeof NAME) == 0;
}

/* The command's environment: runlimit's without RUNLIMIT_DEADLINE, and with it set to wall
 * unless wall is negative (none).  Unchanged when that is runlimit's own. */
static void make_env(int64_t wall)
{
	size_t n = 0;
	bool present = false;
	for (char **e = environ; e && *e; e++, n++)
		present |= is_ours(*e);
	if (wall < 0 && !present)
		return;
	command_env = n + 2 <= ENV_ROOM ? env_room : malloc((n + 2) * sizeof *command_env);
	if (!command_env) {
		msg("cannot pass %s on: %s", NAME, strerror(errno));
		return;
	}
	size_t k = 0;
	for (char **e = environ; e && *e; e++)
		if (!is_ours(*e))
			command_env[k++] = *e;
	if (wall >= 0) {
		char text[DEADLINE_TEXT];
		deadline_format(wall, text, sizeof text);
		snprintf(entry, sizeof entry, NAME "=%s", text);
		command_env[k++] = entry;
	}
	command_env[k] = NULL;
}

static double seconds(int64_t ns)
{
	return (double)ns / (double)SECOND;
}

/* What the run takes after its final KILL: a second for the rest (its report, its exit),
 * and the output grace. */
static int64_t after_kill(const struct config *cfg)
{
	return cfg->relay ? clock_after(SECOND, cfg->output_grace) : SECOND;
}

/* The reserve: --reserve, or what the run may take from its limit to its end: the
 * --on-timeout hook's limit (the first signal waits for it), the kill grace, and what comes
 * after the KILL. */
static int64_t reserve_of(const struct config *cfg)
{
	if (cfg->reserve_given)
		return cfg->reserve;
	int64_t hook = cfg->on_timeout ? cfg->on_timeout_limit : 0;
	struct escalation steps;
	escalation_of(cfg, &steps);
	return clock_after(clock_after(after_kill(cfg), escalation_span_from(&steps, 0)), hook);
}

int64_t nested_deadline(const struct config *cfg, int64_t own)
{
	int64_t now = clock_now(), wall = clock_wall(), outer;
	int64_t deadline = own, down = own;
	if (inherited(&outer, cfg->no_inherit)) {
		if (!cfg->no_inherit) {
			int64_t reserve = reserve_of(cfg);
			int64_t at = deadline_on_clock(outer, reserve, wall, now);
			was_taken = true;
			taken = (struct inherited){outer, reserve, at < own};
			kill_by = deadline_on_clock(outer, after_kill(cfg), wall, now);
			if (at < own) {
				deadline = at;
				if (cfg->verbose && at > now)
					msg("%s, %.3fs away, less a reserve of %.3fs, shortens the time limit to "
					    "%.3fs", NAME, seconds(outer - wall), seconds(reserve),
					    seconds(at - cfg->started));
				else if (cfg->verbose)
					msg("%s, %.3fs away, less a reserve of %.3fs, has passed: timing out at "
					    "once", NAME, seconds(outer - wall), seconds(reserve));
			}
		}
		/* Also with --no-inherit: the outer limit still holds for the command. */
		int64_t at = deadline_on_clock(outer, 0, wall, now);
		down = deadline < at ? deadline : at;
	}
	make_env(down == CLOCK_NEVER ? -1 : deadline_on_wall(down, now, wall));
	run_deadline = deadline;
	return deadline;
}

int64_t nested_run_deadline(void)
{
	return run_deadline;
}

int64_t nested_kill_by(void)
{
	return kill_by;
}

char **nested_env(void)
{
	return command_env;
}

const struct inherited *nested_taken(void)
{
	return was_taken ? &taken : NULL;
}

int remaining_main(const struct config *cfg)
{
	int64_t outer;
	char text[DEADLINE_TEXT + 1];
	if (!inherited(&outer, false))
		return 1;
	int64_t reserve = cfg->reserve_given ? cfg->reserve : 0;
	if (!deadline_left_text(deadline_on_clock(outer, reserve, clock_wall(), 0), text,
	                        sizeof text - 1))
		return 1;
	strcat(text, "\n");
	return msg_stdout(text) ? 0 : EXIT_RUNLIMIT_FAILED;
}
