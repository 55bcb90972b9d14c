// SPDX-License-Identifier: GPL-3.0-or-later
#include "filter-server.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay-aux.h"
#include "util-strings.h"

struct filter_server {
	struct baro_filter_instance *fi;
	pid_t pid;		/* 0: no child */
	int sock;		/* the parent's end */
	int mem;		/* the memory file */
	void *map;
	size_t mapped;
};

/* What a case puts in the memory file after the head. */
struct wire {
	uint64_t n, naux, nseg_t;
	uint64_t t0_us, samples_in, samples_out, segments, passthrough;
	double p0_pa;
	uint32_t nbaro, reserved;
	/* The outputs' scalars. */
	double ns_per_row;
	uint64_t state_bytes;
};

/* Where each array starts in the file. */
struct layout {
	size_t t_s, t_us, is_sample, pressure, temperature, in_alt, truth,
		reference, label, seg_start, aux, seg_t_us;
	size_t alt, tr, climb, flags, baro_flags;
	size_t size;
};

static size_t
put(size_t *at, size_t bytes)
{
	size_t o = (*at + 15) & ~(size_t)15;
	*at = o + bytes;
	return o;
}

static struct layout
layout_of(size_t n, size_t naux, size_t nseg_t)
{
	struct layout l;
	size_t at = sizeof(struct replay_contain_head) + sizeof(struct wire);
	l.t_s = put(&at, n * sizeof(double));
	l.t_us = put(&at, n * sizeof(uint64_t));
	l.is_sample = put(&at, n);
	l.pressure = put(&at, n * sizeof(double));
	l.temperature = put(&at, n * sizeof(double));
	l.in_alt = put(&at, n * sizeof(double));
	l.truth = put(&at, n * sizeof(double));
	l.reference = put(&at, n * sizeof(double));
	l.label = put(&at, n * sizeof(uint32_t));
	l.seg_start = put(&at, n);
	l.aux = put(&at, naux * sizeof(struct replay_aux_event));
	l.seg_t_us = put(&at, nseg_t * sizeof(uint64_t));
	l.alt = put(&at, n * sizeof(double));
	l.tr = put(&at, n * sizeof(double));
	l.climb = put(&at, n * sizeof(double));
	l.flags = put(&at, n * sizeof(uint32_t));
	l.baro_flags = put(&at, 3 * n * sizeof(uint32_t));
	l.size = (at + 4095) & ~(size_t)4095;
	return l;
}

static struct wire *
wire_of(void *map)
{
	return (struct wire *)((char *)map +
			       sizeof(struct replay_contain_head));
}

#define AT(map, off) ((void *)((char *)(map) + (off)))

/* ---- the child ---------------------------------------------------------- */

/*
 * The filter's callbacks behind a shim that notes the time of each step
 * in the shared head before it runs, so after a crash the parent can say
 * where.  The child's copy of the instance is changed, not the parent's.
 */
struct shim {
	const struct baro_filter *f1;
	const struct baro_filter2 *f2;
	void *state;
	struct replay_contain_head *head;
};

static void
shim_step1(void *state, uint64_t now_us, const struct baro_filter_input *in,
	   struct baro_filter_output *out)
{
	struct shim *s = state;
	s->head->progress = now_us;
	s->f1->step(s->state, now_us, in, out);
}

static void
shim_step2(void *state, const struct baro_filter_frame *in,
	   struct baro_filter_output2 *out)
{
	struct shim *s = state;
	s->head->progress = in->now_us;
	s->f2->step(s->state, in, out);
}

static void
shim_reset(void *state)
{
	struct shim *s = state;
	if (s->f2)
		s->f2->reset(s->state);
	else
		s->f1->reset(s->state);
}

static size_t
shim_state_size(const void *state)
{
	const struct shim *s = state;
	size_t (*size)(const void *) = s->f2 ? s->f2->state_size
					     : s->f1->state_size;
	return size ? size(s->state) : 0;
}

/* One case: the rows from the file, the outputs into it.  0 or the
 * runner's error (its message in the head). */
static int
child_case(struct baro_filter_instance *fi, void *map)
{
	struct replay_contain_head *head = map;
	const struct wire *w = wire_of(map);
	struct layout l = layout_of(w->n, w->naux, w->nseg_t);
	struct replay_rows r = {
		.n = w->n, .cap = w->n,
		.t_s = AT(map, l.t_s), .t_us = AT(map, l.t_us),
		.is_sample = AT(map, l.is_sample),
		.pressure_pa = AT(map, l.pressure),
		.temperature_c = AT(map, l.temperature),
		.in_alt_m = AT(map, l.in_alt), .truth_m = AT(map, l.truth),
		.reference_m = AT(map, l.reference),
		.label = AT(map, l.label), .seg_start = AT(map, l.seg_start),
		.p0_pa = w->p0_pa, .t0_us = w->t0_us,
		.samples_in = w->samples_in, .samples_out = w->samples_out,
		.segments = w->segments, .passthrough = w->passthrough,
		.nbaro = w->nbaro, .naux = w->naux, .aux = AT(map, l.aux),
		.nseg_t = w->nseg_t, .seg_t_us = AT(map, l.seg_t_us),
	};
	struct replay_output o;
	head->progress = 0;
	int rc = replay_run_filter(&r, fi, &o, head->msg, sizeof(head->msg));
	if (rc < 0)
		return rc;
	const size_t n = w->n;
	struct wire *wo = wire_of(map);
	wo->ns_per_row = o.ns_per_row;
	wo->state_bytes = o.state_bytes;
	memcpy(AT(map, l.alt), o.alt_m, n * sizeof(double));
	memcpy(AT(map, l.tr), o.test_ratio, n * sizeof(double));
	memcpy(AT(map, l.climb), o.climb_m_s, n * sizeof(double));
	memcpy(AT(map, l.flags), o.flags, n * sizeof(uint32_t));
	memcpy(AT(map, l.baro_flags), o.baro_flags, 3 * n * sizeof(uint32_t));
	replay_output_free(&o);
	return 0;
}

static void __attribute__((noreturn))
child_main(struct baro_filter_instance fi, int sock, int mem)
{
	replay_contain_child_setup();
	void *map = NULL;
	size_t mapped = 0;
	struct shim s = {
		.f1 = fi.filter2 ? NULL : fi.filter,
		.f2 = fi.filter2,
		.state = fi.state,
	};
	struct baro_filter f1;
	struct baro_filter2 f2;
	if (s.f2) {
		f2 = *s.f2;
		f2.step = shim_step2;
		f2.reset = shim_reset;
		f2.state_size = shim_state_size;
		fi.filter2 = &f2;
	} else {
		f1 = *s.f1;
		f1.step = shim_step1;
		f1.reset = shim_reset;
		f1.state_size = shim_state_size;
		fi.filter = &f1;
	}
	fi.state = &s;
	for (;;) {
		uint64_t size;
		ssize_t got = recv(sock, &size, sizeof(size), MSG_WAITALL);
		if (got != (ssize_t)sizeof(size))
			_exit(0);	/* the parent is done */
		if (size != mapped) {
			if (map)
				munmap(map, mapped);
			map = mmap(NULL, size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, mem, 0);
			if (map == MAP_FAILED)
				_exit(2);
			mapped = size;
		}
		s.head = map;
		uint8_t rc = child_case(&fi, map) == 0 ? 0 : 1;
		if (send(sock, &rc, 1, MSG_NOSIGNAL) != 1)
			_exit(0);
	}
}

/* ---- the parent --------------------------------------------------------- */

int
filter_server_new(struct filter_server **out, struct baro_filter_instance *fi)
{
	struct filter_server *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fi = fi;
	s->sock = -1;
	s->mem = -1;
	*out = s;
	return 0;
}

/* The runners' clock, in s, for deadlines. */
static double
mono_s(void)
{
	return replay_now_ns() * 1e-9;
}

/* Kill and reap the child; *status its wait status. */
static void
child_end(struct filter_server *s, bool kill_it, int *status)
{
	if (s->sock >= 0)
		close(s->sock);
	s->sock = -1;
	if (s->pid > 0) {
		if (kill_it)
			kill(s->pid, SIGKILL);
		int st = 0;
		while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR)
			;
		if (status)
			*status = st;
	}
	s->pid = 0;
}

static int
child_start(struct filter_server *s, char *err, size_t errlen)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return str_errorf(err, errlen, -errno,
			       "filter server: socketpair: %s",
			       strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		return str_errorf(err, errlen, -e, "filter server: fork: %s",
			       strerror(e));
	}
	if (pid == 0) {
		close(sv[0]);
		child_main(*s->fi, sv[1], s->mem);
	}
	close(sv[1]);
	s->pid = pid;
	s->sock = sv[0];
	return 0;
}

/* The rows into the file (grown and mapped as needed). */
static int
pack(struct filter_server *s, const struct replay_rows *rows,
     struct layout *l, char *err, size_t errlen)
{
	*l = layout_of(rows->n, rows->naux, rows->nseg_t);
	if (s->mem < 0) {
		s->mem = memfd_create("baro-replay-filter", MFD_CLOEXEC);
		if (s->mem < 0)
			return str_errorf(err, errlen, -errno,
				       "filter server: memfd: %s",
				       strerror(errno));
	}
	/* Grown, never shrunk: a new mapping in both processes costs its
	 * pages' first faults again. */
	if (l->size > s->mapped) {
		size_t cap = s->mapped + s->mapped / 2;
		if (cap < l->size)
			cap = l->size;
		cap = (cap + 4095) & ~(size_t)4095;
		if (s->map)
			munmap(s->map, s->mapped);
		s->map = NULL;
		s->mapped = 0;
		if (ftruncate(s->mem, (off_t)cap) < 0)
			return str_errorf(err, errlen, -errno,
				       "filter server: %zu bytes: %s", cap,
				       strerror(errno));
		void *m = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED,
			       s->mem, 0);
		if (m == MAP_FAILED)
			return str_errorf(err, errlen, -ENOMEM,
				       "filter server: map %zu bytes: %s", cap,
				       strerror(errno));
		s->map = m;
		s->mapped = cap;
	}
	void *map = s->map;
	memset(map, 0, sizeof(struct replay_contain_head));
	struct wire *w = wire_of(map);
	*w = (struct wire){
		.n = rows->n, .naux = rows->naux, .nseg_t = rows->nseg_t,
		.t0_us = rows->t0_us, .samples_in = rows->samples_in,
		.samples_out = rows->samples_out, .segments = rows->segments,
		.passthrough = rows->passthrough, .p0_pa = rows->p0_pa,
		.nbaro = rows->nbaro,
	};
	const size_t n = rows->n;
#define COPY(off, src, bytes)                                                \
	do {                                                                 \
		if ((bytes) != 0)                                            \
			memcpy(AT(map, off), src, bytes);                    \
	} while (0)
	COPY(l->t_s, rows->t_s, n * sizeof(double));
	COPY(l->t_us, rows->t_us, n * sizeof(uint64_t));
	COPY(l->is_sample, rows->is_sample, n);
	COPY(l->pressure, rows->pressure_pa, n * sizeof(double));
	COPY(l->temperature, rows->temperature_c, n * sizeof(double));
	COPY(l->in_alt, rows->in_alt_m, n * sizeof(double));
	COPY(l->truth, rows->truth_m, n * sizeof(double));
	COPY(l->reference, rows->reference_m, n * sizeof(double));
	COPY(l->label, rows->label, n * sizeof(uint32_t));
	COPY(l->seg_start, rows->seg_start, n);
	COPY(l->aux, rows->aux, rows->naux * sizeof(struct replay_aux_event));
	COPY(l->seg_t_us, rows->seg_t_us, rows->nseg_t * sizeof(uint64_t));
#undef COPY
	return 0;
}

static int
unpack(const struct filter_server *s, const struct layout *l, size_t n,
       struct replay_output *out, char *err, size_t errlen)
{
	size_t nb = n ? n : 1;
	*out = (struct replay_output){ 0 };
	out->alt_m = malloc(nb * sizeof(double));
	out->test_ratio = malloc(nb * sizeof(double));
	out->climb_m_s = malloc(nb * sizeof(double));
	out->flags = malloc(nb * sizeof(uint32_t));
	out->baro_flags = malloc(3 * nb * sizeof(uint32_t));
	if (!out->alt_m || !out->test_ratio || !out->climb_m_s ||
	    !out->flags || !out->baro_flags) {
		replay_output_free(out);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	const struct wire *w = wire_of(s->map);
	out->ns_per_row = w->ns_per_row;
	out->state_bytes = w->state_bytes;
	memcpy(out->alt_m, AT(s->map, l->alt), n * sizeof(double));
	memcpy(out->test_ratio, AT(s->map, l->tr), n * sizeof(double));
	memcpy(out->climb_m_s, AT(s->map, l->climb), n * sizeof(double));
	memcpy(out->flags, AT(s->map, l->flags), n * sizeof(uint32_t));
	memcpy(out->baro_flags, AT(s->map, l->baro_flags),
	       3 * n * sizeof(uint32_t));
	return 0;
}

/* The child's answer within the deadline: 1 with *rc, 0 at EOF (it
 * died), -1 past the deadline. */
static int
answer(int sock, double deadline, uint8_t *rc)
{
	for (;;) {
		double left = deadline - mono_s();
		if (left <= 0.0)
			return -1;
		struct pollfd p = { .fd = sock, .events = POLLIN };
		int ms = replay_contain_poll_ms(left);
		int k = poll(&p, 1, ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			continue;
		ssize_t got = recv(sock, rc, 1, 0);
		if (got == 1)
			return 1;
		if (got == 0 || (errno != EINTR && errno != EAGAIN))
			return 0;
	}
}

int
filter_server_run(struct filter_server *s, const struct replay_rows *rows,
		  struct replay_output *out, double timeout_s,
		  struct replay_contain *how, char *err, size_t errlen)
{
	memset(how, 0, sizeof(*how));
	*out = (struct replay_output){ 0 };
	struct layout l;
	int rc = pack(s, rows, &l, err, errlen);
	if (rc == 0 && s->pid == 0)
		rc = child_start(s, err, errlen);
	if (rc < 0)
		return rc;
	const double t0 = mono_s();
	/* The mapping's size: the child maps the file again when it grew. */
	uint64_t size = s->mapped;
	uint8_t res = 1;
	int a = send(s->sock, &size, sizeof(size), MSG_NOSIGNAL) ==
				(ssize_t)sizeof(size)
			? answer(s->sock, t0 + timeout_s, &res)
			: 0;
	how->elapsed_s = mono_s() - t0;
	const struct replay_contain_head *head = s->map;
	how->progress = head->progress;
	if (a == 1 && res == 0) {
		how->outcome = REPLAY_CONTAIN_OK;
		return unpack(s, &l, rows->n, out, err, errlen);
	}
	if (a == 1) {
		/* The runner's own error; the child goes on. */
		how->outcome = REPLAY_CONTAIN_FAILED;
		how->rc = -EIO;
		memcpy(how->msg, (const char *)head->msg, sizeof(how->msg));
		how->msg[sizeof(how->msg) - 1] = '\0';
		return 0;
	}
	int status = 0;
	child_end(s, a < 0, &status);
	if (a < 0) {
		how->outcome = REPLAY_CONTAIN_TIMED_OUT;
	} else if (WIFSIGNALED(status)) {
		how->outcome = REPLAY_CONTAIN_CRASHED;
		how->signal = WTERMSIG(status);
	} else {
		how->outcome = REPLAY_CONTAIN_FAILED;
		how->rc = -EIO;
		snprintf(how->msg, sizeof(how->msg), "exited with status %d",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	return 0;
}

void
filter_server_free(struct filter_server *s)
{
	if (!s)
		return;
	/* EOF first: a child in its loop ends by itself. */
	if (s->sock >= 0) {
		shutdown(s->sock, SHUT_RDWR);
		int st;
		double end = mono_s() + 1.0;
		while (s->pid > 0 && mono_s() < end) {
			pid_t w = waitpid(s->pid, &st, WNOHANG);
			if (w == s->pid || (w < 0 && errno != EINTR)) {
				s->pid = 0;	/* reaped: never kill it */
				break;
			}
			struct timespec d = { 0, 2000000 };
			nanosleep(&d, NULL);
		}
		child_end(s, true, NULL);
	}
	if (s->map)
		munmap(s->map, s->mapped);
	if (s->mem >= 0)
		close(s->mem);
	free(s);
}
