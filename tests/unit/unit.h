/* The unit tests' one assertion, shared by the files under tests/unit. */
#ifndef RUNLIMIT_UNIT_H
#define RUNLIMIT_UNIT_H

/* Count a check; on failure print "FAIL: what: detail". */
void check(int ok, const char *what, const char *detail);

void test_nproc(void);     /* unit_nproc.c */
void test_quote(void);     /* unit_quote.c */
void test_json(void);      /* unit_json.c */
void test_run_end(void);   /* unit_run_end.c */
void test_report(void);    /* unit_report.c */
void test_escalation(void); /* unit_escalation.c */
void test_clock(void);     /* unit_clock.c */
void test_tail(void);      /* unit_relay_tail.c */
void test_lines(void);     /* unit_relay_lines.c */
void test_deadline(void);  /* unit_nested_deadline.c */
void test_size(void);      /* unit_size.c */
void test_named_wire(void); /* unit_named_wire.c */

/* The platform's private parts, against made-up input (tests/unit/os/): their headers are
 * src/os/'s own, which only these files include from outside src/os/. */
void test_cpufiles(void);   /* os/unit_cpufiles.c */
void test_pidmap(void);     /* os/unit_pidmap.c */
void test_stat_parse(void); /* os/unit_stat.c */

#endif
