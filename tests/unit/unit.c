/* Unit tests for the pure functions: duration_parse (duration.h) and the signal name table
 * (signal_names.h) here; in the other unit_*.c files, one each: the nproc policy, message
 * quoting, the JSON writer, the exit-status rules, the run report against golden text, the
 * event wait of the platform built (the clock), the report tail's ring, runlimit's own
 * lines, RUNLIMIT_DEADLINE (nested_deadline.h), the budgets' sizes (size.h) and the wire of
 * named runs (named_wire.h).  The platform's private parts (Linux's CPU files, the pid map,
 * the /proc stat line) are tested in tests/unit/os/, the one place outside src/os/ that
 * includes their headers.
 * No framework: each check prints a line on failure and is counted. */
/* The same view of <signal.h> as signal_names.c's (on macOS, 7 is SIGEMT there, not SIGPOLL). */
#define _DARWIN_C_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "os/os.h"
#include "signal_names.h"
#include "unit.h"

static int passed, failed;

void check(int ok, const char *what, const char *detail)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("FAIL: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	}
}

#define NS_PER_S INT64_C(1000000000)

/* duration_parse(s) must succeed with exactly `want` nanoseconds. */
static void dur_ok(const char *s, int64_t want)
{
	char what[128], detail[128];
	int64_t got = -42;
	bool ok = duration_parse(s, &got);
	snprintf(what, sizeof what, "duration_parse(\"%s\")", s);
	if (!ok) {
		check(0, what, "rejected, expected valid");
		return;
	}
	snprintf(detail, sizeof detail, "got %lld ns, want %lld ns", (long long)got,
		(long long)want);
	check(got == want, what, detail);
}

/* duration_parse(s) must succeed with at least `lo` and at most `hi` nanoseconds. */
static void dur_range(const char *s, int64_t lo, int64_t hi)
{
	char what[128], detail[160];
	int64_t got = -42;
	bool ok = duration_parse(s, &got);
	snprintf(what, sizeof what, "duration_parse(\"%s\")", s);
	if (!ok) {
		check(0, what, "rejected, expected valid");
		return;
	}
	snprintf(detail, sizeof detail, "got %lld ns, want %lld..%lld", (long long)got,
		(long long)lo, (long long)hi);
	check(got >= lo && got <= hi, what, detail);
}

static void dur_bad(const char *s)
{
	char what[128], detail[64];
	int64_t got = -42;
	bool ok = duration_parse(s, &got);
	snprintf(what, sizeof what, "duration_parse(\"%s\")", s);
	snprintf(detail, sizeof detail, "accepted (%lld ns), expected invalid", (long long)got);
	check(!ok, what, detail);
}

static void test_durations(void)
{
	/* Plain forms strtod accepts. */
	dur_ok("1", NS_PER_S);
	dur_ok("1.5", 1500000000);
	dur_ok(".5", 500000000);
	dur_ok("5.", 5 * NS_PER_S);
	dur_ok("+1", NS_PER_S);
	dur_ok(" 1", NS_PER_S);
	dur_ok("\t1", NS_PER_S);
	dur_ok("1e2", 100 * NS_PER_S);
	dur_ok("1E2", 100 * NS_PER_S);
	dur_ok("2.5e-1", 250000000);
	dur_ok("4294967296", INT64_C(4294967296) * NS_PER_S);

	/* Hex floats: 0x1d is hex 29 seconds, a day needs a p exponent. */
	dur_ok("0x10", 16 * NS_PER_S);
	dur_ok("0x1d", 29 * NS_PER_S);
	dur_ok("0x1p0d", 86400 * NS_PER_S);
	dur_ok("0x1p-1", 500000000);
	dur_ok("0X1P1s", 2 * NS_PER_S);

	/* Suffixes. */
	dur_ok("1s", NS_PER_S);
	dur_ok("1m", 60 * NS_PER_S);
	dur_ok("1h", 3600 * NS_PER_S);
	dur_ok("1d", 86400 * NS_PER_S);
	dur_ok("2.5m", 150 * NS_PER_S);
	dur_ok("1.5h", 5400 * NS_PER_S);
	dur_ok("0.5d", 43200 * NS_PER_S);
	dur_ok(".5m", 30 * NS_PER_S);

	/* Zero: no time limit. */
	dur_ok("0", 0);
	dur_ok("0s", 0);
	dur_ok("0d", 0);
	dur_ok("0.0", 0);
	dur_ok("-0", 0);
	dur_ok("-0.0", 0);
	dur_ok("0x0", 0);

	/* Tiny: never 0, always rounded up to at least 1 ns. */
	dur_ok("1e-10000", 1);
	dur_ok("1e-10000s", 1);
	dur_ok("1e-10000d", 1);
	dur_ok("1e-320", 1);
	dur_ok("1e-10", 1);
	dur_ok("1e-9", 1);
	dur_ok("0.000000001", 1);
	dur_ok("0.0000000015", 2);
	dur_ok("0.1", 100000000);
	dur_ok("0.001", 1000000);
	dur_ok("1.0000000001", 1000000001);
	/* 1.000000001 is not exact in binary: one ns of upward slack, never downward. */
	dur_range("1.000000001", 1000000001, 1000000002);
	dur_range("9.999999999", INT64_C(9999999999), 10 * NS_PER_S);

	/* Huge, infinite or overflowing: clamp to DURATION_MAX, never wrap. */
	dur_ok("inf", DURATION_MAX);
	dur_ok("INF", DURATION_MAX);
	dur_ok("infinity", DURATION_MAX);
	dur_ok("Infinity", DURATION_MAX);
	dur_ok("infs", DURATION_MAX);
	dur_ok("infd", DURATION_MAX);
	dur_ok("1e308", DURATION_MAX);
	dur_ok("1.8e308", DURATION_MAX);
	dur_ok("1e4932", DURATION_MAX);
	dur_ok("1.18973149535723176502e+4932", DURATION_MAX);
	dur_ok("9223372036854775808", DURATION_MAX);
	dur_ok("9223372036854775808d", DURATION_MAX);
	dur_ok("18446744073709551616", DURATION_MAX);
	dur_ok("1e10", DURATION_MAX);
	dur_ok("106752d", DURATION_MAX);
	dur_ok("1e9d", DURATION_MAX);
	/* Large but representable values stay exact (no premature clamping). */
	dur_ok("100000d", INT64_C(8640000000) * NS_PER_S);

	/* Rounding is never downwards, for a spread of values. */
	{
		static const char *const samples[] = {"0.3", "0.7", "1.1", "2.675", "0.123456789",
			"0.1234567891", "3.3333333333", "0.9999999999", "1e-5", "7.000000000000001"};
		static const double values[] = {0.3, 0.7, 1.1, 2.675, 0.123456789, 0.1234567891,
			3.3333333333, 0.9999999999, 1e-5, 7.000000000000001};
		for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
			int64_t got = 0;
			char what[96], detail[96];
			snprintf(what, sizeof what, "duration_parse(\"%s\") rounds up", samples[i]);
			bool ok = duration_parse(samples[i], &got);
			/* ceil of the exact decimal value, within one ns of slack for the double. */
			double want = values[i] * 1e9;
			snprintf(detail, sizeof detail, "ok=%d got %lld for %.3f", ok,
				(long long)got, want);
			check(ok && (double)got >= want - 1e-6 && (double)got <= want + 2.0, what,
				detail);
		}
	}

	/* Invalid. */
	dur_bad("");
	dur_bad(" ");
	dur_bad("1x");
	dur_bad("1D");
	dur_bad("1S");
	dur_bad("1M");
	dur_bad("1H");
	dur_bad("42D");
	dur_bad("1ss");
	dur_bad("1sm");
	dur_bad("1 ");
	dur_bad("1s ");
	dur_bad("1 s");
	dur_bad("1e");
	dur_bad("1e2e");
	dur_bad("1.5.5");
	dur_bad("1m1");
	dur_bad("nan");
	dur_bad("NaN");
	dur_bad("nans");
	dur_bad("nan(1)");
	dur_bad("-nan");
	dur_bad("-1");
	dur_bad("-1s");
	dur_bad(" -0.1");
	dur_bad("-1e-10000");
	dur_bad(" -1e-10000");
	dur_bad("-1e4932");
	dur_bad("-inf");
	dur_bad("-infinity");
	dur_bad("1,5"); /* LC_ALL=C is forced in main */
	dur_bad("0,5s");
	dur_bad("-");
	dur_bad("+");
	dur_bad(".");
	dur_bad("s");
	dur_bad("d");
	dur_bad("e5");
	dur_bad("x1");
	dur_bad("0x");
	dur_bad("--1");
	dur_bad("+-1");
	dur_bad("\xef\xbc\x91"); /* FULLWIDTH DIGIT ONE */
	dur_bad("1\xc2\xa0");     /* trailing NO-BREAK SPACE */
}

static void sig_is(const char *s, int want)
{
	char what[96], detail[64];
	int got = sig_parse(s);
	snprintf(what, sizeof what, "sig_parse(\"%s\")", s);
	snprintf(detail, sizeof detail, "got %d, want %d", got, want);
	check(got == want, what, detail);
}

static void sig_bad(const char *s) { sig_is(s, -1); }

static void name_is(int sig, const char *want)
{
	char buf[32], what[64], detail[96];
	memset(buf, 'X', sizeof buf);
	const char *got = sig_name(sig, buf, sizeof buf);
	snprintf(what, sizeof what, "sig_name(%d)", sig);
	snprintf(detail, sizeof detail, "got \"%s\", want \"%s\"", got ? got : "(null)", want);
	check(got == buf && strcmp(got, want) == 0, what, detail);
}

static void test_signals(void)
{
	/* Names in any case, with or without SIG. */
	sig_is("TERM", SIGTERM);
	sig_is("term", SIGTERM);
	sig_is("Term", SIGTERM);
	sig_is("SigTerm", SIGTERM);
	sig_is("SIGTERM", SIGTERM);
	/* A number after SIG, as GNU accepts it: no 128+N mapping, nothing around it. */
	sig_is("SIG9", SIGKILL);
	sig_is("sig15", SIGTERM);
	sig_is("SIG09", SIGKILL);
	sig_is("SIG0", 0);
	sig_bad("SIG137");
	sig_bad("SIG+9");
	sig_bad("SIG-1");
	sig_bad("SIG 9");
	sig_bad("SIG9x");
	sig_is("sigterm", SIGTERM);
	sig_is("sigkill", SIGKILL);
	sig_is("KILL", SIGKILL);
	sig_is("SigKill", SIGKILL);
	sig_is("HUP", SIGHUP);
	sig_is("INT", SIGINT);
	sig_is("QUIT", SIGQUIT);
	sig_is("ALRM", SIGALRM);
	sig_is("USR1", SIGUSR1);
	sig_is("usr2", SIGUSR2);
	sig_is("CHLD", SIGCHLD);
	sig_is("STOP", SIGSTOP);
	sig_is("CONT", SIGCONT);
	sig_is("SEGV", SIGSEGV);
	sig_is("PIPE", SIGPIPE);
	sig_is("ABRT", SIGABRT);
#ifdef SIGIOT
	sig_is("IOT", SIGIOT);
#endif
#ifdef SIGCLD
	sig_is("CLD", SIGCLD);
#endif
#ifdef SIGPOLL
	sig_is("POLL", SIGPOLL);
#endif
#ifdef SIGPWR
	sig_is("PWR", SIGPWR);
#endif
#ifdef SIGWINCH
	sig_is("WINCH", SIGWINCH);
#endif

	/* Numbers, with shell $?-style folding. */
	sig_is("9", 9);
	sig_is("09", 9);
	sig_is("0009", 9);
	sig_is("15", 15);
	sig_is("137", 9);
	sig_is("143", 15);
	sig_is("265", 9);
	sig_is("128", 0);
	sig_is("256", 0);
	sig_bad("393");
	sig_bad("255");
	sig_bad("2147483647");
	sig_bad("2147483648");
	sig_bad("99999999999999999999");
	{
		char num[16];
		snprintf(num, sizeof num, "%d", sig_max());
		sig_is(num, sig_max());
		snprintf(num, sizeof num, "%d", sig_max() + 1);
		sig_bad(num);
	}

	/* Signal 0. */
	sig_is("0", 0);
	sig_is("00", 0);
	sig_is("EXIT", 0);
	sig_is("exit", 0);
	sig_is("SIGEXIT", 0);

	/* Invalid. */
	sig_bad("SIG");
	sig_bad("sig");
	sig_bad("");
	sig_bad(" 9");
	sig_bad("9 ");
	sig_bad("-9");
	sig_bad("+9");
	sig_bad("9x");
	sig_bad("0x9");
	sig_bad("FOO");
	sig_bad("SIGFOO");
	sig_bad("SIGSIGTERM");
	sig_bad("TERM ");
	sig_bad(" TERM");
	sig_bad("SIG TERM");
	sig_bad("-TERM");
	sig_bad("TERMX");
	sig_bad("SIGTERMSIGTERMSIGTERMSIGTERMSIGTERM");
	sig_bad("T\xc3\x89RM");

#ifdef SIGRTMIN
	{
		int lo = SIGRTMIN, hi = SIGRTMAX;
		char s[32];
		sig_is("RTMIN", lo);
		sig_is("rtmin", lo);
		sig_is("SIGRTMIN", lo);
		sig_is("RTMIN+1", lo + 1);
		sig_is("sigrtmin+1", lo + 1);
		sig_is("RTMAX-1", hi - 1);
		sig_is("RTMAX", hi);
		sig_is("SigRtMax", hi);
		sig_bad("RTMIN-1");
		sig_bad("RTMAX+1");
		sig_bad("RTMIN+");
		sig_bad("RTMAX-");
		sig_bad("RTMIN+x");
		sig_bad("RTMIN+1x");
		sig_bad("RTMIN+-1");
		sig_bad("RTMAX--1");
		sig_bad("RTMIDDLE");
		snprintf(s, sizeof s, "RTMIN+%d", hi - lo);
		sig_is(s, hi);
		snprintf(s, sizeof s, "RTMAX-%d", hi - lo);
		sig_is(s, lo);
		snprintf(s, sizeof s, "RTMIN+%d", hi - lo + 1);
		sig_bad(s);
		snprintf(s, sizeof s, "RTMAX-%d", hi - lo + 1);
		sig_bad(s);
		sig_bad("RTMIN+99999999999999999999");
		/* The real-time range is valid as numbers too. */
		snprintf(s, sizeof s, "%d", lo);
		sig_is(s, lo);
		snprintf(s, sizeof s, "%d", hi);
		sig_is(s, hi);
		check(sig_max() >= hi, "sig_max() covers SIGRTMAX", NULL);

		if (lo == 34 && hi == 64) { /* glibc on Linux */
			sig_bad("RTMIN+31");
			sig_is("RTMIN+30", 64);
			sig_is("RTMAX-30", 34);
			sig_bad("RTMAX-31");
			name_is(34, "RTMIN");
			name_is(35, "RTMIN+1");
			name_is(49, "RTMIN+15");
			name_is(50, "RTMAX-14");
			name_is(63, "RTMAX-1");
			name_is(64, "RTMAX");
			check(sig_max() == 64, "sig_max() == 64 on glibc", NULL);
			/* 32 and 33 have no name on glibc: accepted as numbers (coreutils 9.5+),
			 * named by their number. */
			sig_is("32", 32);
			sig_is("33", 33);
			name_is(32, "32");
			name_is(33, "33");
		}
	}
#else
	sig_bad("RTMIN");
	sig_bad("RTMAX");
#endif

	/* Names for verbose output: canonical, without SIG; 0 is "0" (GNU 9.10+). */
	name_is(0, "0");
	name_is(SIGTERM, "TERM");
	name_is(SIGKILL, "KILL");
	name_is(SIGINT, "INT");
	name_is(SIGHUP, "HUP");
	name_is(SIGABRT, "ABRT");
	name_is(SIGCHLD, "CHLD");
#if defined(SIGSTKFLT) && defined(SIGPWR) && defined(SIGPOLL)
	/* The numbering of x86, arm and riscv Linux (the only system with STKFLT and PWR and
	 * these numbers): the names GNU timeout 9.1 prints (POLL, not IO; CHLD, not CLD; ABRT,
	 * not IOT). */
	if (SIGBUS == 7 && SIGCHLD == 17 && SIGSYS == 31 && SIGPOLL == 29) {
		static const char *const linux_names[] = {"0", "HUP", "INT", "QUIT", "ILL",
			"TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM",
			"TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG",
			"XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "POLL", "PWR", "SYS"};
		for (int i = 0; i < (int)(sizeof linux_names / sizeof linux_names[0]); i++)
			name_is(i, linux_names[i]);
	}
#endif
	{
		char buf[8];
		const char *got = sig_name(SIGVTALRM, buf, sizeof buf);
		check(got == buf && strcmp(buf, "VTALRM") == 0, "sig_name fits a small buffer",
			buf);
		char tiny[3];
		sig_name(SIGTERM, tiny, sizeof tiny);
		check(tiny[2] == '\0', "sig_name truncates and terminates in a tiny buffer", NULL);
	}

	/* sig_next walks every signal once, ascending, ending with 0; every name it yields
	 * parses back to the same number, with and without SIG and in lower case. */
	{
		int count = 0, prev = 0, sig = 0, seen_term = 0, seen_kill = 0;
		while ((sig = sig_next(sig)) != 0) {
			char name[32], what[96], detail[128];
			count++;
			snprintf(what, sizeof what, "sig_next after %d", prev);
			snprintf(detail, sizeof detail, "got %d", sig);
			check(sig > prev && sig <= sig_max(), what, detail);
			if (sig <= prev || count > 1000)
				break;
			prev = sig;
			seen_term |= sig == SIGTERM;
			seen_kill |= sig == SIGKILL;

			sig_name(sig, name, sizeof name);
			snprintf(what, sizeof what, "round trip %d -> \"%s\"", sig, name);
			snprintf(detail, sizeof detail, "sig_parse gave %d", sig_parse(name));
			check(sig_parse(name) == sig, what, detail);
			check(strncmp(name, "SIG", 3) != 0, what, "name starts with SIG");

			char with_sig[40], lower[32];
			snprintf(with_sig, sizeof with_sig, "SIG%s", name);
			snprintf(what, sizeof what, "round trip %d -> \"%s\"", sig, with_sig);
			check(sig_parse(with_sig) == sig, what, NULL);
			size_t k = 0;
			for (; name[k]; k++)
				lower[k] = (name[k] >= 'A' && name[k] <= 'Z') ? (char)(name[k] + 32)
				                                            : name[k];
			lower[k] = '\0';
			snprintf(what, sizeof what, "round trip %d -> \"%s\"", sig, lower);
			check(sig_parse(lower) == sig, what, NULL);
		}
		check(count >= 20, "sig_next yields at least 20 signals", NULL);
		check(seen_term && seen_kill, "sig_next yields TERM and KILL", NULL);
		check(sig_next(sig_max()) == 0, "sig_next(sig_max()) == 0", NULL);
#ifdef SIGRTMIN
		int rt = 0;
		for (int s = sig_next(0); s != 0; s = sig_next(s))
			rt += s >= SIGRTMIN && s <= SIGRTMAX;
		char detail[64];
		snprintf(detail, sizeof detail, "%d of %d", rt, SIGRTMAX - SIGRTMIN + 1);
		check(rt == SIGRTMAX - SIGRTMIN + 1, "sig_next covers every real-time signal",
			detail);
#endif
	}
}

int main(void)
{
	/* duration_parse consults the user's LC_NUMERIC: pin it so "1,5" is invalid. */
	setenv("LC_ALL", "C", 1);
	setbuf(stdout, NULL);
	/* First: it checks the first quote_locale_init, which loads the locale only once. */
	test_quote();
	test_durations();
	test_signals();
	test_nproc();
	test_json();
	test_run_end();
	test_report();
	test_escalation();
	test_clock();
	test_tail();
	test_lines();
	test_deadline();
	test_size();
	test_named_wire();
	/* The platform's private parts: tests/unit/os/. */
	test_pidmap();
	test_stat_parse();
	test_cpufiles();
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
