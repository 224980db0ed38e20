/* The platform seam: everything runlimit asks of the operating system beyond POSIX.1-2008,
 * and the one header of src/os/.  The core includes this and nothing else of src/os/; the
 * platform includes no header of the core.  One file per system, and one named for its
 * mechanism where systems share one, chosen by the Makefile (PLAT_<system>): which holds
 * what is docs/design.md's "The platform seam".  The unit tests of the private parts are in
 * tests/unit/os/, the one place outside src/os/ that includes their headers.  Where a system
 * lacks a thing, its own file says so in a line or two (none here: the core then does
 * without).  Feature macros: a file asks for its system's names at its top (Makefile,
 * FEATURES). */
#ifndef RUNLIMIT_OS_H
#define RUNLIMIT_OS_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ---- The process: what runlimit asks of the OS that is not about the command's tree:
 * becoming the reaper of orphans, tying a child's fate to runlimit's, the guard's cheap
 * start, and the parts of a finished process's story that POSIX leaves to each system.
 * Linux has it all; FreeBSD has the reaper and the parent-death signal; macOS and the
 * portable build have neither (containment is the command's process group).  The unit of
 * ru_maxrss is the one thing macOS does its own way. */

/* In runlimit, before the fork: have orphans of the command's descendants re-parented to
 * runlimit where the OS allows it (a subreaper, a reaper), so that they stay reachable. */
void os_init(void);

/* Whether the OS can send a child a signal when its parent dies. */
bool os_has_death_signal(void);

/* In a child of runlimit (parent_pid), before exec: have the kernel send sig to it if
 * runlimit dies (sig 0: nothing).  Returns 1 if that is armed, 0 if the OS has no such
 * thing (or sig is 0), -1 if runlimit is already gone.  Safe in a child that shares
 * runlimit's memory (os_spawn_child): on Linux it makes raw system calls. */
int os_child_prepare(int sig, pid_t parent_pid);

/* Start the guard (the core's guard.h says what it does), runlimit being parent, in the
 * cheapest way the OS allows where that is not a plain fork: Linux clones it sharing
 * runlimit's memory (no page tables copied).  Returns its pid, 0
 * where there is no such way, or -1 with errno where the system refused it: the core's
 * guard_start (guard.c), the one place the guard is started, then forks it.  All signals
 * must be blocked.  in_parents: the group the guard is to end when runlimit dies is the one
 * whose id is runlimit's pid (guard.c, guard_end_group), else the one it leads; relay (with
 * in_parents): the signals the guard passes on to runlimit when a process other than
 * runlimit sent them to a group runlimit is not in (guard.c, guard_relays); late_ms: 0,
 * but in test builds (TEST_RELAY_LATE_MS); kill_fd (>= 0): the run's cgroup.kill
 * (cgroup_kill_fd), written before the group is signalled. */
pid_t os_guard_start(int sig, pid_t parent, bool in_parents, const sigset_t *relay,
                     int late_ms, int kill_fd);

/* The forked guard passes a signal on to runlimit (guard.c): sig to pid, with value in the
 * si_value of a SI_QUEUE where the system has sigqueue(), else a plain kill (macOS: value
 * lost).  Async-signal-safe. */
int os_relay_signal(pid_t pid, int sig, int value);

/* --die-with-parent: a descriptor that becomes readable when process pid has ended (Linux:
 * a pidfd; macOS and FreeBSD: a kqueue with EVFILT_PROC NOTE_EXIT on it), close-on-exec and
 * never inherited by the command; -1 with errno ESRCH where pid has ended already, or with
 * another errno where the system cannot watch it (the caller then asks getppid() on a
 * period).  Which process it is can change between the pid read and this: the caller checks
 * that its parent is still pid after. */
int os_watch_exit(pid_t pid);

/* Ask the kernel to end runlimit's waits at their deadline itself, not within its usual
 * slack (Linux's timer slack: 50 us).  Called after the command is forked, which must not
 * inherit it. */
void os_sharpen_waits(void);

/* Did the wait status of a process killed by a signal come with a core dump?  (WCOREDUMP is
 * not POSIX.) */
bool os_dumped_core(int status);

/* ru_maxrss of getrusage() in KiB: Linux and FreeBSD count in KiB, macOS in bytes. */
long os_maxrss_kib(long ru_maxrss);

/* ---- The command's child (start_exec.c): started by os_spawn_shared, where the system has
 * a cheaper way than a fork.  Linux clones it sharing runlimit's memory, on a stack of its
 * own, and runlimit runs on meanwhile (no page tables copied, no page of runlimit's made
 * copy-on-write: some 70 µs a start, docs/performance.md).  Such a child shares runlimit's
 * errno and every variable: until its exec it makes its system calls through the
 * os_child_* calls below, which return the result or -errno and leave errno alone, writes
 * nothing but its own stack and what it was given to write, and calls nothing of libc that
 * writes (no malloc, no stdio, no errno).  The core forks a child that makes the same calls
 * where this returns 0: no such way (other systems, the sanitizer builds, which cannot
 * follow such a child) or the system refused it (EINVAL: qemu-user).  All signals must be
 * blocked.  fn execs or exits.  Returns the child's pid, 0, or -1 with errno. */
pid_t os_spawn_shared(void (*fn)(void *), void *arg);
long os_child_write(int fd, const void *buf, size_t len);
long os_child_setpgid(pid_t pid, pid_t pgid);
long os_child_getpgid(pid_t pid);
long os_child_getpid(void);
long os_child_getppid(void);
long os_child_yield(void);
long os_child_tcsetpgrp(int fd, pid_t pgid);
long os_child_disposition(int sig, bool ignore); /* SIG_IGN, or SIG_DFL */
long os_child_dup2(int from, int to);
long os_child_sigmask(const sigset_t *mask); /* SIG_SETMASK */
long os_child_kill(pid_t pid, int sig);
long os_child_execve(const char *path, char *const argv[], char *const envp[]);
void os_child_exit(int status);

/* ---- The tree: the command's process tree, finding and signalling every descendant,
 * not only its process group (how far each system reaches: docs/design.md, "The tree on
 * each system"; the portable build: the group only). */

/* In runlimit (pid runlimit), before the fork: note what the tree must never include (on
 * Linux, the children runlimit had before it started). */
void tree_init(pid_t runlimit);

/* In runlimit, right after the command is forked: what can be made ready off the command's
 * way to its exec (Linux: runlimit's children list held open, see linux_tree.c). */
void tree_started(void);

/* The command and its process group: the one description of whom runlimit's signals are
 * for, made by the launch, marked reaped by the supervisor alone, and passed as it is to
 * delivery, the report and the tree functions here. */
struct target {
	pid_t command;    /* the command */
	pid_t group;      /* its process group, led by the guard (0: --foreground, runlimit's) */
	pid_t guard;      /* the guard while runlimit has not reaped it (0: none); a child of
	                     runlimit's that is never of the tree */
	bool leads_group; /* no guard could be made: the command leads its group itself */
	bool group_mine;  /* group is runlimit's own pid: runlimit made it (guard.h), and no
	                     other process can have that id while runlimit runs */
	bool reaped;      /* the command is gone: its pid may belong to someone else */
	pid_t hook;       /* the --on-timeout hook while runlimit has not reaped it (0: none);
	                     a child of runlimit's that is never of the tree, nor is what it starts */
};

#define TREE_CONTINUE 1 /* follow sig with SIGCONT, so stopped processes act on it */
#define TREE_FREEZE   2 /* stop everything found, rescan until nothing new, then signal */
#define TREE_SOFT     4 /* a request to end, not the final KILL: a process group made
                           inside the tree by a live process of the tree (a nested runlimit
                           or timeout) is left to that process, which gets the signal */
#define TREE_GROUP_SENT 8 /* the command's group was sent sig: its members get no copy */

/* For the run report: a process of the tree, by pid and start time. */
struct tree_id {
	pid_t pid;
	uint64_t start;
};

/* What a walk that signals found, for the run report: every process of the tree it reached,
 * signalled itself or through the leader of a nested group.  Noted by the walk that sends,
 * so that asking for a report never delays a signal by a walk of its own. */
struct tree_seen {
	struct tree_id *ids; /* to be freed */
	size_t n, cap;
	bool unknown;        /* some may be missing: no walk here, or it ran out of memory */
};

/* Send sig to every descendant of the command that can be found, including those that left
 * its process group (the caller signals the group itself).  With seen (not NULL), note
 * there what was found.  Returns -1, except where the walk could not read the whole tree
 * for want of memory or a file descriptor (errno then says which: ENOMEM, EMFILE, ENFILE):
 * after a final KILL (TREE_FREEZE with SIGKILL), which then finishes without allocating
 * or opening anything new, how many processes of the tree were still alive when it gave up
 * (0: none, everything is dead), or TREE_UNVERIFIED if not even that could be looked at;
 * after any other signal, TREE_UNVERIFIED: processes may have been missed. */
long tree_signal(const struct target *t, int sig, int flags, struct tree_seen *seen);
#define TREE_UNVERIFIED (-2)

/* Just before runlimit signals the command, its group and its tree (signal_out.h): where an
 * orphan runlimit adopts may be another's (Linux, when runlimit inherited children or is
 * PID 1 of a pid namespace), walk the tree now, before the signal to the command orphans
 * its children, so that they are known as the command's after.  Nothing elsewhere. */
void tree_prepare(const struct target *t);

/* Once the command has been reaped: is any process of its tree still alive?  1 yes, 0 no,
 * TREE_MAYBE if it cannot be told for want of memory or a file descriptor (never taken as
 * "gone": the caller waits for the grace to end), -1 if this system cannot tell (no process
 * table to read): the caller then asks the group. */
int tree_alive(const struct target *t);
#define TREE_MAYBE 2

/* While runlimit waits for the leftovers of a finished command: arrange to be woken when
 * they exit.  True where their exits wake runlimit's wait (Linux and FreeBSD, where it
 * reaps every orphan of the tree; macOS, by watching each pid); false where nothing will,
 * and runlimit must look again now and then. */
bool tree_watch_exits(const struct target *t);

/* The processes of the command's tree alive now (the command too while it is not reaped),
 * into *out (to be freed).  Returns how many, or -1 where this system cannot list them
 * (no process table, or no memory to list them all: the report then says it does not
 * know). */
long tree_list(const struct target *t, struct tree_id **out);

/* ---- The usage: what the command's tree holds and has used, for the budgets (budget.h),
 * measured now from the process table; none without one (the portable build), where the
 * budgets are refused. */

/* The figures a measure gives, each -1 where it is not known.  Each budget (budget.c's
 * table) is kept on one of them; a figure is measured by every system's tree_usage that has a
 * process table, so that tree_usage_possible answers for all of them. */
enum usage_figure {
	USAGE_MEMORY, /* bytes resident, summed over the tree's live processes */
	USAGE_PROCS,  /* the tree's processes alive, zombies not counted */
	USAGE_CPU,    /* ns of CPU, user and system, of the live processes and of the ended ones
	                 they collected; those runlimit collected itself are the core's to add
	                 (getrusage, budget.c) */
	USAGE_FIGURES
};

struct tree_usage {
	int64_t figure[USAGE_FIGURES];
};

/* Measure the command's tree into *u, as tree_list finds it.  0, or -1 where this system
 * cannot (no process table, or a walk short of memory or descriptors). */
int tree_usage(const struct target *t, struct tree_usage *u);

/* Can tree_usage measure here at all (after os_init)?  Not without a process table, nor on
 * Linux where the walk does not hold the whole tree (no subreaper, another /proc). */
bool tree_usage_possible(void);

/* ---- The snapshot: the command's tree described as it is when a limit runs out, before
 * any signal (the report's tree_at_limit, -v's tree, the hook's RUNLIMIT_PIDS), from the
 * process table (none in the portable build); zombies included on Linux, left out on macOS
 * (its walk skips them).  A process gone by the time it is read is left out, never an error;
 * nothing is signalled. */

#define SNAP_ARG_MAX 256   /* bytes kept of one argument */
#define SNAP_ARGS_MAX 1024 /* bytes kept of them all, with the NUL that ends each */

struct snap_proc {
	pid_t pid, ppid, pgid;
	char state;          /* as ps shows it: R running, S sleeping, D disk wait, T stopped,
	                        t traced, Z zombie, I idle; ? not known */
	int64_t elapsed;     /* ns since it started (-1: not known) */
	int64_t cpu;         /* ns of CPU time, user and system (-1: not known) */
	int64_t rss_kib;     /* resident memory (-1: not known) */
	bool args_cut;       /* an argument was cut, or some were left out */
	size_t args_len;     /* args[0..args_len): the arguments, each ended by a NUL */
	char args[SNAP_ARGS_MAX];
};

/* Describe the processes of the command's tree alive (or zombies) now, up to max of them into
 * out, nearest the command first; *omitted: how many more there were.  Returns how many
 * were described, or -1 where this system cannot list the tree. */
long tree_snapshot(const struct target *t, struct snap_proc *out, size_t max, size_t *omitted);

/* ---- The run's cgroup: where a budget is asked and the system allows it, a cgroup of the
 * run's own that the command starts in, whose limits the kernel enforces, and whose files
 * say when they were hit, what the tree uses, and when it is gone; its cgroup.kill is the
 * final KILL.  Linux, cgroup v2 (linux_cgroup.c, which says where it is made and why it is
 * safe); none elsewhere (plain.c): the budgets are then measured from the walk. */

/* What the run's cgroup is to enforce: 0 for a budget not asked. */
struct cgroup_ask {
	int64_t memory; /* bytes: memory.max (and no swap) */
	int64_t procs;  /* tasks alive at once: pids.max (the kernel counts threads too) */
};

/* What its event files said when last read. */
struct cgroup_state {
	bool populated;        /* a process of the tree is in it */
	int64_t oom_kills;     /* processes the kernel killed at memory.max (memory.events) */
	int64_t procs_refused; /* forks refused at pids.max (pids.events "max") */
};

/* What the tree uses, from its files; -1 where a file is missing (an older kernel). */
struct cgroup_usage {
	int64_t memory_now, memory_peak; /* bytes: memory.current, memory.peak */
	int64_t procs_now, procs_peak;   /* tasks: pids.current, pids.peak or the most seen */
	int64_t cpu_ns;                  /* CPU time of the tree, the dead too: cpu.stat */
	int64_t oom_kills;
};

/* In runlimit, before the guard and the command are started: make the run's cgroup with
 * ask's limits.  0, or -1 with why it cannot be (one line, into why) and nothing left
 * behind. */
int cgroup_make(const struct cgroup_ask *ask, char *why, size_t size);

/* The run's cgroup.procs, open for writing: the child writes "0" to it before exec.  -1
 * when there is no run's cgroup. */
int cgroup_procs_fd(void);

/* In runlimit, after the fork of the command: cgroup.procs is closed. */
void cgroup_started(void);

/* The run's cgroup.kill, open for writing (close-on-exec), for the guard to end the whole
 * tree should runlimit be KILLed; -1 without a run's cgroup or a cgroup.kill. */
int cgroup_kill_fd(void);

/* The descriptors for runlimit's wait (POLLPRI when the event files change), into fds (at
 * most CGROUP_MAX_FDS); how many. */
#define CGROUP_MAX_FDS 3
size_t cgroup_fds(struct pollfd *fds);

/* The event files read now: NULL when there is no run's cgroup. */
const struct cgroup_state *cgroup_events(void);

/* Is the tree in its cgroup?  1 yes, 0 no, -1 when there is no cgroup to tell. */
int cgroup_populated(void);

/* What the tree uses now, into *u; false when there is no run's cgroup. */
bool cgroup_usage(struct cgroup_usage *u);

/* The final KILL, by cgroup.kill: one write, and nothing in the cgroup can fork past it.
 * False where there is no run's cgroup or no cgroup.kill (Linux before 5.14). */
bool cgroup_kill(void);

/* Before runlimit returns, on every path once cgroup_make succeeded: wait, until the time
 * until at the most (the settle's end: the bound), for a killed tree to be gone, move what
 * is left back where runlimit was, and remove all runlimit made, undoing what it changed. */
void cgroup_remove(int64_t until);

/* ---- The clock: the deadline clock and the one blocking wait of the supervisor.  Both
 * count the time the machine is awake, and they agree with each other, so a wait that ends
 * "at the deadline" ends when clock_now() reaches it.  The wait is the one place the
 * supervisor sleeps: the deadline, signals and descriptors are its events.
 *
 * Signals: the supervisor keeps the signals it catches blocked, except inside clock_wait,
 * which unblocks them (waitmask) for the wait alone.  Where the wait can do that atomically
 * (ppoll) a signal can never slip in between the supervisor's last look and the sleep, and no
 * descriptor is needed; elsewhere the handlers call clock_wake(), which writes to a self-pipe
 * (selfpipe.c) that the wait watches. */

#define CLOCK_NEVER INT64_MAX

/* Nanoseconds on the monotonic, awake-time clock. */
int64_t clock_now(void);

/* Nanoseconds since the epoch on the wall clock (clock.c; POSIX's CLOCK_REALTIME
 * everywhere): for telling a time (the report, --list --json), never for a deadline. */
int64_t clock_wall(void);

/* For the waits (clock.c): the time left to deadline as a timeout for ppoll or
 * kevent (NULL for CLOCK_NEVER: none), or in whole milliseconds for poll, rounded up so
 * that a wait never ends early (-1: none). */
struct timespec *clock_left(int64_t deadline, struct timespec *ts);
int clock_left_ms(int64_t deadline);

/* t + d for d >= 0, saturating one short of CLOCK_NEVER (a time that is due, however far). */
int64_t clock_after(int64_t t, int64_t d);

/* Before any handler is installed: set up what clock_wake needs (a self-pipe where the wait
 * is not atomic with the signal mask).  Never fails: without descriptors the wait still
 * works, it may only notice a signal late, at the next event. */
void clock_init(void);

/* From a signal handler: make a clock_wait in progress (or the next one) return. */
void clock_wake(void);

/* The most descriptors one wait watches besides its own (the output pipes and the control
 * socket's connections of a run). */
#define CLOCK_MAX_FDS 16

/* Sleep in the kernel with waitmask as the signal mask until a signal handler runs, one of
 * fds[0..n) is ready as poll(2) tells it (events asked, revents set: 0 for those that are
 * not), or clock_now() reaches deadline (CLOCK_NEVER: no deadline).  No periodic wake-ups.
 * n is at most CLOCK_MAX_FDS; fds may be NULL when n is 0. */
void clock_wait(int64_t deadline, const sigset_t *waitmask, struct pollfd *fds, size_t n);

/* With every signal blocked (a helper child): sleep until fd is readable (or at EOF), or
 * clock_now() reaches deadline. */
void clock_wait_fd(int fd, int64_t deadline);

/* Make the waits end when process pid exits (once), where the wait can watch processes
 * (macOS's kevent); false where it cannot, or pid is gone already. */
bool clock_watch_exit(pid_t pid);

/* ---- Processor counts from the operating system (the policy that combines them, with
 * the OpenMP variables, is the core's nproc.c). */

/* Processors this process may run on now: those online, narrowed by its affinity mask.
 * 0 if unknown. */
unsigned long ncpu_available(void);

/* Processors installed, online or not, and never fewer than ncpu_available().  0 if unknown. */
unsigned long ncpu_installed(void);

/* The CPU time quota this process runs under, as a processor count (at least 1);
 * ULONG_MAX when none applies. */
unsigned long ncpu_quota(void);

/* ---- A pipe whose two ends are close-on-exec (start_exec.c's report of a failed exec): 0,
 * or -1 with errno.  Linux: pipe2, one call; elsewhere (plain.c) pipe, then fcntl on each. */
int os_pipe_cloexec(int ends[2]);

/* ---- A directory held by a descriptor, for which searching it is enough, not reading it:
 * the working directory, to come back to (named runs bind their socket from inside their
 * directory, so that its path never has to fit a socket's address), and the directory a
 * report goes into, to fstat and openat in (report_file.c).  Linux: O_PATH; elsewhere
 * (plain.c) POSIX's O_SEARCH where the system has it, else O_RDONLY, which needs read
 * permission. */

/* A close-on-exec descriptor of the working directory for fchdir; -1 if none. */
int os_open_here(void);

/* A close-on-exec descriptor of the directory path (links followed) for fstat, fchdir and
 * the *at calls; -1 (errno) if none. */
int os_open_dir(const char *path);

/* ---- Reopening: an open file description of runlimit's own, of the very file a
 * descriptor of runlimit's is open on.  For reading back a file the command writes to
 * (--report-tail with stderr a regular file, which may be open for writing only); for
 * writing without waiting to a pipe, FIFO or terminal the caller shares, whose description
 * runlimit may not make non-blocking (nowait.h).  Linux: /proc/self/fd (an anonymous pipe
 * too); macOS: fcntl F_GETPATH, checked against the file's identity (files, FIFOs and
 * terminals with a path); FreeBSD and posix.c: none. */

/* A close-on-exec, non-blocking descriptor of the file fd is open on, opened with access
 * (O_RDONLY or O_WRONLY) and the permissions of runlimit's user, never as a controlling
 * terminal; -1 if there is none to be had. */
int reopen_fd(int fd, int access);

/* ---- The peer: who is at the other end of a connected UNIX socket (the control socket
 * of a named run).  Linux: SO_PEERCRED; macOS, FreeBSD: getpeereid; posix.c: POSIX has no way,
 * and the portable build then relies on the directory of named runs alone, which only its
 * user and root can enter. */

/* 1 with the peer's effective uid in *uid; 0 where the system cannot tell; -1 on error. */
int peer_uid(int fd, uid_t *uid);

/* The pid of the process that listens at the other end of a connection (SO_PEERCRED on
 * Linux, LOCAL_PEERPID on macOS): the kernel's word, not the peer's; 0 where the system
 * cannot tell (FreeBSD, posix.c). */
pid_t peer_pid(int fd);

/* ---- Moving bytes from one pipe to another inside the kernel, never copied through
 * runlimit (the output relay).  Linux: splice(2), tee(2); elsewhere none: the relay then
 * copies through its buffer.  Both keep the pipe's own buffers, so a write of at most
 * PIPE_BUF bytes, which the kernel puts whole in one of them, stays whole in the caller's
 * pipe. */

/* Can pipe_move move bytes from the pipe `in` to out (a pipe too)? */
bool pipe_can_move(int in, int out);

/* Move up to max bytes from in to out, waiting on neither (whatever out's own flags are).
 * As read(2): how many were moved, 0 at end-of-file, -1 with errno: EAGAIN when in has
 * nothing or out has no room, EPIPE when out has no reader (SIGPIPE is raised as by a
 * write), another error when these bytes cannot be moved and must be copied. */
ssize_t pipe_move(int in, int out, size_t max);

/* The same, but the bytes stay in `in` too (to be read from it after: --report-tail keeps
 * them), and as pipe_move otherwise. */
ssize_t pipe_tee(int in, int out, size_t max);

/* The most a pipe of the relay's holds: what pipe_widen makes at most, and a pipe's
 * default on every system runlimit is built for (16 pages on Linux, of at most 64 KiB each;
 * 64 KiB on macOS and FreeBSD).  The relay's buffer is this large, so that a read from its
 * pipe takes all the pipe holds, and so ends where one of the command's writes ended. */
#define PIPE_WIDEST (1 << 20)

/* What a pipe holds as the system makes it, at least (Linux on 4 KiB pages, macOS,
 * FreeBSD): a move this large found the relay's pipe full. */
#define PIPE_USUAL 65536

/* Make the relay's own pipe (fd: either end) hold more than the usual 64 KiB where the
 * system lets it (Linux: F_SETPIPE_SZ, up to PIPE_WIDEST, less as /proc/sys/fs/pipe-max-size
 * or the user's pipe quota allows; quietly nothing where neither does), so that a command
 * writing fast wakes runlimit once a megabyte, not once every 64 KiB.  Elsewhere nothing:
 * the system sizes its pipes itself. */
void pipe_widen(int fd);

/* ---- Signals whose default action POSIX leaves to the system: SIGIO ends a process on
 * Linux (as POSIX's SIGPOLL does), and is ignored by default on macOS and the BSDs (4.4BSD's
 * default).  A constant, so that the core's signal table stays plain C for the unit tests. */
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || \
    defined(__OpenBSD__) || defined(__DragonFly__)
#define OS_SIGIO_IGNORED 1
#else
#define OS_SIGIO_IGNORED 0
#endif

#endif
