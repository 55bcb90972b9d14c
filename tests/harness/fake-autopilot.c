/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fake-autopilot: a scripted ArduPilot or PX4 as a separate process, the
 * way sim_vehicle.py runs ArduPilot's SITL or `make px4_sitl` runs PX4,
 * for the tests of tools that start an autopilot from a command-line
 * template, fly it over MAVLink, fault its baro through baro-drive and
 * judge it from the log it writes (issue 38's fault campaigns).  Built on
 * ap-peer (tests/harness/ap-peer.h), which does the MAVLink, the
 * parameters, the flight and the estimator.
 *
 *   fake-autopilot --kind ardupilot|px4 --instance N --out HOST:PORT
 *                  [--out HOST:PORT ...] --log FILE [--speed X]
 *                  [--home-m M] [--crash-at S] [--hang-at S]
 *                  [--never-arm] [--seed N]
 *
 * --kind       ardupilot (autopilot ARDUPILOTMEGA, Copter mode numbers
 *              STABILIZE 0, GUIDED 4, LAND 9; SIM_BARO_* parameters) or
 *              px4 (autopilot PX4, px4_custom_mode.h's encoding: main
 *              mode << 16 | sub mode << 24, AUTO.LOITER 0x03040000,
 *              AUTO.TAKEOFF 0x02040000, AUTO.LAND 0x06040000, OFFBOARD
 *              0x00060000, POSCTL 0x00030000; SIM_BARO_OFF_P taken at the
 *              next whole second of its clock, MAV_CMD_INJECT_FAILURE baro
 *              off/stuck)
 * --instance   N: names the process in its messages and is the default
 *              seed (ArduPilot's -I, PX4's -i; ports are the caller's)
 * --out        where its streams go (SITL's --out), one or more: UDP from
 *              one socket bound to 127.0.0.1 on an ephemeral port.  A
 *              frame that arrives is answered to its sender; every
 *              frame goes to every --out and every sender heard, so two
 *              ground stations (baro-drive on one, a flight driver on
 *              another) both see everything
 * --log FILE   CSV at 10 Hz of its clock, flushed each line:
 *              time_us,pressure_pa,truth_alt_m,ekf_alt_m (time since
 *              boot; the baro's pressure; truth and estimate AMSL), as
 *              baro-replay's CSV reader takes it (its DataFlash log)
 * --speed X    its clock (time_boot_ms) runs X times wall time (1)
 * --home-m M   home AMSL, metres (584)
 * --crash-at S abort() at S seconds of its clock (exit by SIGABRT, no
 *              core file)
 * --hang-at S  at S seconds of its clock stop sending, answering and
 *              logging, and sleep until ended
 * --never-arm  every arm command is DENIED ("PreArm: told never to arm")
 * --seed N     the baro noise's seed (default: the instance)
 * --port PORT  bind 127.0.0.1:PORT instead of an ephemeral port, as PX4
 *              SITL binds 18570 + i for its GCS link; --out is then
 *              optional (it answers whoever sends to it)
 * --sim-tcp PORT   PX4 kind: its baro and clock come from a simulator
 *              over TCP, as PX4 SITL's simulator_mavlink takes them: it
 *              dials 127.0.0.1:PORT (again every 100 ms until it can, and
 *              after a disconnect), takes each HIL_SENSOR with id 0 as a
 *              lockstep step (its clock becomes time_usec; with the baro
 *              bits 0x1A00, abs_pressure (hPa) is its baro's raw reading
 *              in place of its own model and faults) and answers it with
 *              HIL_ACTUATOR_CONTROLS (flags LOCKSTEP).  Its clock stands
 *              still until the first step; --speed paces the simulator
 * --sim-serve PORT it is also that simulator: listens on 127.0.0.1:PORT
 *              and, to the one connection it takes at a time (barod's
 *              --px4-sim-proxy dialling its upstream), sends HIL_SENSOR
 *              every 20 ms of simulator time at --speed: id 0, the
 *              pressure and temperature of its true altitude in the 1976
 *              atmosphere with fields 0x1A00, time_usec SIM_EPOCH_S (100 s) plus its time since
 *              it started (a world that ran before PX4 connected, as
 *              Gazebo's does: PX4's clock does not start at 0), the next only once the last was answered by a
 *              HIL_ACTUATOR_CONTROLS (lockstep).  With --sim-tcp to barod
 *              and barod's upstream here, the baro the estimate reads is
 *              barod's rewrite of the truth: only barod's faults reach it
 *
 * On start it writes one line to stderr:
 *   fake-autopilot: KIND instance N on 127.0.0.1:PORT
 * SIGTERM or SIGINT: exit 0 at once.  Bad arguments: exit 2.
 *
 * The flight (COMMAND_LONG or COMMAND_INT, each answered with
 * COMMAND_ACK ACCEPTED or DENIED): MAV_CMD_COMPONENT_ARM_DISARM (400;
 * disarm in the air needs param2 21196); MAV_CMD_NAV_TAKEOFF (22;
 * armed; ArduPilot: in GUIDED, param7 metres above home; PX4: param7
 * AMSL as PX4 takes it, NaN 2.5 m above home, into AUTO.TAKEOFF then
 * AUTO.LOITER at the altitude); MAV_CMD_NAV_LAND (21; armed; LAND or
 * AUTO.LAND); MAV_CMD_DO_SET_MODE (176; param1 with
 * MAV_MODE_FLAG_CUSTOM_MODE_ENABLED, param2 the mode number (ArduPilot)
 * or main mode (PX4) and param3 PX4's sub mode) and SET_MODE (11,
 * custom_mode as HEARTBEAT carries it, acknowledged as command 11).
 * The truth climbs at 2 m/s to the takeoff altitude, holds, descends at
 * 1 m/s in LAND and disarms on touchdown.
 *
 * The baro reads the truth plus the faults and noise (0.1 m, seeded):
 * ArduPilot's SIM_BARO_GLITCH (m), SIM_BARO_DRIFT (m/s, integrated),
 * SIM_BARO_DISABLE (no readings: unhealthy) and SIM_BARO_FREEZE (holds
 * the last reading), the first baro only; PX4's SIM_BARO_OFF_P (Pa) and
 * injected baro off / stuck.  The estimate holds while the baro is off.
 * The estimate follows it through a 0.5 s first-order filter; a sample
 * whose innovation exceeds 5 m is rejected, and after 5 s of rejections
 * the estimate resets onto the baro ("EKF: height reset to baro").
 * While rejecting: SYS_STATUS's ABSOLUTE_PRESSURE health bit is clear,
 * EKF_STATUS_REPORT (ArduPilot) or ESTIMATOR_STATUS (PX4) has
 * POS_VERT_ABS clear and bit 2048 set (AP_PEER_EKF_BARO_REJECTED) and
 * the innovation test ratio (pos_vert_variance / pos_vert_ratio) above
 * 1; STATUSTEXT "EKF: baro rejected" when it starts, and after 3 s in
 * the air "EKF failsafe: LAND" and LAND mode.  GLOBAL_POSITION_INT
 * (10 Hz): relative_alt the estimate, alt home plus it.  HEARTBEAT and
 * EXTENDED_SYS_STATE (landed state) 1 Hz, SYS_STATUS and the
 * estimator's status 2 Hz.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ap-peer.h"
#include "atmosphere.h"

#define MAX_DEST 16

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t
mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: fake-autopilot --kind ardupilot|px4 --instance N "
		"--out HOST:PORT [--out HOST:PORT ...] --log FILE [--speed X] "
		"[--home-m M] [--crash-at S] [--hang-at S] [--never-arm] "
		"[--seed N] [--sim-tcp PORT] [--sim-serve PORT] [--port PORT]\n");
	exit(2);
}

static int
parse_addr(const char *s, struct sockaddr_in *a)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	char *end;

	if (!colon || (size_t)(colon - s) >= sizeof(host) || colon == s)
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (*end || port == 0 || port > 65535)
		return -1;
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	if (strcmp(host, "localhost") == 0)
		strcpy(host, "127.0.0.1");
	return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

static double
parse_num(const char *opt, const char *s, double min)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || v < min) {
		fprintf(stderr, "fake-autopilot: %s '%s': expected a number "
				">= %g\n", opt, s, min);
		exit(2);
	}
	return v;
}

static void
log_sample(void *user, uint64_t time_us, float pressure_pa, double truth,
	   double ekf)
{
	FILE *f = user;
	fprintf(f, "%llu,%.3f,%.3f,%.3f\n", (unsigned long long)time_us,
		(double)pressure_pa, truth, ekf);
	fflush(f);
}

struct dests {
	size_t n;
	struct sockaddr_in a[MAX_DEST];
};

static void
dest_add(struct dests *d, const struct sockaddr_in *a)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->a[i].sin_port == a->sin_port &&
		    d->a[i].sin_addr.s_addr == a->sin_addr.s_addr)
			return;
	if (d->n < MAX_DEST)
		d->a[d->n++] = *a;
}

/*
 * The simulator link (--sim-tcp, --sim-serve): both ends of PX4's
 * simulator protocol in this process, so that barod's --px4-sim-proxy
 * sits between its autopilot side and its simulator side.
 */
#define SIM_STEP_US 20000u
#define SIM_EPOCH_S 100u
#define SIM_REDIAL_US 100000u

struct sim_link {
	/* The autopilot's side (--sim-tcp): dials barod. */
	unsigned px4_port;
	int px4_fd;
	uint64_t next_dial_us;
	struct mavlink_parser px4_parser;
	uint8_t px4_seq;
	uint64_t steps;			/* HIL_SENSORs taken */
	/* The simulator's side (--sim-serve): barod dials it. */
	unsigned serve_port;
	int listen_fd, sim_fd;
	struct mavlink_parser sim_parser;
	uint8_t sim_seq;
	uint64_t start_us;		/* wall time of its time 0 */
	uint64_t sim_us;		/* time_usec of the last step sent */
	bool awaiting;			/* a step sent, not answered */
	double speed;
	struct ap_peer *ap;
};

static int
tcp_fd(void)
{
	return socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

static struct sockaddr_in
loopback(unsigned port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET,
				     .sin_port = htons((uint16_t)port),
				     .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
}

static void
sim_send(int fd, uint8_t *seq, uint32_t msgid, const union mavlink_msg *m)
{
	uint8_t pl[MAVLINK_MAX_PAYLOAD] = { 0 }, f[MAVLINK_MAX_FRAME];
	if (fd < 0 || mavlink_pack_msg(msgid, m, pl) == 0)
		return;
	int n = mavlink_frame_encode(f, 2, (*seq)++, 1, 1, msgid, pl);
	/* Frames are small against the socket's buffer; one that does not
	 * fit is lost as a slow link loses it. */
	if (n > 0)
		(void)!send(fd, f, (size_t)n, MSG_NOSIGNAL);
}

static int
sim_link_open(struct sim_link *l)
{
	l->px4_fd = l->listen_fd = l->sim_fd = -1;
	mavlink_parser_init(&l->px4_parser);
	mavlink_parser_init(&l->sim_parser);
	if (!l->serve_port)
		return 0;
	struct sockaddr_in a = loopback(l->serve_port);
	int one = 1;
	l->listen_fd = tcp_fd();
	if (l->listen_fd < 0 ||
	    setsockopt(l->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one,
		       sizeof(one)) < 0 ||
	    bind(l->listen_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(l->listen_fd, 1) < 0) {
		fprintf(stderr, "fake-autopilot: --sim-serve %u: %s\n",
			l->serve_port, strerror(errno));
		return -1;
	}
	return 0;
}

/* The autopilot's side: a HIL_SENSOR is a step, answered at once. */
static void
on_px4_frame(const struct mavlink_frame *f, void *user)
{
	struct sim_link *l = user;
	if (f->msgid != MAVLINK_MSG_HIL_SENSOR)
		return;
	struct mavlink_hil_sensor m;
	mavlink_unpack_hil_sensor(f->payload, &m);
	if (m.id != 0)
		return;
	l->steps++;
	/* PX4's lockstep: its clock is the simulator's. */
	l->ap->ap_ms = (double)m.time_usec / 1000.0;
	if ((m.fields_updated & HIL_SENSOR_BARO) == HIL_SENSOR_BARO) {
		l->ap->fly.ext_baro = true;
		l->ap->fly.ext_pa = m.abs_pressure * 100.0f;
	}
	union mavlink_msg r = { .hac = {
		.time_usec = m.time_usec,
		.flags = HIL_ACTUATOR_CONTROLS_FLAGS_LOCKSTEP,
		.mode = l->ap->fly.armed ? 128 : 0,
	} };
	sim_send(l->px4_fd, &l->px4_seq, MAVLINK_MSG_HIL_ACTUATOR_CONTROLS,
		 &r);
}

/* The simulator's side: an answer lets the next step go. */
static void
on_sim_frame(const struct mavlink_frame *f, void *user)
{
	struct sim_link *l = user;
	if (f->msgid == MAVLINK_MSG_HIL_ACTUATOR_CONTROLS)
		l->awaiting = false;
}

static void
sim_read(int *fd, struct mavlink_parser *parser,
	 void (*cb)(const struct mavlink_frame *, void *), struct sim_link *l)
{
	uint8_t buf[8192];
	ssize_t n;
	while (*fd >= 0 && (n = recv(*fd, buf, sizeof(buf), 0)) != 0) {
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			break;
		}
		mavlink_parser_feed(parser, buf, (size_t)n, cb, l);
	}
	/* Closed: the peer went; a new one starts afresh. */
	close(*fd);
	*fd = -1;
	mavlink_parser_init(parser);
}

/* Everything due at wall time now: dial, accept, read, step. */
static void
sim_link_run(struct sim_link *l, uint64_t now)
{
	if (l->px4_port && l->px4_fd < 0 && now >= l->next_dial_us) {
		l->next_dial_us = now + SIM_REDIAL_US;
		struct sockaddr_in a = loopback(l->px4_port);
		int fd = tcp_fd();
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 &&
		    errno != EINPROGRESS) {
			close(fd);
			fd = -1;
		}
		l->px4_fd = fd;
	}
	if (l->px4_fd >= 0)
		sim_read(&l->px4_fd, &l->px4_parser, on_px4_frame, l);
	if (l->listen_fd >= 0 && l->sim_fd < 0) {
		l->sim_fd = accept4(l->listen_fd, NULL, NULL,
				    SOCK_NONBLOCK | SOCK_CLOEXEC);
		l->awaiting = false;
		/* Its time ran before anyone connected: the first step is
		 * at the time now, not at its start. */
		if (l->sim_fd >= 0)
			l->sim_us = SIM_EPOCH_S * 1000000u +
				    (uint64_t)((double)(now - l->start_us) *
					       l->speed) /
					    SIM_STEP_US * SIM_STEP_US;
	}
	if (l->sim_fd >= 0)
		sim_read(&l->sim_fd, &l->sim_parser, on_sim_frame, l);
	/* Lockstep: the next step once the last was answered and its time
	 * has come at the speed asked for. */
	if (l->sim_fd < 0 || l->awaiting ||
	    (double)(l->sim_us + SIM_STEP_US) >
		    (double)(now - l->start_us) * l->speed +
			    SIM_EPOCH_S * 1e6)
		return;
	l->sim_us += SIM_STEP_US;
	const struct ap_peer_flight *v = &l->ap->fly;
	float pa, t;
	atmos_1976_pressure_temperature((float)(v->home_m + v->truth_m), &pa,
					&t);
	float alt;
	atmos_1976_altitude(pa, &alt);
	union mavlink_msg m = { .hil = {
		.time_usec = l->sim_us,
		.zacc = -9.80665f,
		.abs_pressure = pa * 0.01f,
		.pressure_alt = alt,
		.temperature = t,
		.fields_updated = HIL_SENSOR_BARO,
		.id = 0,
	} };
	l->awaiting = true;
	sim_send(l->sim_fd, &l->sim_seq, MAVLINK_MSG_HIL_SENSOR, &m);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kind", required_argument, NULL, 'k' },
		{ "instance", required_argument, NULL, 'I' },
		{ "out", required_argument, NULL, 'o' },
		{ "log", required_argument, NULL, 'l' },
		{ "speed", required_argument, NULL, 's' },
		{ "home-m", required_argument, NULL, 'H' },
		{ "crash-at", required_argument, NULL, 'c' },
		{ "hang-at", required_argument, NULL, 'h' },
		{ "never-arm", no_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "sim-tcp", required_argument, NULL, 'T' },
		{ "sim-serve", required_argument, NULL, 'V' },
		{ "port", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	const char *kind = NULL, *log_path = NULL;
	long instance = -1;
	double speed = 1.0, home = 584.0, crash_at = -1, hang_at = -1;
	bool never_arm = false, have_seed = false;
	unsigned long long seed = 0;
	struct dests d = { 0 };
	size_t nout = 0;
	static struct sim_link sim;
	unsigned bind_port = 0;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			kind = optarg;
			break;
		case 'I':
			instance = (long)parse_num("--instance", optarg, 0);
			break;
		case 'o':
			if (parse_addr(optarg, &d.a[d.n]) < 0 ||
			    d.n == MAX_DEST) {
				fprintf(stderr, "fake-autopilot: --out '%s': "
						"expected HOST:PORT\n", optarg);
				return 2;
			}
			d.n++;
			nout++;
			break;
		case 'l':
			log_path = optarg;
			break;
		case 's':
			speed = parse_num("--speed", optarg, 1e-3);
			break;
		case 'H':
			home = parse_num("--home-m", optarg, -500);
			break;
		case 'c':
			crash_at = parse_num("--crash-at", optarg, 0);
			break;
		case 'h':
			hang_at = parse_num("--hang-at", optarg, 0);
			break;
		case 'n':
			never_arm = true;
			break;
		case 'S':
			seed = (unsigned long long)parse_num("--seed", optarg,
							     0);
			have_seed = true;
			break;
		case 'T':
			sim.px4_port = (unsigned)parse_num("--sim-tcp", optarg, 1);
			break;
		case 'V':
			sim.serve_port = (unsigned)parse_num("--sim-serve",
							     optarg, 1);
			break;
		case 'P':
			bind_port = (unsigned)parse_num("--port", optarg, 1);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !kind || instance < 0 ||
	    (!nout && !bind_port) || !log_path || bind_port > 65535)
		usage();
	enum ap_peer_kind k;
	if (strcmp(kind, "ardupilot") == 0)
		k = AP_PEER_ARDUPILOT;
	else if (strcmp(kind, "px4") == 0)
		k = AP_PEER_PX4;
	else {
		fprintf(stderr, "fake-autopilot: --kind '%s': use ardupilot "
				"or px4\n", kind);
		return 2;
	}
	if ((sim.px4_port && k != AP_PEER_PX4) || sim.px4_port > 65535 ||
	    sim.serve_port > 65535) {
		fprintf(stderr, "fake-autopilot: --sim-tcp is PX4's simulator "
				"link (--kind px4), and ports go to 65535\n");
		return 2;
	}

	FILE *log = fopen(log_path, "w");
	if (!log) {
		fprintf(stderr, "fake-autopilot: %s: %s\n", log_path,
			strerror(errno));
		return 1;
	}
	fprintf(log, "time_us,pressure_pa,truth_alt_m,ekf_alt_m\n");
	fflush(log);

	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_in me = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)bind_port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t melen = sizeof(me);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&me, &melen) < 0) {
		fprintf(stderr, "fake-autopilot: socket: %s\n",
			strerror(errno));
		return 1;
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	static struct ap_peer ap;
	ap_peer_init(&ap, k);
	ap.speed = speed;
	/* Its loop runs every few ms: a longer stall is the host's. */
	ap.max_step_us = 50000;
	ap_peer_fly(&ap, home, have_seed ? seed : (uint64_t)instance,
		    never_arm);
	ap.fly.on_sample = log_sample;
	ap.fly.user = log;
	sim.ap = &ap;
	sim.speed = speed;
	sim.start_us = mono_us();
	if (sim_link_open(&sim) < 0)
		return 1;
	if (sim.px4_port) {
		/* Lockstep: the clock is the simulator's alone. */
		ap.speed = 0.0;
		float t;
		atmos_1976_pressure_temperature((float)home, &ap.fly.ext_pa, &t);
	}

	fprintf(stderr, "fake-autopilot: %s instance %ld on 127.0.0.1:%u\n",
		kind, instance, ntohs(me.sin_port));

	static uint8_t buf[AP_PEER_QUEUE * MAVLINK_MAX_FRAME];
	bool hung = false;
	while (!stop) {
		uint64_t now = mono_us();
		double t_s = (double)ap_peer_ms(&ap) / 1000.0;
		if (crash_at >= 0 && t_s >= crash_at) {
			fprintf(stderr, "fake-autopilot: crashing at %.3f s as "
					"told (--crash-at)\n", t_s);
			struct rlimit none = { 0, 0 };
			setrlimit(RLIMIT_CORE, &none);
			abort();
		}
		if (hang_at >= 0 && t_s >= hang_at) {
			if (!hung)
				fprintf(stderr, "fake-autopilot: hanging at "
						"%.3f s as told (--hang-at)\n",
					t_s);
			hung = true;
			usleep(20000);
			continue;
		}
		sim_link_run(&sim, now);
		size_t n = ap_peer_step(&ap, now, buf, sizeof(buf));
		/* One frame per datagram, as SITL and MAVProxy send. */
		for (size_t off = 0; off + 2 <= n;) {
			size_t len = buf[off] == MAVLINK_STX_V2
					     ? 12u + buf[off + 1]
					     : 8u + buf[off + 1];
			for (size_t i = 0; i < d.n; i++)
				(void)!sendto(fd, buf + off, len, 0,
					      (struct sockaddr *)&d.a[i],
					      sizeof(d.a[i]));
			off += len;
		}
		struct pollfd pfd[4] = { { .fd = fd, .events = POLLIN },
					 { .fd = sim.px4_fd, .events = POLLIN },
					 { .fd = sim.sim_fd, .events = POLLIN },
					 { .fd = sim.listen_fd,
					   .events = POLLIN } };
		/* A step's answer wakes it at once: lockstep's pace is the
		 * round trip, not the 5 ms timeout. */
		(void)poll(pfd, 4, sim.awaiting || !sim.serve_port ? 5 : 1);
		uint8_t in[4096];
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t r;
		while ((r = recvfrom(fd, in, sizeof(in), 0,
				     (struct sockaddr *)&from, &fl)) > 0) {
			dest_add(&d, &from);
			ap_peer_rx(&ap, in, (size_t)r, mono_us());
			fl = sizeof(from);
		}
	}
	fclose(log);
	close(fd);
	if (sim.px4_fd >= 0)
		close(sim.px4_fd);
	if (sim.sim_fd >= 0)
		close(sim.sim_fd);
	if (sim.listen_fd >= 0)
		close(sim.listen_fd);
	return 0;
}
