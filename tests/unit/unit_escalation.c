/* The steps a limit sends (escalation.h), as -s and -k make them and a cancel changes them. */
#include <signal.h>
#include <stdio.h>

#include "escalation.h"
#include "unit.h"

#define NS INT64_C(1000000000)

static struct escalation of(int sig, int64_t kill_after, bool kill_given)
{
	struct config cfg = {.signal = sig, .kill_after = kill_after,
	                     .kill_after_given = kill_given};
	struct escalation e;
	escalation_of(&cfg, &e);
	return e;
}

void test_escalation(void)
{
	struct escalation e = of(SIGTERM, 5 * NS, false);
	check(e.n == 2 && e.step[0].sig == SIGTERM && e.step[0].after == 0 &&
	      e.step[1].sig == SIGKILL && e.step[1].after == 5 * NS && !e.kill_asked,
	      "escalation: -s TERM and the default grace: TERM, then KILL 5 s after", NULL);
	check(escalation_grace(&e) == 5 * NS && escalation_span_from(&e, 0) == 5 * NS &&
	      escalation_span_from(&e, 1) == 0,
	      "escalation: the grace and the span of TERM, KILL", NULL);
	check(!escalation_is_final(&e, 0) && escalation_is_final(&e, 1),
	      "escalation: the KILL is the final step", NULL);

	e = of(SIGINT, 0, true);
	check(e.n == 1 && e.kill_asked && escalation_grace(&e) == 0 &&
	      escalation_span_from(&e, 0) == 0, "escalation: -k 0: the first step only", NULL);
	escalation_set_grace(&e, 2 * NS);
	check(e.n == 2 && escalation_is_final(&e, 1) && escalation_grace(&e) == 2 * NS,
	      "escalation: a cancel's grace adds the final KILL where there was none", NULL);
	escalation_set_grace(&e, 1);
	check(e.n == 2 && escalation_grace(&e) == 1,
	      "escalation: a cancel's grace sets the final KILL's delay", NULL);

	e = of(SIGKILL, 5 * NS, false);
	check(e.kill_asked && escalation_is_final(&e, 0) && escalation_grace(&e) == 5 * NS,
	      "escalation: -s KILL is asked, and a request's grace still follows", NULL);
	e = of(0, 5 * NS, false);
	check(!e.kill_asked && e.step[0].sig == 0, "escalation: -s 0 alone is not asked", NULL);
}
