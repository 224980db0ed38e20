/* The steps a limit sends (escalation.h). */
#include "escalation.h"

#include <signal.h>

#include "os/os.h"
#include "test_hooks.h"

void escalation_of(const struct config *cfg, struct escalation *e)
{
	*e = (struct escalation){.n = 0,
	                         .kill_asked = cfg->kill_after_given || cfg->signal == SIGKILL};
	e->step[e->n++] = (struct step){cfg->signal, 0};
	/* A new step goes here, before the final KILL: {SIGINT, its delay}, as the hooks
	 * build's middle step is (escalation.bats walks the list with it).  The final KILL
	 * follows even a first step that is KILL: a request to end sends its own signal in
	 * the first step's place, and the grace then runs as it would have. */
	int middle_ms = test_hook_number(TEST_MIDDLE_STEP_MS);
	if (middle_ms > 0)
		e->step[e->n++] = (struct step){SIGINT, (int64_t)middle_ms * 1000000};
	if (cfg->kill_after > 0)
		e->step[e->n++] = (struct step){SIGKILL, cfg->kill_after};
}

bool escalation_is_final(const struct escalation *e, size_t k)
{
	return k < e->n && e->step[k].sig == SIGKILL;
}

int64_t escalation_span_from(const struct escalation *e, size_t k)
{
	int64_t span = 0;
	for (size_t i = k + 1; i < e->n; i++)
		span = clock_after(span, e->step[i].after);
	return span;
}

void escalation_set_grace(struct escalation *e, int64_t grace)
{
	if (e->n < 2 || !escalation_is_final(e, e->n - 1)) {
		if (e->n == STEPS_MAX)
			e->n--; /* a full list without a final KILL: its last step gives way */
		e->step[e->n++] = (struct step){SIGKILL, grace};
	}
	e->step[e->n - 1].after = grace;
}

int64_t escalation_grace(const struct escalation *e)
{
	return e->n > 1 && escalation_is_final(e, e->n - 1) ? e->step[e->n - 1].after : 0;
}
