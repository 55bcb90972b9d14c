/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod: the barometer daemon.  One thread, one epoll loop over a 100 Hz
 * timerfd, a signalfd and the output sockets.  Each tick runs the source
 * (the AP_Baro_SITL emulator; SITL links and hardware sensors have events
 * of their own), publishes every produced sample to every output as
 * MAVLink (or counts it as dropped), records it if asked, and answers the
 * GCS's parameter requests.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "atmosphere.h"
#include "baro-sitl.h"
#include "config.h"
#include "control.h"
#include "event-loop.h"
#include "faults.h"
#include "log.h"
#include "mavlink.h"
#include "notify.h"
#include "output.h"
#include "param-service.h"
#include "sample-csv.h"
#include "scenario.h"
#include "util-strings.h"

#include "daemon.h"
#include "sources/source.h"

#define EXIT_CONFIG 2

/* ------------------------------------------------------------------ */
/* Configuration */

static const char *
getenv_const(const char *name)
{
	return getenv(name);
}

static int
apply_cli(const struct cli *cli, struct config *c, char *err, size_t errlen)
{
	char msg[256];

	if (cli->sim)
		c->source = CONFIG_SOURCE_SIM;
	if (cli->sitl_json)
		c->source = CONFIG_SOURCE_SITL_JSON;
	if (cli->hardware)
		c->source = CONFIG_SOURCE_HARDWARE;
	if (cli->px4_sim)
		c->source = CONFIG_SOURCE_PX4_SIM;
	if (cli->sitl_proxy) {
		c->source = CONFIG_SOURCE_SITL_PROXY;
		if (strlen(cli->sitl_proxy) >= sizeof(c->sitl.upstream) ||
		    !strrchr(cli->sitl_proxy, ':')) {
			snprintf(err, errlen, "--sitl-json-proxy: '%s' is not "
					      "HOST:PORT", cli->sitl_proxy);
			return -EINVAL;
		}
		strcpy(c->sitl.upstream, cli->sitl_proxy);
	}
	if (cli->px4_proxy) {
		c->source = CONFIG_SOURCE_PX4_PROXY;
		if (strlen(cli->px4_proxy) >= sizeof(c->px4.upstream) ||
		    !strrchr(cli->px4_proxy, ':')) {
			snprintf(err, errlen, "--px4-sim-proxy: '%s' is not "
					      "HOST:PORT", cli->px4_proxy);
			return -EINVAL;
		}
		strcpy(c->px4.upstream, cli->px4_proxy);
	}
	/* PX4's environment, as PX4's own simulators read it: above the
	 * file, below the options. */
	if ((c->source == CONFIG_SOURCE_PX4_SIM ||
	     c->source == CONFIG_SOURCE_PX4_PROXY) &&
	    config_apply_px4_env(c, getenv_const, err, errlen) < 0)
		return -EINVAL;
	if (cli->px4_speed_factor) {
		if (config_parse_speed_factor(cli->px4_speed_factor,
					      &c->px4.speed_factor) < 0) {
			snprintf(err, errlen, "--px4-speed-factor: '%s' is not "
				 "0 (as fast as PX4 replies) or %g..%g",
				 cli->px4_speed_factor, CONFIG_PX4_SPEED_MIN,
				 CONFIG_PX4_SPEED_MAX);
			return -EINVAL;
		}
		c->px4.speed_factor_from = "--px4-speed-factor";
	}
	if (cli->px4_instances) {
		uint64_t n;
		if (str_to_u64(cli->px4_instances, &n) < 0 || n < 1 ||
		    n > CONFIG_MAX_SITL) {
			snprintf(err, errlen, "--px4-instances: '%s' is not "
					      "1..%d", cli->px4_instances,
				 CONFIG_MAX_SITL);
			return -EINVAL;
		}
		c->px4.instances = (unsigned)n;
	}
	if (cli->sitl_instances) {
		uint64_t n;
		if (str_to_u64(cli->sitl_instances, &n) < 0 || n < 1 ||
		    n > CONFIG_MAX_SITL) {
			snprintf(err, errlen, "--sitl-instances: '%s' is not "
					      "1..%d", cli->sitl_instances,
				 CONFIG_MAX_SITL);
			return -EINVAL;
		}
		c->sitl.instances = (unsigned)n;
		/* The PX4 peer took its count from --sitl-instances before
		 * --px4-instances existed: still an alias in the PX4 modes. */
		if (!cli->px4_instances)
			c->px4.instances = (unsigned)n;
	}
	for (int k = 0; k < 6; k++) {
		if (cli->rng[k] && config_parse_rng(cli->rng[k],
						    &c->sitl.rng[k]) < 0) {
			snprintf(err, errlen, "--rng %d=%s: expected a baro "
					      "instance 0..2 or none", k + 1,
				 cli->rng[k]);
			return -EINVAL;
		}
	}
	if (cli->profile &&
	    truth_profile_parse(cli->profile, &c->profile, msg, sizeof(msg)) < 0) {
		snprintf(err, errlen, "--profile: %s", msg);
		return -EINVAL;
	}
	if (cli->truth)
		snprintf(c->truth_path, sizeof(c->truth_path), "%s", cli->truth);
	if (cli->home_alt) {
		if (str_to_double(cli->home_alt, &c->home_alt_m) < 0 ||
		    !(fabs(c->home_alt_m) <= 2.1e7)) {
			snprintf(err, errlen, "--home-alt: '%s' is not metres",
				 cli->home_alt);
			return -EINVAL;
		}
		c->home_alt_from = "--home-alt";
	}
	if (cli->atmosphere &&
	    config_parse_atmosphere(cli->atmosphere, &c->atmosphere) < 0) {
		snprintf(err, errlen,
			 "--atmosphere: '%s' is not simple, 1976 or water",
			 cli->atmosphere);
		return -EINVAL;
	}
	struct {
		const char *text, *opt;
		uint64_t lo, hi;
		uint64_t v;
	} nums[] = {
		{ cli->seed, "--seed", 0, UINT32_MAX, 0 },
		{ cli->sysid, "--sysid", 1, 255, 0 },
		{ cli->compid, "--compid", 1, 255, 0 },
	};
	for (size_t i = 0; i < 3; i++) {
		if (!nums[i].text)
			continue;
		if (str_to_u64(nums[i].text, &nums[i].v) < 0 ||
		    nums[i].v < nums[i].lo || nums[i].v > nums[i].hi) {
			snprintf(err, errlen, "%s: '%s' is not in %" PRIu64
					      "..%" PRIu64, nums[i].opt,
				 nums[i].text, nums[i].lo, nums[i].hi);
			return -EINVAL;
		}
	}
	if (cli->seed)
		c->seed = (uint32_t)nums[0].v;
	if (cli->sysid)
		c->sysid = (uint8_t)nums[1].v;
	if (cli->compid)
		c->compid = (uint8_t)nums[2].v;
	for (size_t i = 0; i < cli->n_params; i++) {
		if (sim_param_assign(&c->params, cli->params[i], msg,
				     sizeof(msg)) < 0) {
			snprintf(err, errlen, "-p: %s", msg);
			return -EINVAL;
		}
	}
	if (cli->n_outputs) {
		memcpy(c->outputs, cli->outputs, sizeof(cli->outputs));
		c->n_outputs = cli->n_outputs;
	}
	if (cli->record)
		snprintf(c->record_path, sizeof(c->record_path), "%s",
			 cli->record);
	if (cli->control)
		snprintf(c->control_path, sizeof(c->control_path), "%s",
			 cli->control);
	/* The ground-station convention: QGroundControl, MAVProxy and
	 * mavlink-router listen on 14550 with no setup. */
	if (c->n_outputs == 0) {
		struct config_output *o = &c->outputs[c->n_outputs++];
		memset(o, 0, sizeof(*o));
		strcpy(o->name, "gcs");
		o->type = OUTPUT_UDP_CLIENT;
		strcpy(o->address, "127.0.0.1:14550");
		o->rates = (struct config_rates){ RATE_UNSET, RATE_UNSET,
						  RATE_UNSET };
	}
	config_resolve(c);
	return config_validate(c, err, errlen);
}

static int
load_config(const struct cli *cli, struct config *c, char *err, size_t errlen)
{
	config_defaults(c);
	const char *path = cli->config_path ? cli->config_path
					    : CONFIG_DEFAULT_PATH;
	if (cli->config_required || access(path, F_OK) == 0) {
		int rc = config_load_file(c, path, err, errlen);
		if (rc < 0)
			return rc;
	}
	return apply_cli(cli, c, err, errlen);
}

/* ------------------------------------------------------------------ */
/* Events */

static void
on_timer(struct event_source *src, uint32_t events, void *user)
{
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) ==
	    sizeof(expirations))
		daemon_tick(user, expirations);
}

/* A MAVLink frame from a GCS on one of the sinks: the reply goes back on
 * that sink. */
static void
on_mavlink(void *user, struct sink *from, const struct mavlink_frame *f)
{
	struct daemon *d = user;

	param_service_handle(&d->ps, f, from);
}

static void
ps_send(void *user, void *reply_to, uint32_t msgid, const uint8_t *payload)
{
	struct daemon *d = user;

	if (reply_to)
		sink_send(reply_to, msgid, payload);
	else
		daemon_send_all(d, msgid, payload);
}

static int
ps_check(void *user, size_t idx, double value)
{
	return daemon_param_check(user, idx, value, NULL, 0);
}

static void
ps_changed(void *user, size_t idx, float old_value, float new_value)
{
	struct daemon *d = user;
	uint8_t pl[MAVLINK_MAX_PAYLOAD];
	char text[64];

	snprintf(text, sizeof(text), "%s %g -> %g", sim_param_info(idx)->name,
		 (double)old_value, (double)new_value);
	log_msg(&d->log, LOG_LEVEL_NOTICE, "%s (MAVLink)", text);
	param_service_statustext(MAV_SEVERITY_NOTICE, text, pl);
	daemon_send_all(d, MAVLINK_MSG_STATUSTEXT, pl);
	daemon_param_inert_warning(d, idx);
}

/* SIGHUP: re-read the configuration.  Outputs that did not change keep
 * their sockets; SIM_* values that changed in the file are applied, the
 * others keep what the GCS or a scenario set at run time. */
static void
reload(struct daemon *d)
{
	struct config next;
	char err[256];

	if (load_config(&d->cli, &next, err, sizeof(err)) < 0) {
		log_msg(&d->log, LOG_LEVEL_ERR,
			"reload: %s; keeping the running configuration", err);
		return;
	}
	if (next.source != d->cfg.source) {
		/* The source's sockets and state are its own: it changes
		 * only with a restart. */
		log_msg(&d->log, LOG_LEVEL_WARNING,
			"reload: source %s takes a restart; still %s",
			config_source_name(next.source), d->source->name);
		next.source = d->cfg.source;
	}

	for (size_t i = 0; i < sim_param_count(); i++) {
		float was = sim_param_get(&d->cfg.params, i);
		float now = sim_param_get(&next.params, i);
		if (memcmp(&was, &now, sizeof(was)) == 0)
			continue;
		/* Told as a GCS or baroctl change is: the value live until
		 * now may be one they set. */
		float live = sim_param_get(&d->sim.params, i);
		char text[96];
		if (sim_param_set(&d->sim.params, i, (double)now) == 0 &&
		    memcmp(&live, &now, sizeof(live)) != 0) {
			daemon_param_changed(d, i, live, now, "configuration",
					     text, sizeof(text));
			(void)daemon_param_inert_warning(d, i);
		}
	}
	d->sim.atmosphere = next.atmosphere;

	daemon_flush(d);
	sinks_reload(&d->sinks, &next);
	/* A hardware source reopens only the sensors whose sections
	 * changed: a working one is not lost to an edit elsewhere. */
	if (d->source->reload)
		d->source->reload(d, d->source_state, &next);
	d->ps.sysid = next.sysid;
	d->ps.compid = next.compid;
	d->cfg = next;
	log_msg(&d->log, LOG_LEVEL_NOTICE, "configuration reloaded, %zu outputs",
		sinks_outputs(&d->sinks));
}

/* Called by the event loop itself (so a hung callback starves it): the
 * service manager's watchdog, STATUS=, and log lines held back. */
static void
service_tick(void *user)
{
	struct daemon *d = user;
	struct notify_counters c;

	notify_watchdog(&d->notify);
	daemon_service_counters(d, &c);
	notify_status(&d->notify, &c, event_now_us(), false);
	log_flush_suppressed(&d->log, false);
}

static void
on_signal(struct event_source *src, uint32_t events, void *user)
{
	struct daemon *d = user;
	struct signalfd_siginfo si;

	(void)events;
	while (read(src->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(d);
		else
			d->loop.quit = true;
	}
}

/* ------------------------------------------------------------------ */

static void
usage(FILE *out)
{
	fputs("Usage: barod [OPTIONS]\n"
	      "       barod --probe [BUS]\n"
	      "Barometer daemon: I2C or simulated (AP_Baro_SITL) barometers "
	      "published as MAVLink\n"
	      "(or MSP to an ArduPilot flight controller).\n"
	      "\n"
	      "  -c, --config FILE        configuration file (default "
	      CONFIG_DEFAULT_PATH ", if present)\n"
	      "      --check-config       validate the configuration and exit\n"
	      "      --sim                simulated barometers (source = sim)\n"
	      "      --hardware           the [sensor NAME] sections' chips "
	      "(source = hardware)\n"
	      "      --probe [BUS]        find supported chips on every I2C "
	      "bus (or BUS), print\n"
	      "                           their [sensor] sections and exit\n"
	      "      --profile SPEC       truth: static:H climb:RATE[:H0] "
	      "step:H0:H1:T sine:A:P[:H0]\n"
	      "      --truth FILE.csv     truth from a trace (time_us or "
	      "time_s, alt_m)\n"
	      "      --home-alt METRES    home altitude AMSL (default: 584 "
	      "with --sitl-json*;\n"
	      "                           PX4_HOME_ALT, else 488, with "
	      "--px4-sim*; else 0)\n"
	      "      --atmosphere MODEL   1976 (default, ArduPilot 4.6+), "
	      "simple (<= 4.5) or water\n"
	      "      --seed N             noise seed\n"
	      "  -p, --param NAME=VALUE   set a SIM_* parameter (repeatable)\n"
	      "  -o, --output SPEC        udp:HOST:PORT, udp-server:HOST:PORT, "
	      "serial:DEV[:BAUD],\n"
	      "                           msp:DEV[:BAUD], msp-tcp:HOST:PORT or "
	      "msp-udp:HOST:PORT\n"
	      "                           (repeatable; replaces the file's "
	      "outputs; default udp:127.0.0.1:14550)\n"
	      "      --sysid N            MAVLink system id (default 1)\n"
	      "      --compid N           MAVLink component id (default 191)\n"
	      "      --record FILE.csv    write every sample (baro-sim's "
	      "columns)\n"
	      "      --control PATH       control socket for baroctl (none: "
	      "no socket)\n"
	      "      --scenario FILE      run a fault scenario from start-up "
	      "(doc/scenario.md)\n"
	      "      --sitl-json          be ArduPilot SITL's JSON physics peer "
	      "(port 9002 + 10 I)\n"
	      "      --sitl-json-proxy HOST:PORT  sit between ArduPilot and "
	      "this JSON backend\n"
	      "      --sitl-instances N   SITL instances 0..N-1 (default 1)\n"
	      "      --px4-sim            be PX4 SITL's simulator (TCP port "
	      "4560 + N)\n"
	      "      --px4-sim-proxy HOST:PORT  sit between PX4 SITL (TCP "
	      "4560 + N) and this\n"
	      "                           simulator (port + N)\n"
	      "      --px4-instances N    PX4 instances 0..N-1 (default 1)\n"
	      "      --px4-speed-factor F  --px4-sim: physics seconds per "
	      "second (default\n"
	      "                           PX4_SIM_SPEED_FACTOR, else 1; 0: as "
	      "fast as PX4 replies)\n"
	      "      --rng N=INSTANCE     rng_N carries this baro's height "
	      "(default 1=0; none)\n"
	      "      --duration SECONDS   stop after this long\n"
	      "  -v, --verbose            more log (repeatable)\n"
	      "  -q, --quiet              errors only\n"
	      "      --log-prefix         <N> priority prefixes on stderr "
	      "(automatic when it is\n"
	      "                           the journal)\n"
	      "  -h, --help               this text\n"
	      "  -V, --version            the version\n",
	      out);
}

static int
parse_cli(int argc, char **argv, struct cli *cli)
{
	enum {
		OPT_CHECK = 256, OPT_SIM, OPT_PROFILE, OPT_HOME, OPT_ATMOS,
		OPT_SEED, OPT_SYSID, OPT_COMPID, OPT_RECORD, OPT_DURATION,
		OPT_CONTROL, OPT_SCENARIO, OPT_SITL_JSON, OPT_SITL_PROXY,
		OPT_SITL_INSTANCES, OPT_RNG, OPT_TRUTH, OPT_HARDWARE, OPT_PROBE,
		OPT_LOG_PREFIX, OPT_PX4_SIM, OPT_PX4_PROXY, OPT_PX4_INSTANCES, OPT_PX4_SPEED,
	};
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, OPT_CHECK },
		{ "sim", no_argument, NULL, OPT_SIM },
		{ "hardware", no_argument, NULL, OPT_HARDWARE },
		{ "probe", optional_argument, NULL, OPT_PROBE },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "truth", required_argument, NULL, OPT_TRUTH },
		{ "home-alt", required_argument, NULL, OPT_HOME },
		{ "atmosphere", required_argument, NULL, OPT_ATMOS },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "param", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "sysid", required_argument, NULL, OPT_SYSID },
		{ "compid", required_argument, NULL, OPT_COMPID },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "scenario", required_argument, NULL, OPT_SCENARIO },
		{ "sitl-json", no_argument, NULL, OPT_SITL_JSON },
		{ "sitl-json-proxy", required_argument, NULL, OPT_SITL_PROXY },
		{ "sitl-instances", required_argument, NULL, OPT_SITL_INSTANCES },
		{ "px4-sim", no_argument, NULL, OPT_PX4_SIM },
		{ "px4-sim-proxy", required_argument, NULL, OPT_PX4_PROXY },
		{ "px4-instances", required_argument, NULL, OPT_PX4_INSTANCES },
		{ "px4-speed-factor", required_argument, NULL, OPT_PX4_SPEED },
		{ "rng", required_argument, NULL, OPT_RNG },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "log-prefix", no_argument, NULL, OPT_LOG_PREFIX },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:p:o:vqhV", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			cli->config_path = optarg;
			cli->config_required = true;
			break;
		case OPT_CHECK: cli->check_config = true; break;
		case OPT_SIM: cli->sim = true; break;
		case OPT_HARDWARE: cli->hardware = true; break;
		case OPT_PROBE:
			cli->probe = true;
			/* getopt takes only --probe=BUS; --probe BUS too. */
			if (optarg == NULL && optind < argc &&
			    argv[optind][0] != '-')
				optarg = argv[optind++];
			cli->probe_bus = optarg;
			break;
		case OPT_PROFILE: cli->profile = optarg; break;
		case OPT_TRUTH: cli->truth = optarg; break;
		case OPT_HOME: cli->home_alt = optarg; break;
		case OPT_ATMOS: cli->atmosphere = optarg; break;
		case OPT_SEED: cli->seed = optarg; break;
		case OPT_SYSID: cli->sysid = optarg; break;
		case OPT_COMPID: cli->compid = optarg; break;
		case OPT_RECORD: cli->record = optarg; break;
		case OPT_CONTROL: cli->control = optarg; break;
		case OPT_SCENARIO: cli->scenario = optarg; break;
		case OPT_SITL_JSON: cli->sitl_json = true; break;
		case OPT_PX4_SIM: cli->px4_sim = true; break;
		case OPT_SITL_PROXY: cli->sitl_proxy = optarg; break;
		case OPT_SITL_INSTANCES: cli->sitl_instances = optarg; break;
		case OPT_PX4_PROXY: cli->px4_proxy = optarg; break;
		case OPT_PX4_INSTANCES: cli->px4_instances = optarg; break;
		case OPT_PX4_SPEED: cli->px4_speed_factor = optarg; break;
		case OPT_RNG:
			if (optarg[0] < '1' || optarg[0] > '6' ||
			    optarg[1] != '=') {
				fprintf(stderr, "barod: --rng '%s': expected "
						"N=INSTANCE with N 1..6\n",
					optarg);
				return -EINVAL;
			}
			cli->rng[optarg[0] - '1'] = optarg + 2;
			break;
		case 'p':
			if (cli->n_params == sizeof(cli->params) /
						     sizeof(cli->params[0])) {
				fprintf(stderr, "barod: too many -p options\n");
				return -EINVAL;
			}
			cli->params[cli->n_params++] = optarg;
			break;
		case 'o':
			if (cli->n_outputs == CONFIG_MAX_OUTPUTS) {
				fprintf(stderr, "barod: more than %d outputs\n",
					CONFIG_MAX_OUTPUTS);
				return -EINVAL;
			}
			if (config_parse_output(optarg,
						&cli->outputs[cli->n_outputs],
						err, sizeof(err)) < 0) {
				fprintf(stderr, "barod: %s\n", err);
				return -EINVAL;
			}
			cli->n_outputs++;
			break;
		case OPT_DURATION:
			if (str_to_double(optarg, &cli->duration_s) < 0 ||
			    !(cli->duration_s > 0.0 && cli->duration_s < 1e9)) {
				fprintf(stderr,
					"barod: --duration: '%s' is not a "
					"positive number of seconds\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'v': cli->verbosity++; break;
		case 'q': cli->verbosity = -1; break;
		case OPT_LOG_PREFIX: cli->log_prefix = true; break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("barod %s\n", BAROD_VERSION);
			return 1;
		case ':':
			fprintf(stderr, "barod: option '%s' needs a value\n",
				argv[optind - 1]);
			return -EINVAL;
		default:
			fprintf(stderr, "barod: unknown option '%s' (see --help)\n",
				argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "barod: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

static int
setup_signals(struct daemon *d)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	d->signals = (struct event_source){ .fd = fd, .cb = on_signal,
					    .user = d };
	return event_loop_add(&d->loop, &d->signals, EPOLLIN);
}

static void
report(struct daemon *d)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	log_msg(&d->log, LOG_LEVEL_INFO,
		"stopped after %.2f s: samples %" PRIu64 "/%" PRIu64 "/%" PRIu64
		", wake-ups %" PRIu64 ", cpu %.3f s, max rss %ld KiB",
		(double)d->ticks * TICK_MS * 1e-3, d->samples[0], d->samples[1],
		d->samples[2], d->loop.wakeups,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
				1e-6,
		ru.ru_maxrss);
	sinks_report(&d->sinks);
	if (d->source->report)
		d->source->report(d, d->source_state);
}

int
main(int argc, char **argv)
{
	static struct daemon d;
	char err[512];
	int rc = parse_cli(argc, argv, &d.cli);

	if (rc != 0)
		return rc > 0 ? EXIT_SUCCESS : EXIT_CONFIG;
	if (d.cli.probe)
		return daemon_probe(d.cli.probe_bus, stdout, stderr);
	log_init(&d.log, d.cli.verbosity < 0	? LOG_LEVEL_ERR
			 : d.cli.verbosity == 0 ? LOG_LEVEL_NOTICE
			 : d.cli.verbosity == 1 ? LOG_LEVEL_INFO
						: LOG_LEVEL_DEBUG);
	d.log.prefix |= d.cli.log_prefix;
	notify_init(&d.notify);

	if (load_config(&d.cli, &d.cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: %s\n", err);
		return EXIT_CONFIG;
	}
	d.source = source_find(d.cfg.source);
	if (!d.source) {
		fprintf(stderr, "barod: source %s: not built in\n",
			config_source_name(d.cfg.source));
		return EXIT_CONFIG;
	}
	/* Not refused: a scenario, baroctl or a GCS may raise the count. */
	for (size_t i = 0; daemon_emulated(&d) && i < sim_param_count(); i++) {
		if (sim_param_inert(&d.cfg.params, i))
			log_msg(&d.log, LOG_LEVEL_WARNING,
				"%s acts only on baro instance %d, which "
				"SIM_BARO_COUNT %d leaves out",
				sim_param_info(i)->name, sim_param_instance(i),
				d.cfg.params.baro_count);
	}
	if (d.cli.check_config) {
		printf("configuration OK: source %s, %zu output(s), sysid %u "
		       "compid %u, home %.2f m AMSL, atmosphere %s\n",
		       config_source_name(d.cfg.source), d.cfg.n_outputs,
		       d.cfg.sysid, d.cfg.compid, d.cfg.home_alt_m,
		       baro_sitl_atmosphere_name(d.cfg.atmosphere));
		return EXIT_SUCCESS;
	}

	/* One barod per control socket: a second one would take the socket
	 * over and leave the first unreachable.  Checked before anything
	 * is opened, so the refusal touches nothing. */
	char control_path[108], control_err[256] = "";
	int control_rc = 0;
	if (d.cfg.control_path[0])
		snprintf(control_path, sizeof(control_path), "%s",
			 d.cfg.control_path);
	else
		control_rc = control_default_path(control_path,
						  sizeof(control_path), true,
						  control_err,
						  sizeof(control_err));
	if (control_rc == 0 && strcmp(control_path, "none") != 0 &&
	    control_in_use(control_path) == 1) {
		fprintf(stderr, "barod: control socket %s: another barod is "
				"answering on it (stop it, or give this one "
				"--control PATH)\n", control_path);
		return EXIT_CONFIG;
	}

	if ((rc = event_loop_init(&d.loop)) < 0 || (rc = setup_signals(&d)) < 0) {
		fprintf(stderr, "barod: %s\n", strerror(-rc));
		return EXIT_FAILURE;
	}
	if (d.cfg.truth_path[0]) {
		FILE *tf = fopen(d.cfg.truth_path, "r");
		if (!tf) {
			fprintf(stderr, "barod: truth %s: %s\n",
				d.cfg.truth_path, strerror(errno));
			return EXIT_CONFIG;
		}
		rc = truth_trace_load(&d.trace, tf, d.cfg.truth_path, err,
				      sizeof(err));
		fclose(tf);
		if (rc < 0) {
			fprintf(stderr, "barod: %s\n", err);
			return EXIT_CONFIG;
		}
	}
	baro_sitl_init(&d.sim, &d.cfg.params, d.cfg.atmosphere, d.cfg.seed);
	fault_overlay_init(&d.overlay, d.cfg.seed);
	d.ps = (struct param_service){
		.sysid = d.cfg.sysid, .compid = d.cfg.compid,
		.params = &d.sim.params, .send = ps_send,
		.check = ps_check, .changed = ps_changed,
		.inject = daemon_mavlink_inject, .user = &d,
	};
	if (d.cli.scenario &&
	    daemon_scenario_start(&d, d.cli.scenario, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: --scenario: %s\n", err);
		return EXIT_CONFIG;
	}

	sinks_init(&d.sinks, &(struct sink_env){
		.cfg = &d.cfg, .log = &d.log, .loop = &d.loop,
		.frame = on_mavlink, .user = &d,
	});
	if (sinks_open_outputs(&d.sinks, &d.cfg) < 0)
		return EXIT_FAILURE;

	if (strcmp(control_path, "none") != 0) {
		rc = control_rc;
		if (rc < 0)
			snprintf(err, sizeof(err), "%s", control_err);
		else
			rc = control_open(&d.control, control_path,
					  d.cfg.control_mode, &d.loop,
					  daemon_command, &d, err, sizeof(err));
		if (rc == -EBUSY) {
			/* Started alongside: the check above did not see it. */
			fprintf(stderr, "barod: control socket %s\n", err);
			return EXIT_CONFIG;
		}
		if (rc < 0) {
			/* Without the socket barod still publishes; only
			 * baroctl is unavailable. */
			log_msg(&d.log, LOG_LEVEL_WARNING,
				"control socket %s; baroctl will not reach "
				"this barod", err);
		} else {
			d.have_control = true;
			log_msg(&d.log, LOG_LEVEL_INFO, "control socket %s",
				control_path);
		}
	}

	if (d.source->open(&d, &d.source_state, err, sizeof(err)) < 0) {
		fprintf(stderr, "barod: %s\n", err);
		d.source->close(&d, d.source_state);
		return EXIT_FAILURE;
	}

	int tfd = event_timerfd_periodic(TICK_MS * 1000000ull);
	if (tfd < 0) {
		fprintf(stderr, "barod: timerfd: %s\n", strerror(-tfd));
		return EXIT_FAILURE;
	}
	/* Last, so no start-up failure leaves a record file behind. */
	if (d.cfg.record_path[0]) {
		struct sink *rec = sink_record_open(&d.sinks.env,
						    d.cfg.record_path, err,
						    sizeof(err));
		if (!rec || sinks_add(&d.sinks, rec) < 0) {
			fprintf(stderr, "barod: --record %s\n", err);
			return EXIT_FAILURE;
		}
	}
	d.timer = (struct event_source){ .fd = tfd, .cb = on_timer,
					 .user = &d };
	event_loop_add(&d.loop, &d.timer, EPOLLIN);
	d.loop.after_dispatch = daemon_flush;
	d.loop.after_user = &d;
	if (d.cli.duration_s > 0.0)
		d.end_ticks = (uint64_t)ceil(d.cli.duration_s * 1000.0 / TICK_MS);
	d.loop.periodic = service_tick;
	d.loop.periodic_user = &d;
	d.loop.periodic_us = 1000000u;
	if (notify_watchdog_period_us(&d.notify) &&
	    notify_watchdog_period_us(&d.notify) < d.loop.periodic_us)
		d.loop.periodic_us = notify_watchdog_period_us(&d.notify);

	char what[200];
	if (d.source->describe)
		d.source->describe(&d, d.source_state, what, sizeof(what));
	else
		snprintf(what, sizeof(what), "source %s", d.source->name);
	log_msg(&d.log, LOG_LEVEL_NOTICE, "running: %s, sysid %u compid %u",
		what, d.cfg.sysid, d.cfg.compid);
	/* Sources and outputs are up: what Type=notify waits for. */
	struct notify_counters nc;
	char status[256];
	daemon_service_counters(&d, &nc);
	notify_format_status(status, sizeof(status), &nc);
	notify_ready(&d.notify, status);
	rc = event_loop_run(&d.loop);
	notify_stopping(&d.notify, "stopping");

	daemon_scenario_stop(&d);
	daemon_flush(&d);
	int sink_rc = sinks_stop(&d.sinks);
	report(&d);
	log_flush_suppressed(&d.log, true);
	d.source->close(&d, d.source_state);
	truth_trace_free(&d.trace);
	if (d.have_control)
		control_close(&d.control);
	sinks_close(&d.sinks);
	close(tfd);
	close(d.signals.fd);
	event_loop_fini(&d.loop);
	return rc < 0 || sink_rc < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
