/* The wire of a named run's control socket, which the run (named_control.h) and its peers
 * (named_client.h) both include: every word either says, and every line either makes or
 * reads.  One line each way at a time.  The run greets each connection it accepts:
 * "runlimit", or "busy" (no room) or "refused" (not its user nor root) and closes it.  The
 * peer asks, in less than WIRE_REQUEST bytes, one of
 * - "describe": "PID ELAPSED-NS STARTED-NS LEFT-NS ARGC ARG...", the one question --list
 *   asks: the wall clock at the run's start, the time to its deadline ("-": none), and each
 *   argument a word (a space, '%', a control byte or DEL as %XX), as many whole ones as fit;
 * - "info": "PID ELAPSED-NS COMMAND", for runlimit 0.1.0's --list (compatibility only), in
 *   plain --list's words (wire_shown): quoted where needed (quote.h), too long cut, "...";
 * - "cancel SIG GRACE-NS" (-1: the run's grace): "ok BOUND-NS", the longest the run may now
 *   take to end, then "ended" once it has.
 * A question is answered and the connection closed; what no run asks is "refused".  An answer
 * fits WIRE_ANSWER bytes.  Why one question: docs/design.md, Named runs. */
#ifndef RUNLIMIT_NAMED_WIRE_H
#define RUNLIMIT_NAMED_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#define WIRE_GREETING "runlimit"
#define WIRE_BUSY "busy"
#define WIRE_REFUSED "refused"
#define WIRE_ENDED "ended"
#define WIRE_DESCRIBE "describe"
#define WIRE_INFO "info"
#define WIRE_CANCEL "cancel %d %lld\n" /* its lines, made with snprintf */
#define WIRE_OK "ok %lld\n"
#define WIRE_REQUEST 64
#define WIRE_ANSWER 4096

enum wire_ask { ASK_DESCRIBE, ASK_INFO, ASK_CANCEL, ASK_UNKNOWN };

/* What a request (its newline cut off) asks; a cancel's signal and grace into *sig, *grace. */
enum wire_ask wire_request(const char *line, int *sig, int64_t *grace);

/* The answer to a question (ASK_DESCRIBE or ASK_INFO) into text (WIRE_ANSWER bytes), with its
 * newline; left: INT64_MAX for no deadline. */
void wire_answer(char *text, enum wire_ask ask, long pid, int64_t elapsed, int64_t started_wall,
                 int64_t left, char *const *argv);

/* An "ok" read: true with its bound ("ok" alone: 0; below 0: 0). */
bool wire_read_ok(const char *line, int64_t *bound);

/* A description read in place: false if it is not one.  Its numbers are read past any white
 * space, each ending at white space or the line's end (root lists other users' sockets, which
 * need not be runs of this version).  No --list asks "info" now: none reads its answer. */
struct wire_answer {
	long long pid, elapsed, started, left, argc;
	bool deadline; /* false: "-" */
	char *args;    /* the first argument's word, NULL if none follows (wire_next_arg) */
};
bool wire_read(char *line, struct wire_answer *a);

/* The next argument from *args (a description's), decoded in place, or NULL after the last;
 * a '%' not followed by two hexadecimal digits, or of a NUL, is kept as it is. */
char *wire_next_arg(char **args);

/* A description's command (its words decoded in place) in text (WIRE_ANSWER bytes) as "info"
 * words and cuts it, in this locale, " ..." for arguments left out; returns where it starts. */
char *wire_shown(char *text, struct wire_answer *a);

#endif
