/* --report=FILE's text: the run's record (run_end.h), completed, as one JSON object on one
 * line, the fields the manual's RUN REPORT documents.  A pure writer: it asks nothing of the
 * system nor of the other modules, whose figures the record holds; where the text goes is
 * report_file.h's. */
#ifndef RUNLIMIT_REPORT_H
#define RUNLIMIT_REPORT_H

#include "cli.h"
#include "json.h"
#include "run_end.h"

/* The report of the run cfg asked for (cfg may be only partly filled in, bad usage: its
 * command NULL) that ended as e says, its verdict drawn and its figures gathered, into j,
 * with the newline that ends it. */
void report_json(struct json *j, const struct config *cfg, const struct run_end *e);

#endif
