/* Where --report=FILE goes, by DESIGN §6's rules: a regular file (or a link, or nothing)
 * replaced atomically by a temporary file renamed onto it, in FILE's own directory held by a
 * descriptor; a descriptor's name written through that descriptor; a pipe, FIFO, socket,
 * terminal or device appended to, in one write where it fits, its reader given a bounded
 * time; in a sticky directory others may write, what another user put there refused. */
#ifndef RUNLIMIT_REPORT_FILE_H
#define RUNLIMIT_REPORT_FILE_H

#include "cli.h"
#include "run_end.h"

/* Write the report (report.h) of the run that ended as e says to cfg->report.  A report
 * that cannot be written is a warning on stderr, nothing more. */
void report_file_write(const struct config *cfg, const struct run_end *e);

#endif
