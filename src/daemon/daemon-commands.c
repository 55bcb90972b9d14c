/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The control socket's commands (baroctl is the client). */
#include <errno.h>
#include <inttypes.h>
#ifdef BAROD_HAVE_MALLINFO2
#include <malloc.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "px4-failure.h"
#include "source.h"
#include "util-strings.h"

/* The C library's heap in bytes: in use (what barod holds, a leak's
 * measure), free within what it holds, and held from the kernel (its
 * arenas and mmap'd blocks, all threads').  RSS cannot tell a leak from a
 * free heap page first touched late (a block placed somewhere new, or
 * MALLOC_PERTURB_ filling it whole); the soak judges this line. */
static void
memory_status(FILE *out)
{
#ifdef BAROD_HAVE_MALLINFO2
	const struct mallinfo2 mi = mallinfo2();

	fprintf(out, "memory heap in-use %zu free %zu mapped %zu\n",
		mi.uordblks + mi.hblkhd, mi.fordblks, mi.arena + mi.hblkhd);
#else
	(void)out;
#endif
}

static void
cmd_status(struct daemon *d, FILE *out)
{
	fprintf(out, "time %.2f s, wake-ups %" PRIu64 "\n",
		(double)d->ticks * TICK_MS * 1e-3, d->loop.wakeups);
	memory_status(out);
	for (int i = 0; i < d->sim.params.baro_count; i++) {
		const struct sim_baro_params *b = &d->sim.params.baro[i];
		fprintf(out,
			"baro %d %s samples %" PRIu64 " rnd %g drift %g "
			"glitch %g freeze %d delay %d disable %d\n",
			i, baro_sitl_healthy(&d->sim, (unsigned)i) ? "healthy"
								   : "unhealthy",
			d->samples[i], (double)b->rnd, (double)b->drift,
			(double)b->glitch, b->freeze, b->delay, b->disable);
	}
	for (unsigned i = 0; i < BARO_MAX_INSTANCES; i++) {
		char fault[64];
		/* In hardware mode the configured sensors' instances. */
		if (!daemon_baro_exists(d, i))
			continue;
		fault_spec_format(d->overlay.inst[i].spec, fault, sizeof(fault));
		fprintf(out, "baro %u overlay %s withheld %" PRIu64 "\n", i,
			fault, d->withheld[i]);
	}
	if (d->run && !d->scenario_done) {
		char t[32];
		scenario_format_ms(d->clock_ms - d->scenario_start_ms, t,
				   sizeof(t));
		fprintf(out, "scenario %s at %s\n", d->scenario_name, t);
	}
	if (d->source->status)
		d->source->status(&d->source_env, d->source_state, out);
	sinks_status(&d->sinks, out);
	daemon_requests_status(d, out);
	daemon_remote_status(d, out);
	fprintf(out, "ok\n");
}

/* Apply a parameter change from baroctl and tell the GCS. */
static int
set_param(struct daemon *d, const char *name, const char *value, FILE *out)
{
	char assignment[256], msg[256];
	int idx = sim_param_find(name);

	snprintf(assignment, sizeof(assignment), "%s=%s", name, value);
	float old = idx >= 0 ? sim_param_get(&d->sim.params, (size_t)idx) : 0;
	struct sim_params next = d->sim.params;
	if (sim_param_assign(&next, assignment, msg, sizeof(msg)) < 0 ||
	    daemon_param_check(d, (size_t)idx,
			       (double)sim_param_get(&next, (size_t)idx), msg,
			       sizeof(msg)) < 0) {
		fprintf(out, "error %s\n", msg);
		return -EINVAL;
	}
	d->sim.params = next;
	float now = sim_param_get(&d->sim.params, (size_t)idx);
	daemon_param_changed(d, (size_t)idx, old, now, "control", msg,
			     sizeof(msg));
	/* Kept, not refused: raising SIM_BARO_COUNT next is a fair way to
	 * add a configured baro.  But the user hears it does nothing now. */
	int inst = sim_param_instance((size_t)idx);
	if (daemon_param_inert_warning(d, (size_t)idx))
		fprintf(out, "warning: baro instance %d does not exist "
			     "(SIM_BARO_COUNT is %d): %s acts only once it is "
			     "raised\n", inst, d->sim.params.baro_count, name);
	fprintf(out, "ok %s\n", msg);
	return 0;
}

static void
cmd_inject(struct daemon *d, int argc, char **argv, FILE *out)
{
	char err[128], names[128];
	const int type = px4_failure_by_name(argv[1]);
	uint64_t inst;
	double value = NAN;

	if (type < 0) {
		px4_failure_names(names, sizeof(names), " ");
		fprintf(out, "error unknown fault '%s' (%s)\n", argv[1], names);
		return;
	}
	if (str_to_u64(argv[2], &inst) < 0 || inst >= BARO_MAX_INSTANCES ||
	    !daemon_baro_exists(d, (unsigned)inst)) {
		if (daemon_emulated(d))
			fprintf(out, "error no baro instance '%s' (0..%d)\n",
				argv[2], d->sim.params.baro_count - 1);
		else
			fprintf(out, "error no baro instance '%s': no "
				     "[sensor] has it\n", argv[2]);
		return;
	}
	if (argc == 4 && (str_to_double(argv[3], &value) < 0 || isnan(value))) {
		fprintf(out, "error '%s' is not a number\n", argv[3]);
		return;
	}
	if (daemon_inject(d, (unsigned)type, (unsigned)inst, value, err,
			  sizeof(err)) < 0)
		fprintf(out, "error %s\n", err);
	else
		fprintf(out, "ok %s on baro %u\n",
			px4_failure_name((unsigned)type), (unsigned)inst);
}

void
daemon_command(void *user, const char *line, FILE *out)
{
	struct daemon *d = user;
	char buf[CONTROL_MAX_LINE + 1];
	char *argv[8];
	int argc = 0;
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok_r(buf, " \t", &save); t && argc < 8;
	     t = strtok_r(NULL, " \t", &save))
		argv[argc++] = t;

	if (argc == 0) {
		fprintf(out, "error empty command\n");
	} else if (strcmp(argv[0], "status") == 0 && argc == 1) {
		cmd_status(d, out);
	} else if (strcmp(argv[0], "get") == 0 && argc <= 2) {
		for (size_t i = 0; i < sim_param_count(); i++) {
			const char *name = sim_param_info(i)->name;
			if (argc == 2 && strcmp(argv[1], name) != 0)
				continue;
			fprintf(out, "%s %g\n", name,
				(double)sim_param_get(&d->sim.params, i));
		}
		if (argc == 2 && sim_param_find(argv[1]) < 0)
			fprintf(out, "error unknown parameter '%s' (did you "
				     "mean %s?)\n",
				argv[1], sim_param_closest(argv[1]));
		else
			fprintf(out, "ok\n");
	} else if (strcmp(argv[0], "set") == 0 && argc == 3) {
		(void)set_param(d, argv[1], argv[2], out);
	} else if (strcmp(argv[0], "inject") == 0 && (argc == 3 || argc == 4)) {
		cmd_inject(d, argc, argv, out);
	} else if (strcmp(argv[0], "scenario") == 0 && argc == 3 &&
		   strcmp(argv[1], "load") == 0) {
		char err[512];
		if (daemon_scenario_start(d, argv[2], err, sizeof(err)) < 0)
			fprintf(out, "error %s\n", err);
		else
			fprintf(out, "ok scenario %s started\n", argv[2]);
	} else if (strcmp(argv[0], "scenario") == 0 && argc == 2 &&
		   strcmp(argv[1], "stop") == 0) {
		bool running = d->run && !d->scenario_done;
		daemon_scenario_stop(d);
		fprintf(out, running ? "ok scenario stopped, faults restored\n"
				     : "ok no scenario was running\n");
	} else {
		fprintf(out, "error unknown command '%s' (status, get [NAME], "
			     "set NAME VALUE, inject TYPE INSTANCE [VALUE], "
			     "scenario load FILE, scenario stop)\n", line);
	}
}
