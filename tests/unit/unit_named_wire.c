/* The wire of named runs (named_wire.h): the requests a run takes, the answers it makes, and
 * the answers its peers read back, as a runlimit of another version, or a socket that is no
 * runlimit, may send them.  In the C locale (quote.h's quotes are the locale's). */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "named_wire.h"
#include "unit.h"

static void request_is(const char *line, enum wire_ask want, int want_sig, int64_t want_grace)
{
	char what[96];
	int sig = -7;
	int64_t grace = -7;
	enum wire_ask got = wire_request(line, &sig, &grace);
	snprintf(what, sizeof what, "wire_request(\"%s\")", line);
	check(got == want && (want != ASK_CANCEL || (sig == want_sig && grace == want_grace)) &&
	          (want == ASK_CANCEL || (sig == -7 && grace == -7)),
	      what, NULL);
}

static void answer_is(const char *what, enum wire_ask ask, int64_t left, char *const *argv,
                      const char *want)
{
	char text[WIRE_ANSWER];
	wire_answer(text, ask, 42, 1500000000, 1700000000000000000, left, argv);
	check(strcmp(text, want) == 0, what, text);
}

static void describe_round_trip(void)
{
	char *argv[] = {"sh", "a b", "%41", "nl\nx\001y\377z", "", NULL};
	char text[WIRE_ANSWER];
	struct wire_answer a;
	wire_answer(text, ASK_DESCRIBE, 42, 7, 9, INT64_MAX, argv);
	text[strlen(text) - 1] = '\0'; /* the newline, as a reader cuts it off */
	bool read = wire_read(text, &a);
	check(read && a.pid == 42 && a.elapsed == 7 && a.started == 9 && !a.deadline && a.argc == 5,
	      "wire_read: a description's numbers, no deadline", NULL);
	size_t k = 0;
	for (char *arg; read && (arg = wire_next_arg(&a.args)); k++)
		check(k < 5 && strcmp(arg, argv[k]) == 0, "wire_next_arg: each argument as it was", arg);
	check(k == 5, "wire_next_arg: every argument, the empty last one too", NULL);
}

/* A long command: a description leaves out what does not fit whole (ARGC still says how many
 * there are), the run's own words are cut, "..." after them. */
static void long_command(void)
{
	static char big[5000];
	memset(big, 'x', sizeof big - 1);
	char *argv[] = {"sh", big, NULL};
	char text[WIRE_ANSWER];
	struct wire_answer a;
	wire_answer(text, ASK_DESCRIBE, 42, 7, 9, 3, argv);
	check(strcmp(text, "42 7 9 3 2 sh\n") == 0, "wire_answer: an argument too long left out",
	      text);
	text[strlen(text) - 1] = '\0';
	check(wire_read(text, &a) && a.deadline && a.left == 3 && a.argc == 2 &&
	          strcmp(wire_next_arg(&a.args), "sh") == 0 && !wire_next_arg(&a.args),
	      "wire_read: fewer words than ARGC", NULL);
	wire_answer(text, ASK_INFO, 42, 7, 9, 3, argv);
	check(strlen(text) == WIRE_ANSWER - 2 && strncmp(text, "42 7 sh xxx", 11) == 0 &&
	          strcmp(text + strlen(text) - 5, "x...\n") == 0,
	      "wire_answer: a command too long cut, \"...\" after it", NULL);
}

/* argv's words in a description, as plain --list shows them (wire_shown): the very words of
 * the run's "info" answer at the same moment, wherever the description holds what those show. */
static void shown_is_info(const char *what, char *const *argv)
{
	char description[WIRE_ANSWER], info[WIRE_ANSWER], shown[WIRE_ANSWER];
	struct wire_answer a;
	wire_answer(description, ASK_DESCRIBE, 4242, 1500000000, 1700000000000000000, 3, argv);
	wire_answer(info, ASK_INFO, 4242, 1500000000, 0, 0, argv);
	description[strlen(description) - 1] = info[strlen(info) - 1] = '\0';
	bool read = wire_read(description, &a);
	check(read && strcmp(wire_shown(shown, &a), info + strlen("4242 1500000000 ")) == 0, what,
	      read ? shown : description);
}

/* A description that left arguments out (too long, or a peer's ARGC past its words): "..."
 * after the last whole one; none at all: nothing. */
static void shown_is(const char *what, const char *answer, const char *want)
{
	char line[WIRE_ANSWER], shown[WIRE_ANSWER];
	struct wire_answer a;
	snprintf(line, sizeof line, "%s", answer);
	bool read = wire_read(line, &a);
	check(read && strcmp(wire_shown(shown, &a), want) == 0, what, read ? shown : line);
}

static void shown_commands(void)
{
	static char control[1201], big[5000];
	memset(control, '\001', sizeof control - 1);
	memset(big, 'x', sizeof big - 1);
	char *plain[] = {"sleep", "99", NULL}, *odd[] = {"sh", "a b", "%41", "it's", "", NULL};
	char *bytes[] = {"nl\nx\001y\377z", "\177", "$HOME", NULL};
	char *cut[] = {"sh", "-c", "exec \"$S\" 100", "a b", control, NULL};
	shown_is_info("wire_shown: plain arguments", plain);
	shown_is_info("wire_shown: quoted ones, an empty last one", odd);
	shown_is_info("wire_shown: control bytes, DEL, a byte that is not UTF-8", bytes);
	shown_is_info("wire_shown: a command cut inside an argument, \"...\" after it", cut);
	char *left_out[] = {"sh", big, NULL}, description[WIRE_ANSWER];
	wire_answer(description, ASK_DESCRIBE, 42, 7, 9, 3, left_out);
	description[strlen(description) - 1] = '\0';
	shown_is("wire_shown: an argument the description left out, \"...\"", description, "sh ...");
	shown_is("wire_shown: ARGC past the words", "1 0 0 - 3 a b", "a b ...");
	shown_is("wire_shown: tabs for spaces, a control byte", "1\t0\t0\t-\t1\ta%01b", "'a\\001b'");
	shown_is("wire_shown: no argument", "1 0 0 - 0", "");
	shown_is("wire_shown: a C1 control (NEL in UTF-8) quoted, never written as it is",
	         "1 0 0 - 2 \xc2\xa0 a\xc2\x85" "b", "\xc2\xa0 'a\\302\\205b'");
}

/* What a peer that is no runlimit of this version may say. */
static void odd_answers(void)
{
	char tabs[] = "1\t0\t0\t-\t1\ta%01b", lone[] = "1 0 0 5 3 %4 %00 %zz%", bad[] = "1 0 0 x 1 a";
	char garbage[] = "garbage", one[] = "12 34 sleep 'a b'";
	struct wire_answer a;
	check(wire_read(tabs, &a) && !a.deadline && a.argc == 1 &&
	          strcmp(wire_next_arg(&a.args), "a\001b") == 0,
	      "wire_read: numbers past any white space", NULL);
	check(wire_read(lone, &a) && a.left == 5 &&
	          strcmp(wire_next_arg(&a.args), "%4") == 0 &&
	          strcmp(wire_next_arg(&a.args), "%00") == 0 &&
	          strcmp(wire_next_arg(&a.args), "%zz%") == 0 && !wire_next_arg(&a.args),
	      "wire_next_arg: a '%' not of two hexadecimal digits, or of a NUL, kept", NULL);
	check(!wire_read(bad, &a) && !wire_read(garbage, &a),
	      "wire_read: not a description", NULL);
	check(!wire_read(one, &a), "wire_read: an answer to \"info\" is no description", NULL);
}

void test_named_wire(void)
{
	setlocale(LC_ALL, "C");
	request_is("describe", ASK_DESCRIBE, 0, 0);
	request_is("info", ASK_INFO, 0, 0);
	request_is("cancel 15 -1", ASK_CANCEL, 15, -1);
	request_is("cancel 9 3000000000", ASK_CANCEL, 9, 3000000000);
	const char *unknown[] = {"", "info ", "Info", "describe x", "cancel", "cancel 15",
	                         "cancel -1 0", "cancel 15 -2", "cancel 15 1x", "cancel 99999 0",
	                         "cancel 15 99999999999999999999", "hello"};
	for (size_t k = 0; k < sizeof unknown / sizeof *unknown; k++)
		request_is(unknown[k], ASK_UNKNOWN, 0, 0);

	char *argv[] = {"sleep", "a b", "%", "", NULL};
	answer_is("wire_answer: a description", ASK_DESCRIBE, 2500000000, argv,
	          "42 1500000000 1700000000000000000 2500000000 4 sleep a%20b %25 \n");
	answer_is("wire_answer: a description, no deadline", ASK_DESCRIBE, INT64_MAX, argv,
	          "42 1500000000 1700000000000000000 - 4 sleep a%20b %25 \n");
	answer_is("wire_answer: the run in its own words", ASK_INFO, 0, argv,
	          "42 1500000000 sleep 'a b' % ''\n");
	describe_round_trip();
	long_command();
	shown_commands();
	odd_answers();

	int64_t bound = -1;
	check(wire_read_ok("ok 5", &bound) && bound == 5, "wire_read_ok: \"ok 5\"", NULL);
	check(wire_read_ok("ok", &bound) && bound == 0 && wire_read_ok("ok -3", &bound) &&
	          bound == 0,
	      "wire_read_ok: \"ok\" alone, and a bound below 0, are 0", NULL);
	check(!wire_read_ok("okay", &bound) && !wire_read_ok(WIRE_ENDED, &bound),
	      "wire_read_ok: not an \"ok\"", NULL);
	char line[WIRE_REQUEST];
	snprintf(line, sizeof line, WIRE_CANCEL, 15, -1LL);
	check(strcmp(line, "cancel 15 -1\n") == 0, "WIRE_CANCEL: a cancel's request", line);
}
