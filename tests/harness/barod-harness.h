/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod as a child process, for the daemon tests and the benchmarks:
 * start it with arguments (its stdout and stderr in a log file), wait
 * until it says it is running instead of sleeping a fixed time, stop or
 * kill it and read its exit status, and clean up its temporary directory.
 *
 * Not tied to cmocka: a failure (barod exiting before it is ready, not
 * ready within the time allowed, a system call failing) goes to the
 * fail hook given at init, which must not return.  The suites pass
 * test_fail (test-util.h); the benchmarks pass NULL (print and exit 1).
 */
#ifndef BAROD_HARNESS_H
#define BAROD_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#define HARNESS_MAX_CHILDREN 16

/* What barod logs at NOTICE once its sources and outputs are up (the
 * moment it notifies READY=1). */
#define HARNESS_READY_TEXT "running: "

struct harness_child {
	pid_t pid;		/* 0: slot free */
	bool exited;		/* reaped; status holds the code */
	bool waited;		/* harness_wait_exit returned: slot reusable */
	int status;		/* exit code, or 128 + signal */
	struct rusage ru;
	char log[320];
};

struct harness {
	char dir[256];		/* the temporary directory */
	const char *barod;	/* the binary */
	unsigned ready_ms;	/* how long start-up may take */
	void (*fail)(const char *msg);
	struct harness_child children[HARNESS_MAX_CHILDREN];
};

/*
 * A fresh temporary directory /tmp/PREFIX-XXXXXX; barod is the binary to
 * run (NULL: $BAROD).  The time allowed for start-up is
 * $BAROD_READY_TIMEOUT_MS, else 20 s (sanitizer builds on a loaded
 * machine).  Returns 0, or -1 with the reason on stderr (a cmocka setup).
 */
int harness_init(struct harness *h, const char *prefix, const char *barod,
		 void (*fail)(const char *msg));

/* Kill what is still running and remove the directory: 0 or -1. */
int harness_fini(struct harness *h);

/* SIGKILL every child still running and reap it (a cmocka teardown
 * after a failed assertion: no barod holds the test's output open). */
void harness_kill_all(struct harness *h);

/* DIR/name into buf. */
void harness_path(const struct harness *h, char *buf, size_t len,
		  const char *name);

/* Write DIR/name with printf-style content; its path into path. */
__attribute__((format(printf, 5, 6))) void
harness_write(struct harness *h, char *path, size_t len, const char *name,
	      const char *fmt, ...);

/*
 * Start barod with args (NULL-terminated, argv[0] excluded); its stdout
 * and stderr go to DIR/log_name.  Returns at once.
 */
pid_t harness_spawn(struct harness *h, const char *log_name,
		    const char *const *args);

/* Until barod has logged HARNESS_READY_TEXT: fails with its log when it
 * exits first or takes longer than ready_ms.  Needs a verbosity that
 * shows NOTICE (not -q). */
void harness_wait_ready(struct harness *h, pid_t pid);

/* harness_spawn, then harness_wait_ready. */
pid_t harness_start(struct harness *h, const char *log_name,
		    const char *const *args);

/* Until its log holds text n times (fails after ready_ms). */
void harness_wait_log(struct harness *h, pid_t pid, const char *text,
		      int n);

/* Its log so far, NUL-terminated (free it). */
char *harness_log(struct harness *h, pid_t pid);

/* Wait for it to end: its exit code, or 128 + the signal that ended it.
 * ru (may be NULL) gets its resource usage. */
int harness_wait_exit(struct harness *h, pid_t pid, struct rusage *ru);

/* Whether it has ended (then *code is set as harness_wait_exit's). */
bool harness_exited(struct harness *h, pid_t pid, int *code);

/* The first of n children to end within ms: its index, or -1. */
int harness_wait_first_exit(struct harness *h, const pid_t *pids, int n,
			    unsigned ms, int *code);

/* SIGTERM, then harness_wait_exit. */
int harness_stop(struct harness *h, pid_t pid, struct rusage *ru);

/* SIGKILL, then harness_wait_exit. */
int harness_kill(struct harness *h, pid_t pid);

/*
 * A loopback port (SOCK_DGRAM or SOCK_STREAM) that was free a moment
 * ago, for barod to bind: bound to port 0 and read back.  With pair, one
 * whose next port was free too (instances 0 and 1).
 */
unsigned harness_free_port(struct harness *h, int type, bool pair);

/* A TCP connection to 127.0.0.1:port with TCP_NODELAY, tried every 10 ms
 * up to tries times while barod comes up: the fd, or -1. */
int harness_dial_tcp(unsigned port, int tries);

/*
 * Whether node-mavlink (tests/harness/node-mavlink) can run: NULL when it can,
 * else why not (node missing, MAVLINK_PEER_MODULES unset or without
 * node-mavlink), in why.
 */
const char *harness_node_peer_missing(char *why, size_t len);

/* A test that needs node-mavlink: when it cannot run, fail when
 * $MAVLINK_PEER_REQUIRED is 1 (-Dnode_peer=enabled) else say why and
 * return true (the caller skips). */
bool harness_node_peer_skip(struct harness *h);

#endif
