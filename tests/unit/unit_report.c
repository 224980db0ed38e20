/* The run report's writer (report.h) against golden text.  Each record below is one that a
 * real run left, figure for figure, and each golden string is that run's report, byte for
 * byte: written with --report=FILE by runlimit as it was before report.c became a pure
 * writer of the record (issue 64), on the command line named above each; the run's pids,
 * times and usage are put into the record as it measured them.  What the writer reads is
 * the record and the config alone: this file links report.c without the modules whose
 * figures the record holds, nor anything that asks the system (the Makefile's UNIT_SRCS). */
/* SIGWINCH is no POSIX name: macOS shows it only with its extensions asked for. */
#define _DARWIN_C_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "budget.h"
#include "cli.h"
#include "hook.h"
#include "json.h"
#include "nested.h"
#include "os/os.h"
#include "relay.h"
#include "report.h"
#include "run_end.h"
#include "snapshot.h"
#include "unit.h"

/* cfg->started on the monotonic clock: the run's moments are microseconds after it. */
#define STARTED (INT64_C(1000) * 1000000000)
#define US(us) ((int64_t)(us) * 1000)
#define AT(us) (STARTED + US(us))
/* A wall-clock time given in milliseconds since the epoch (the report's started_at, ...). */
#define WALL(ms) (INT64_C(ms) * 1000000)
#define SECONDS(s) ((int64_t)(s) * 1000000000)

/* The wait status of a child that exits with code, or dies of sig. */
static int status_of(int code, int sig)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit none = {0, 0};
		setrlimit(RLIMIT_CORE, &none);
		if (sig) {
			signal(sig, SIG_DFL);
			kill(getpid(), sig);
		}
		_exit(code);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return st;
}

/* A run of command with --report and runlimit's defaults (cli.c), started at started_ms. */
static struct config run_cfg(char **command, int64_t started_ms)
{
	return (struct config){.duration = SECONDS(5), .kill_after = SECONDS(5),
	                       .signal = SIGTERM, .report = "r.json", .command = command,
	                       .started = STARTED, .started_wall = started_ms * 1000000};
}

/* The record of cfg's run, whose command (pid) ended with wait status st, nothing of its tree
 * alive then nor at the end, and ended processes of those it signalled gone. */
static void ran(struct run_end *e, const struct config *cfg, pid_t pid, int st, long ended)
{
	run_end_start(e, cfg);
	e->pid = pid;
	e->has_tree = true;
	e->wait_status = st;
	e->alive_at_exit = 0;
	e->ended = ended;
	e->left = 0;
}

/* The record completed wall_us after the start, at ended_ms on the wall clock, and what
 * the children used. */
static void completed(struct run_end *e, int64_t wall_us, int64_t ended_ms, int64_t user_us,
                      int64_t system_us, long max_rss_kib)
{
	e->finished = AT(wall_us);
	e->finished_wall = ended_ms * 1000000;
	e->have_usage = true;
	e->user_ns = US(user_us);
	e->system_ns = US(system_us);
	e->max_rss_kib = max_rss_kib;
	run_decide(e);
}

static void sent(struct run_end *e, int64_t at_us, int sig, const char *target,
                 enum reason why)
{
	e->sent[e->nsent++] = (struct sent){AT(at_us), sig, target, why};
}

/* A process of the tree at the limit, sleeping, no CPU time used, with its arguments. */
static void process(struct snap_proc *p, pid_t pid, pid_t ppid, int64_t elapsed_us,
                    int64_t rss_kib, const char *const *argv)
{
	*p = (struct snap_proc){.pid = pid, .ppid = ppid, .pgid = ppid, .state = 'S',
	                        .elapsed = US(elapsed_us), .cpu = 0, .rss_kib = rss_kib};
	for (size_t k = 0; argv[k]; k++) {
		size_t n = strlen(argv[k]) + 1;
		memcpy(p->args + p->args_len, argv[k], n);
		p->args_len += n;
	}
}

/* The report that cfg and e make must be want, byte for byte. */
static void golden(const char *what, const struct config *cfg, const struct run_end *e,
                   const char *want)
{
	struct json j;
	json_init(&j);
	report_json(&j, cfg, e);
	const char *got = j.failed || !j.buf ? "" : j.buf;
	size_t at = 0;
	while (got[at] && got[at] == want[at])
		at++;
	char detail[400];
	snprintf(detail, sizeof detail, "byte %zu: got [%.100s], want [%.100s]", at, got + at,
	         want + at);
	check(strcmp(got, want) == 0, what, detail);
	json_free(&j);
}

/* runlimit --report=r.json 5 sh -c 'exit 3' */
static void plain_exit(void)
{
	char *command[] = {"sh", "-c", "exit 3", NULL};
	struct config cfg = run_cfg(command, 1796642965287);
	struct run_end e;
	ran(&e, &cfg, 7809, status_of(3, 0), 0);
	completed(&e, 1776, 1796642965289, 84, 1146, 1580);
	golden("report: a command that exits 3", &cfg, &e,
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"exited\","
		"\"exit_status\":3,\"exit_signal\":null,\"timed_out\":false,\"timed_out_by\":null,"
		"\"kill_needed\":false,\"cancelled\":false,\"parent_gone\":false,\"name\":null,"
		"\"command\":[\"sh\",\"-c\",\"exit 3\"],\"command_base64\":null,\"pid\":7809,"
		"\"command_exit\":3,\"command_signal\":null,\"core_dumped\":false,\"error\":null,"
		"\"duration_seconds\":5.000000,\"kill_after_seconds\":5.000000,"
		"\"no_output_timeout_seconds\":null,\"timeout_signal\":\"TERM\","
		"\"wall_seconds\":0.001776,\"started_at\":\"2026-12-07T11:29:25.287Z\","
		"\"ended_at\":\"2026-12-07T11:29:25.289Z\",\"deadline_inherited\":null,\"signals\":[],"
		"\"signals_omitted\":0,\"alive_at_command_exit\":0,\"ended\":0,\"left_running\":0,"
		"\"alive_after_kill\":[],\"output\":null,\"tree_at_limit\":null,\"on_timeout\":null,"
		"\"rusage\":{\"user_seconds\":0.000084,\"system_seconds\":0.001146,"
		"\"max_rss_kib\":1580}}\n");
}

/* runlimit --report=r.json -k 0.3 0.3 sh -c 'trap "" TERM; sleep 5': the TERM, its CONT,
 * the final KILL; the two processes the walks reached counted as ended (run_end_count). */
static void time_out_and_kill(void)
{
	char *command[] = {"sh", "-c", "trap \"\" TERM; sleep 5", NULL};
	struct config cfg = run_cfg(command, 1796642965606);
	cfg.duration = cfg.kill_after = US(300000);
	cfg.kill_after_given = true;
	struct run_end e;
	ran(&e, &cfg, 7838, status_of(0, SIGKILL), -1);
	e.timed_out = e.kill_asked = e.kill_needed = true;
	e.limit = REASON_DEADLINE;
	sent(&e, 300175, SIGTERM, "tree", REASON_DEADLINE);
	sent(&e, 300177, SIGCONT, "tree", REASON_DEADLINE);
	sent(&e, 600774, SIGKILL, "tree", REASON_GRACE);
	for (int kill = 0; kill < 2; kill++) {
		struct tree_id *ids = malloc(2 * sizeof *ids);
		if (!ids)
			return;
		ids[0] = (struct tree_id){7839, 2};
		ids[1] = (struct tree_id){7838, 1};
		struct tree_seen seen = {ids, 2, 2, false};
		run_end_targets(&e, &seen, kill);
		free(ids);
	}
	run_end_count(&e, NULL, 0);
	struct snap_proc procs[2];
	process(&procs[0], 7838, 7836, 277207, 1516, (const char *const *)command);
	process(&procs[1], 7839, 7838, 277215, 1660, (const char *const[]){"sleep", "5", NULL});
	procs[1].pgid = 7836;
	struct snapshot_figures snap = {"deadline", AT(270361), procs, 2, 0, NULL};
	e.tree_at_limit = &snap;
	completed(&e, 601314, 1796642966207, 2061, 0, 1660);
	golden("report: a time-out, its grace and the final KILL", &cfg, &e,
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"killed\","
		"\"exit_status\":137,\"exit_signal\":null,\"timed_out\":true,"
		"\"timed_out_by\":\"deadline\",\"kill_needed\":true,\"cancelled\":false,"
		"\"parent_gone\":false,\"name\":null,\"command\":[\"sh\",\"-c\","
		"\"trap \\\"\\\" TERM; sleep 5\"],\"command_base64\":null,\"pid\":7838,"
		"\"command_exit\":null,\"command_signal\":\"KILL\",\"core_dumped\":false,"
		"\"error\":null,\"duration_seconds\":0.300000,\"kill_after_seconds\":0.300000,"
		"\"no_output_timeout_seconds\":null,\"timeout_signal\":\"TERM\","
		"\"wall_seconds\":0.601314,\"started_at\":\"2026-12-07T11:29:25.606Z\","
		"\"ended_at\":\"2026-12-07T11:29:26.207Z\",\"deadline_inherited\":null,"
		"\"signals\":[{\"at\":0.300175,\"signal\":\"TERM\",\"target\":\"tree\","
		"\"reason\":\"deadline\"},{\"at\":0.300177,\"signal\":\"CONT\",\"target\":\"tree\","
		"\"reason\":\"deadline\"},{\"at\":0.600774,\"signal\":\"KILL\",\"target\":\"tree\","
		"\"reason\":\"grace\"}],\"signals_omitted\":0,\"alive_at_command_exit\":0,\"ended\":2,"
		"\"left_running\":0,\"alive_after_kill\":[],\"output\":null,"
		"\"tree_at_limit\":{\"reason\":\"deadline\",\"at\":0.270361,"
		"\"processes\":[{\"pid\":7838,\"ppid\":7836,\"pgid\":7836,\"state\":\"sleeping\","
		"\"elapsed_seconds\":0.277207,\"cpu_seconds\":0.000000,\"rss_kib\":1516,"
		"\"command\":[\"sh\",\"-c\",\"trap \\\"\\\" TERM; sleep 5\"],\"command_base64\":null,"
		"\"command_cut\":false},{\"pid\":7839,\"ppid\":7838,\"pgid\":7836,"
		"\"state\":\"sleeping\",\"elapsed_seconds\":0.277215,\"cpu_seconds\":0.000000,"
		"\"rss_kib\":1660,\"command\":[\"sleep\",\"5\"],\"command_base64\":null,"
		"\"command_cut\":false}],\"omitted\":0,\"unavailable\":null},\"on_timeout\":null,"
		"\"rusage\":{\"user_seconds\":0.002061,\"system_seconds\":0.000000,"
		"\"max_rss_kib\":1660}}\n");
	free(e.targets);
}

/* runlimit --report=r.json --name=cmpjob 5 sleep 5, then runlimit --cancel=cmpjob */
static void cancelled(void)
{
	char *command[] = {"sleep", "5", NULL};
	struct config cfg = run_cfg(command, 1796642981852);
	cfg.name = "cmpjob";
	struct run_end e;
	ran(&e, &cfg, 8323, status_of(0, SIGTERM), 1);
	e.cancelled = e.interrupted = e.forwarded = true;
	sent(&e, 404183, SIGTERM, "tree", REASON_CANCEL);
	sent(&e, 404185, SIGCONT, "tree", REASON_CANCEL);
	struct snap_proc proc;
	process(&proc, 8323, 8321, 407181, 1548, (const char *const *)command);
	struct snapshot_figures snap = {"cancel", AT(403968), &proc, 1, 0, NULL};
	e.tree_at_limit = &snap;
	completed(&e, 405148, 1796642982257, 1955, 0, 1548);
	golden("report: a run ended by --cancel", &cfg, &e,
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"interrupted\","
		"\"exit_status\":null,\"exit_signal\":\"TERM\",\"timed_out\":false,"
		"\"timed_out_by\":null,\"kill_needed\":false,\"cancelled\":true,\"parent_gone\":false,"
		"\"name\":\"cmpjob\",\"command\":[\"sleep\",\"5\"],\"command_base64\":null,"
		"\"pid\":8323,\"command_exit\":null,\"command_signal\":\"TERM\",\"core_dumped\":false,"
		"\"error\":null,\"duration_seconds\":5.000000,\"kill_after_seconds\":5.000000,"
		"\"no_output_timeout_seconds\":null,\"timeout_signal\":\"TERM\","
		"\"wall_seconds\":0.405148,\"started_at\":\"2026-12-07T11:29:41.852Z\","
		"\"ended_at\":\"2026-12-07T11:29:42.257Z\",\"deadline_inherited\":null,"
		"\"signals\":[{\"at\":0.404183,\"signal\":\"TERM\",\"target\":\"tree\","
		"\"reason\":\"cancel\"},{\"at\":0.404185,\"signal\":\"CONT\",\"target\":\"tree\","
		"\"reason\":\"cancel\"}],\"signals_omitted\":0,\"alive_at_command_exit\":0,\"ended\":1,"
		"\"left_running\":0,\"alive_after_kill\":[],\"output\":null,"
		"\"tree_at_limit\":{\"reason\":\"cancel\",\"at\":0.403968,\"processes\":[{\"pid\":8323,"
		"\"ppid\":8321,\"pgid\":8321,\"state\":\"sleeping\",\"elapsed_seconds\":0.407181,"
		"\"cpu_seconds\":0.000000,\"rss_kib\":1548,\"command\":[\"sleep\",\"5\"],"
		"\"command_base64\":null,\"command_cut\":false}],\"omitted\":0,\"unavailable\":null},"
		"\"on_timeout\":null,\"rusage\":{\"user_seconds\":0.001955,\"system_seconds\":0.000000,"
		"\"max_rss_kib\":1548}}\n");
}

/* runlimit --report=r.json --bogus 5 true: the config as far as it was read, no command */
static void refused(void)
{
	struct config cfg = run_cfg(NULL, 1796642973443);
	cfg.duration = 0;
	struct run_end e;
	run_end_start(&e, &cfg);
	e.refused = true;
	e.error = "bad usage";
	completed(&e, 178, 1796642973443, 0, 0, 0);
	golden("report: bad usage, refused", &cfg, &e,
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"error\","
		"\"exit_status\":125,\"exit_signal\":null,\"timed_out\":false,\"timed_out_by\":null,"
		"\"kill_needed\":false,\"cancelled\":false,\"parent_gone\":false,\"name\":null,"
		"\"command\":[],\"command_base64\":null,\"pid\":null,\"command_exit\":null,"
		"\"command_signal\":null,\"core_dumped\":false,\"error\":\"bad usage\","
		"\"duration_seconds\":0.000000,\"kill_after_seconds\":5.000000,"
		"\"no_output_timeout_seconds\":null,\"timeout_signal\":\"TERM\","
		"\"wall_seconds\":0.000178,\"started_at\":\"2026-12-07T11:29:33.443Z\","
		"\"ended_at\":\"2026-12-07T11:29:33.443Z\",\"deadline_inherited\":null,\"signals\":[],"
		"\"signals_omitted\":0,\"alive_at_command_exit\":null,\"ended\":null,"
		"\"left_running\":null,\"alive_after_kill\":[],\"output\":null,\"tree_at_limit\":null,"
		"\"on_timeout\":null,\"rusage\":{\"user_seconds\":0.000000,\"system_seconds\":0.000000,"
		"\"max_rss_kib\":0}}\n");
}

/* runlimit --report=r.json 5 /nonexistent/cmd */
static void not_found(void)
{
	char *command[] = {"/nonexistent/cmd", NULL};
	struct config cfg = run_cfg(command, 1796642973433);
	struct run_end e;
	ran(&e, &cfg, 8047, status_of(127, 0), 0);
	e.exec_error = ENOENT;
	completed(&e, 920, 1796642973434, 246, 0, 868);
	golden("report: a command not found", &cfg, &e,
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"not-found\","
		"\"exit_status\":127,\"exit_signal\":null,\"timed_out\":false,\"timed_out_by\":null,"
		"\"kill_needed\":false,\"cancelled\":false,\"parent_gone\":false,\"name\":null,"
		"\"command\":[\"/nonexistent/cmd\"],\"command_base64\":null,\"pid\":8047,"
		"\"command_exit\":null,\"command_signal\":null,\"core_dumped\":false,"
		"\"error\":\"No such file or directory\",\"duration_seconds\":5.000000,"
		"\"kill_after_seconds\":5.000000,\"no_output_timeout_seconds\":null,"
		"\"timeout_signal\":\"TERM\",\"wall_seconds\":0.000920,"
		"\"started_at\":\"2026-12-07T11:29:33.433Z\",\"ended_at\":\"2026-12-07T11:29:33.434Z\","
		"\"deadline_inherited\":null,\"signals\":[],\"signals_omitted\":0,"
		"\"alive_at_command_exit\":0,\"ended\":0,\"left_running\":0,\"alive_after_kill\":[],"
		"\"output\":null,\"tree_at_limit\":null,\"on_timeout\":null,"
		"\"rusage\":{\"user_seconds\":0.000246,\"system_seconds\":0.000000,"
		"\"max_rss_kib\":868}}\n");
}

/* runlimit --report=r.json --report-tail=64 5 sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do
 * echo "line $i of stderr" >&2; done; echo out': the tail cut */
static void relayed_tail(void)
{
	char *command[] = {"sh", "-c",
	                   "for i in 1 2 3 4 5 6 7 8 9 10; do echo \"line $i of stderr\" >&2; "
	                   "done; echo out", NULL};
	struct config cfg = run_cfg(command, 1796642973772);
	cfg.relay = true;
	cfg.report_tail = 64;
	struct run_end e;
	ran(&e, &cfg, 8094, status_of(0, 0), 0);
	struct tail t;
	tail_init(&t, cfg.report_tail);
	for (int k = 1; k <= 10; k++) {
		char line[32];
		int n = snprintf(line, sizeof line, "line %d of stderr\n", k);
		tail_add(&t, line, (size_t)n);
	}
	struct relay_stats out = {{4, 171}, {-1, -1}, false, CLOCK_NEVER, &t, NULL};
	e.output = &out;
	completed(&e, 1469, 1796642973773, 888, 0, 1452);
	golden("report: the output relayed, the end of stderr kept", &cfg, &e,
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"exited\","
		"\"exit_status\":0,\"exit_signal\":null,\"timed_out\":false,\"timed_out_by\":null,"
		"\"kill_needed\":false,\"cancelled\":false,\"parent_gone\":false,\"name\":null,"
		"\"command\":[\"sh\",\"-c\","
		"\"for i in 1 2 3 4 5 6 7 8 9 10; do echo \\\"line $i of stderr\\\" >&2; done; echo out"
		"\"],\"command_base64\":null,\"pid\":8094,\"command_exit\":0,\"command_signal\":null,"
		"\"core_dumped\":false,\"error\":null,\"duration_seconds\":5.000000,"
		"\"kill_after_seconds\":5.000000,\"no_output_timeout_seconds\":null,"
		"\"timeout_signal\":\"TERM\",\"wall_seconds\":0.001469,"
		"\"started_at\":\"2026-12-07T11:29:33.772Z\",\"ended_at\":\"2026-12-07T11:29:33.773Z\","
		"\"deadline_inherited\":null,\"signals\":[],\"signals_omitted\":0,"
		"\"alive_at_command_exit\":0,\"ended\":0,\"left_running\":0,\"alive_after_kill\":[],"
		"\"output\":{\"stdout_bytes\":4,\"stderr_bytes\":171,\"stdout_dropped\":null,"
		"\"stderr_dropped\":null,\"stderr_with_stdout\":false,\"last_output_seconds\":null,"
		"\"stderr_tail\":{\"text\":\"7 of stderr\\nline 8 of stderr\\nline 9 of stderr\\nline 1"
		"0 of stderr\\n\",\"base64\":null,\"bytes\":171,\"cut\":107},"
		"\"stderr_tail_unavailable\":null},\"tree_at_limit\":null,\"on_timeout\":null,"
		"\"rusage\":{\"user_seconds\":0.000888,\"system_seconds\":0.000000,"
		"\"max_rss_kib\":1452}}\n");
	free(t.buf);
}

/* runlimit --report=r.json --report-tail=16 5 sh -c 'printf "\377\376abc\n" >&2': a tail
 * that is not UTF-8, its bytes in base64 */
static void binary_tail(void)
{
	char *command[] = {"sh", "-c", "printf \"\\377\\376abc\\n\" >&2", NULL};
	struct config cfg = run_cfg(command, 1796642973777);
	cfg.relay = true;
	cfg.report_tail = 16;
	struct run_end e;
	ran(&e, &cfg, 8098, status_of(0, 0), 0);
	struct tail t;
	tail_init(&t, cfg.report_tail);
	tail_add(&t, "\377\376abc\n", 6);
	struct relay_stats out = {{0, 6}, {-1, -1}, false, CLOCK_NEVER, &t, NULL};
	e.output = &out;
	completed(&e, 2087, 1796642973779, 1148, 0, 1472);
	golden("report: a tail that is not UTF-8", &cfg, &e,
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"exited\","
		"\"exit_status\":0,\"exit_signal\":null,\"timed_out\":false,\"timed_out_by\":null,"
		"\"kill_needed\":false,\"cancelled\":false,\"parent_gone\":false,\"name\":null,"
		"\"command\":[\"sh\",\"-c\",\"printf \\\"\\\\377\\\\376abc\\\\n\\\" >&2\"],"
		"\"command_base64\":null,\"pid\":8098,\"command_exit\":0,\"command_signal\":null,"
		"\"core_dumped\":false,\"error\":null,\"duration_seconds\":5.000000,"
		"\"kill_after_seconds\":5.000000,\"no_output_timeout_seconds\":null,"
		"\"timeout_signal\":\"TERM\",\"wall_seconds\":0.002087,"
		"\"started_at\":\"2026-12-07T11:29:33.777Z\",\"ended_at\":\"2026-12-07T11:29:33.779Z\","
		"\"deadline_inherited\":null,\"signals\":[],\"signals_omitted\":0,"
		"\"alive_at_command_exit\":0,\"ended\":0,\"left_running\":0,\"alive_after_kill\":[],"
		"\"output\":{\"stdout_bytes\":0,\"stderr_bytes\":6,\"stdout_dropped\":null,"
		"\"stderr_dropped\":null,\"stderr_with_stdout\":false,\"last_output_seconds\":null,"
		"\"stderr_tail\":{\"text\":\"\xef\xbf\xbd\xef\xbf\xbd" "abc\\n\","
		"\"base64\":\"//5hYmMK\",\"bytes\":6,\"cut\":0},\"stderr_tail_unavailable\":null},"
		"\"tree_at_limit\":null,\"on_timeout\":null,\"rusage\":{\"user_seconds\":0.001148,"
		"\"system_seconds\":0.000000,\"max_rss_kib\":1472}}\n");
	free(t.buf);
}

/* runlimit --report=r.json --max-procs=2 5 sh -c 'sleep 3 & sleep 3 & wait' */
static void budget(void)
{
	char *command[] = {"sh", "-c", "sleep 3 & sleep 3 & wait", NULL};
	struct config cfg = run_cfg(command, 1796644663752);
	cfg.budget[BUDGET_PROCS] = 2;
	struct run_end e;
	ran(&e, &cfg, 7244, status_of(0, SIGTERM), 3);
	e.timed_out = true;
	e.limit = budget_reason(BUDGET_PROCS);
	sent(&e, 100823, SIGTERM, "tree", e.limit);
	sent(&e, 100824, SIGCONT, "tree", e.limit);
	struct snap_proc procs[3];
	const char *const sleep3[] = {"sleep", "3", NULL};
	process(&procs[0], 7244, 7242, 103965, 1476, (const char *const *)command);
	process(&procs[1], 7246, 7244, 103975, 1588, sleep3);
	process(&procs[2], 7245, 7244, 103979, 1568, sleep3);
	procs[1].pgid = procs[2].pgid = 7242;
	struct snapshot_figures snap = {"procs", AT(100737), procs, 3, 0, NULL};
	e.tree_at_limit = &snap;
	struct budget_figures f = {.mechanism = "sampled", .interval = US(100000)};
	f.limit[BUDGET_PROCS] = 2;
	f.peak[BUDGET_MEMORY] = 4743168;
	f.peak[BUDGET_PROCS] = 3;
	e.budgets = &f;
	e.oom_kills = -1;
	completed(&e, 101403, 1796644663854, 2735, 0, 1588);
	golden("report: a budget exceeded", &cfg, &e,
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"timed-out\","
		"\"exit_status\":124,\"exit_signal\":null,\"timed_out\":true,"
		"\"timed_out_by\":\"procs\",\"kill_needed\":false,\"cancelled\":false,"
		"\"parent_gone\":false,\"name\":null,\"command\":[\"sh\",\"-c\","
		"\"sleep 3 & sleep 3 & wait\"],\"command_base64\":null,\"pid\":7244,"
		"\"command_exit\":null,\"command_signal\":\"TERM\",\"core_dumped\":false,"
		"\"error\":null,\"duration_seconds\":5.000000,\"kill_after_seconds\":5.000000,"
		"\"no_output_timeout_seconds\":null,\"timeout_signal\":\"TERM\","
		"\"wall_seconds\":0.101403,\"started_at\":\"2026-12-07T11:57:43.752Z\","
		"\"ended_at\":\"2026-12-07T11:57:43.854Z\",\"deadline_inherited\":null,"
		"\"signals\":[{\"at\":0.100823,\"signal\":\"TERM\",\"target\":\"tree\","
		"\"reason\":\"procs\"},{\"at\":0.100824,\"signal\":\"CONT\",\"target\":\"tree\","
		"\"reason\":\"procs\"}],\"signals_omitted\":0,\"alive_at_command_exit\":0,\"ended\":3,"
		"\"left_running\":0,\"alive_after_kill\":[],\"output\":null,"
		"\"tree_at_limit\":{\"reason\":\"procs\",\"at\":0.100737,\"processes\":[{\"pid\":7244,"
		"\"ppid\":7242,\"pgid\":7242,\"state\":\"sleeping\",\"elapsed_seconds\":0.103965,"
		"\"cpu_seconds\":0.000000,\"rss_kib\":1476,\"command\":[\"sh\",\"-c\","
		"\"sleep 3 & sleep 3 & wait\"],\"command_base64\":null,\"command_cut\":false},"
		"{\"pid\":7246,\"ppid\":7244,\"pgid\":7242,\"state\":\"sleeping\","
		"\"elapsed_seconds\":0.103975,\"cpu_seconds\":0.000000,\"rss_kib\":1588,"
		"\"command\":[\"sleep\",\"3\"],\"command_base64\":null,\"command_cut\":false},"
		"{\"pid\":7245,\"ppid\":7244,\"pgid\":7242,\"state\":\"sleeping\","
		"\"elapsed_seconds\":0.103979,\"cpu_seconds\":0.000000,\"rss_kib\":1568,"
		"\"command\":[\"sleep\",\"3\"],\"command_base64\":null,\"command_cut\":false}],"
		"\"omitted\":0,\"unavailable\":null},\"on_timeout\":null,"
		"\"budgets\":{\"mechanism\":\"sampled\",\"interval_seconds\":0.100000,"
		"\"memory_limit_bytes\":null,\"max_procs\":2,\"cpu_time_limit_seconds\":null,"
		"\"memory_peak_bytes\":4743168,\"procs_peak\":3,\"cpu_seconds\":0.000000,"
		"\"oom_kills\":null},\"rusage\":{\"user_seconds\":0.002735,\"system_seconds\":0.000000,"
		"\"max_rss_kib\":1588}}\n");
}

/* runlimit --report=r.json --on-timeout='sleep 5' --on-timeout-limit=0.2 0.3 sleep 5: the
 * hook KILLed at its limit */
static void hook_killed(void)
{
	char *command[] = {"sleep", "5", NULL};
	struct config cfg = run_cfg(command, 1796642974432);
	cfg.duration = US(300000);
	struct run_end e;
	ran(&e, &cfg, 8120, status_of(0, SIGTERM), 1);
	e.timed_out = true;
	e.limit = REASON_DEADLINE;
	sent(&e, 500938, SIGTERM, "tree", REASON_DEADLINE);
	sent(&e, 500939, SIGCONT, "tree", REASON_DEADLINE);
	struct snap_proc proc;
	process(&proc, 8120, 8118, 303952, 1624, (const char *const *)command);
	struct snapshot_figures snap = {"deadline", AT(300396), &proc, 1, 0, NULL};
	e.tree_at_limit = &snap;
	struct hook_figures hook = {"deadline", AT(300626), AT(300626 + 200279), true, false, 0,
	                            "limit"};
	e.on_timeout = &hook;
	completed(&e, 501599, 1796642974934, 2854, 0, 1624);
	golden("report: the --on-timeout hook, KILLed at its limit", &cfg, &e,
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"timed-out\","
		"\"exit_status\":124,\"exit_signal\":null,\"timed_out\":true,"
		"\"timed_out_by\":\"deadline\",\"kill_needed\":false,\"cancelled\":false,"
		"\"parent_gone\":false,\"name\":null,\"command\":[\"sleep\",\"5\"],"
		"\"command_base64\":null,\"pid\":8120,\"command_exit\":null,"
		"\"command_signal\":\"TERM\",\"core_dumped\":false,\"error\":null,"
		"\"duration_seconds\":0.300000,\"kill_after_seconds\":5.000000,"
		"\"no_output_timeout_seconds\":null,\"timeout_signal\":\"TERM\","
		"\"wall_seconds\":0.501599,\"started_at\":\"2026-12-07T11:29:34.432Z\","
		"\"ended_at\":\"2026-12-07T11:29:34.934Z\",\"deadline_inherited\":null,"
		"\"signals\":[{\"at\":0.500938,\"signal\":\"TERM\",\"target\":\"tree\","
		"\"reason\":\"deadline\"},{\"at\":0.500939,\"signal\":\"CONT\",\"target\":\"tree\","
		"\"reason\":\"deadline\"}],\"signals_omitted\":0,\"alive_at_command_exit\":0,"
		"\"ended\":1,\"left_running\":0,\"alive_after_kill\":[],\"output\":null,"
		"\"tree_at_limit\":{\"reason\":\"deadline\",\"at\":0.300396,"
		"\"processes\":[{\"pid\":8120,\"ppid\":8118,\"pgid\":8118,\"state\":\"sleeping\","
		"\"elapsed_seconds\":0.303952,\"cpu_seconds\":0.000000,\"rss_kib\":1624,"
		"\"command\":[\"sleep\",\"5\"],\"command_base64\":null,\"command_cut\":false}],"
		"\"omitted\":0,\"unavailable\":null},\"on_timeout\":{\"reason\":\"deadline\","
		"\"at\":0.300626,\"seconds\":0.200279,\"exit_status\":null,\"signal\":\"KILL\","
		"\"killed\":\"limit\"},\"rusage\":{\"user_seconds\":0.002854,"
		"\"system_seconds\":0.000000,\"max_rss_kib\":1624}}\n");
}

/* RUNLIMIT_DEADLINE=(now + 100 s) runlimit --report=r.json 0.2 sleep 5 */
static void inherited(void)
{
	char *command[] = {"sleep", "5", NULL};
	struct config cfg = run_cfg(command, 1796642974945);
	cfg.duration = US(200000);
	struct run_end e;
	ran(&e, &cfg, 8132, status_of(0, SIGTERM), 1);
	e.timed_out = true;
	e.limit = REASON_DEADLINE;
	sent(&e, 200128, SIGTERM, "tree", REASON_DEADLINE);
	sent(&e, 200129, SIGCONT, "tree", REASON_DEADLINE);
	struct snap_proc proc;
	process(&proc, 8132, 8130, 186064, 1492, (const char *const *)command);
	struct snapshot_figures snap = {"deadline", AT(180285), &proc, 1, 0, NULL};
	e.tree_at_limit = &snap;
	struct inherited in = {WALL(1796643074000), SECONDS(6), false};
	e.inherited = &in;
	completed(&e, 200756, 1796642975145, 1292, 0, 1492);
	golden("report: a deadline inherited", &cfg, &e,
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"timed-out\","
		"\"exit_status\":124,\"exit_signal\":null,\"timed_out\":true,"
		"\"timed_out_by\":\"deadline\",\"kill_needed\":false,\"cancelled\":false,"
		"\"parent_gone\":false,\"name\":null,\"command\":[\"sleep\",\"5\"],"
		"\"command_base64\":null,\"pid\":8132,\"command_exit\":null,"
		"\"command_signal\":\"TERM\",\"core_dumped\":false,\"error\":null,"
		"\"duration_seconds\":0.200000,\"kill_after_seconds\":5.000000,"
		"\"no_output_timeout_seconds\":null,\"timeout_signal\":\"TERM\","
		"\"wall_seconds\":0.200756,\"started_at\":\"2026-12-07T11:29:34.945Z\","
		"\"ended_at\":\"2026-12-07T11:29:35.145Z\","
		"\"deadline_inherited\":{\"deadline\":\"2026-12-07T11:31:14.000Z\","
		"\"reserve_seconds\":6.000000,\"shortened\":false},\"signals\":[{\"at\":0.200128,"
		"\"signal\":\"TERM\",\"target\":\"tree\",\"reason\":\"deadline\"},{\"at\":0.200129,"
		"\"signal\":\"CONT\",\"target\":\"tree\",\"reason\":\"deadline\"}],"
		"\"signals_omitted\":0,\"alive_at_command_exit\":0,\"ended\":1,\"left_running\":0,"
		"\"alive_after_kill\":[],\"output\":null,\"tree_at_limit\":{\"reason\":\"deadline\","
		"\"at\":0.180285,\"processes\":[{\"pid\":8132,\"ppid\":8130,\"pgid\":8130,"
		"\"state\":\"sleeping\",\"elapsed_seconds\":0.186064,\"cpu_seconds\":0.000000,"
		"\"rss_kib\":1492,\"command\":[\"sleep\",\"5\"],\"command_base64\":null,"
		"\"command_cut\":false}],\"omitted\":0,\"unavailable\":null},\"on_timeout\":null,"
		"\"rusage\":{\"user_seconds\":0.001292,\"system_seconds\":0.000000,"
		"\"max_rss_kib\":1492}}\n");
}

/* runlimit --report=r.json 5 sleep 4, sent 400 WINCH 4 ms apart, then TERM: the first
 * MAX_SENT listed (their times here 5 ms apart), the rest counted. */
static void too_many_signals(void)
{
	static const char before[] =
		"{\"schema\":1,\"version\":\"" RUNLIMIT_VERSION "\",\"outcome\":\"interrupted\","
		"\"exit_status\":null,\"exit_signal\":\"TERM\",\"timed_out\":false,"
		"\"timed_out_by\":null,\"kill_needed\":false,\"cancelled\":false,\"parent_gone\":false,"
		"\"name\":null,\"command\":[\"sleep\",\"4\"],\"command_base64\":null,\"pid\":8364,"
		"\"command_exit\":null,\"command_signal\":\"TERM\",\"core_dumped\":false,"
		"\"error\":null,\"duration_seconds\":5.000000,\"kill_after_seconds\":5.000000,"
		"\"no_output_timeout_seconds\":null,\"timeout_signal\":\"TERM\","
		"\"wall_seconds\":2.268229,\"started_at\":\"2026-12-07T11:29:45.506Z\","
		"\"ended_at\":\"2026-12-07T11:29:47.774Z\",\"deadline_inherited\":null,\"signals\":[";
	static const char after[] =
		"],\"signals_omitted\":146,\"alive_at_command_exit\":0,\"ended\":1,\"left_running\":0,"
		"\"alive_after_kill\":[],\"output\":null,\"tree_at_limit\":{\"reason\":\"forwarded\","
		"\"at\":2.267621,\"processes\":[{\"pid\":8364,\"ppid\":8361,\"pgid\":8361,"
		"\"state\":\"sleeping\",\"elapsed_seconds\":2.274821,\"cpu_seconds\":0.000000,"
		"\"rss_kib\":1660,\"command\":[\"sleep\",\"4\"],\"command_base64\":null,"
		"\"command_cut\":false}],\"omitted\":0,\"unavailable\":null},\"on_timeout\":null,"
		"\"rusage\":{\"user_seconds\":0.000072,\"system_seconds\":0.001594,"
		"\"max_rss_kib\":1660}}\n";
	char *command[] = {"sleep", "4", NULL};
	struct config cfg = run_cfg(command, 1796642985506);
	struct run_end e;
	ran(&e, &cfg, 8364, status_of(0, SIGTERM), 1);
	e.interrupted = e.forwarded = true;
	for (int k = 0; k < 400; k++)
		run_end_sent(&e, SIGWINCH, "group", REASON_FORWARDED);
	run_end_sent(&e, SIGTERM, "tree", REASON_FORWARDED);
	run_end_sent(&e, SIGCONT, "tree", REASON_FORWARDED);
	char detail[64];
	snprintf(detail, sizeof detail, "%zu listed, %zu omitted", e.nsent, e.omitted);
	check(e.nsent == MAX_SENT && e.omitted == 146, "report: MAX_SENT signals listed", detail);
	size_t size = sizeof before + sizeof after + MAX_SENT * 80;
	char *want = malloc(size);
	if (!want)
		return;
	size_t len = (size_t)snprintf(want, size, "%s", before);
	for (size_t k = 0; k < e.nsent; k++) {
		e.sent[k].at = AT(201320 + 5000 * (int64_t)k);
		len += (size_t)snprintf(want + len, size - len,
		                        "%s{\"at\":%d.%06d,\"signal\":\"WINCH\",\"target\":\"group\","
		                        "\"reason\":\"forwarded\"}", k ? "," : "",
		                        (int)((201320 + 5000 * k) / 1000000),
		                        (int)((201320 + 5000 * k) % 1000000));
	}
	snprintf(want + len, size - len, "%s", after);
	struct snap_proc proc;
	process(&proc, 8364, 8361, 2274821, 1660, (const char *const *)command);
	struct snapshot_figures snap = {"forwarded", AT(2267621), &proc, 1, 0, NULL};
	e.tree_at_limit = &snap;
	completed(&e, 2268229, 1796642987774, 72, 1594, 1660);
	golden("report: more signals than MAX_SENT", &cfg, &e, want);
	free(want);
}

void test_report(void)
{
	plain_exit();
	time_out_and_kill();
	cancelled();
	refused();
	not_found();
	relayed_tail();
	binary_tail();
	budget();
	hook_killed();
	inherited();
	too_many_signals();
}
