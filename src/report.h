/* --report=FILE: what happened in a run, as one JSON object on one line, written when
 * runlimit finishes, however it finishes, from the run's record (run_end.h), which holds
 * what the report needs only while it records (cfg->report given).  The fields are
 * documented in the manual (RUN REPORT). */
#ifndef RUNLIMIT_REPORT_H
#define RUNLIMIT_REPORT_H

#include "cli.h"
#include "run_end.h"

/* Write the report that cfg asks for (cfg->report) of the run that ended as e says, its
 * verdict drawn (run_end.h).  cfg may be only partly filled in (bad usage), and its command
 * NULL.  A report that cannot be written is a warning on stderr, nothing more. */
void report_finish(const struct config *cfg, const struct run_end *e);

#endif
