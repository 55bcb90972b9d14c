/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * barod --probe [BUS]: every registered driver at each of its addresses
 * on every i2c-dev bus (or one), then the kernel's IIO pressure devices.
 * The output is a whole barod.conf that runs as it is: a [barod] section
 * with source = hardware and the defaults a user would otherwise look up
 * (commented), then one [sensor NAME] section per chip found.  It goes
 * to stdout, for reading, or with --write FILE to FILE, so
 * `barod --probe --write /etc/barod/barod.conf && systemctl restart barod`
 * works: FILE is replaced only when something was found (the shell's
 * `> FILE` would empty it before barod runs), whole, and the previous
 * one kept as FILE.bak.  Nothing found is exit status 1 with no [barod]
 * section and FILE untouched, so that command line stops before
 * restarting a daemon with nothing to read.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-values.h"
#include "driver.h"
#include "hardware-probe.h"
#include "iio.h"
#include "util-atomic-file.h"
#include "util-strings.h"

#define MAX_BUSES 64
#define IIO_DEVICES "/sys/bus/iio/devices"
/* A barod.conf is a few kilobytes; anything this large is not one. */
#define PROBE_PREVIOUS_MAX (1 << 20)

struct probe {
	FILE *out;
	unsigned found;
};

/* The bus as the configuration writes it: N for /dev/i2c-N. */
static void
bus_value(const char *path, char *buf, size_t len)
{
	uint64_t n;

	if (strncmp(path, "/dev/i2c-", 9) == 0 && str_to_u64(path + 9, &n) == 0)
		snprintf(buf, len, "%" PRIu64, n);
	else
		snprintf(buf, len, "%s", path);
}

/* One section; beyond the three instances MAVLink carries, commented
 * out so the paste stays valid. */
static void
print_section(struct probe *p, const char *comment, const char *body)
{
	const char *mark = p->found < BARO_MAX_INSTANCES ? "" : "#";
	const char *line = body;

	fprintf(p->out, "\n# %s\n%s[sensor baro%u]\n", comment, mark, p->found);
	while (*line) {
		size_t n = strcspn(line, "\n");
		fprintf(p->out, "%s%.*s\n", mark, (int)n, line);
		line += n + (line[n] == '\n');
	}
	if (p->found < BARO_MAX_INSTANCES)
		fprintf(p->out, "instance = %u\n", p->found);
	else
		fprintf(p->out, "# (barod publishes %d instances)\n",
			BARO_MAX_INSTANCES);
	p->found++;
}

static void
scan_bus(struct probe *p, const char *path, FILE *errs)
{
	struct baro_bus bus;
	char err[256], bus_text[BARO_BUS_PATH_MAX];
	bool taken[128] = { false };

	if (baro_bus_open(&bus, path, err, sizeof(err)) < 0) {
		fprintf(errs, "barod: %s\n", err);
		return;
	}
	bus_value(path, bus_text, sizeof(bus_text));
	for (size_t d = 0; baro_drivers[d] != NULL; d++) {
		const struct baro_driver *drv = baro_drivers[d];

		for (size_t a = 0; a < drv->n_addrs; a++) {
			const uint8_t addr = drv->addrs[a];
			char comment[160], body[160];

			/* One chip per address: the first family that
			 * recognises it. */
			if (addr >= 128 || taken[addr])
				continue;
			int v = drv->probe(&bus, addr, err, sizeof(err));
			if (v == -ENODEV)
				continue;
			if (v < 0) {
				taken[addr] = true;
				fprintf(p->out, "\n# %s\n", err);
				continue;
			}
			taken[addr] = true;
			snprintf(comment, sizeof(comment),
				 "%s on %s at 0x%02x (driver %s)",
				 baro_variant_name(drv, v), path, addr, drv->name);
			snprintf(body, sizeof(body),
				 "bus = %s\naddress = 0x%02x\ndriver = %s",
				 bus_text, addr, drv->name);
			print_section(p, comment, body);
		}
	}
	baro_bus_close(&bus);
}

/* [barod], [mavlink] and the default output with the built-in values
 * commented: what barod does unless told otherwise, in one place. */
static void
print_header(FILE *out)
{
	fputs("# barod.conf written by barod --probe; it runs as it is:\n"
	      "#   barod --probe --write /etc/barod/barod.conf && "
	      "systemctl restart barod\n"
	      "# Check an edited copy with: barod --check-config -c FILE\n"
	      "# Every key is in barod.conf(5); commented values are the "
	      "defaults.\n"
	      "\n"
	      "[barod]\n"
	      "source = hardware\n"
	      "# MAVLink identity: the vehicle's system id, 191 = onboard "
	      "computer.\n"
	      "#sysid = 1\n"
	      "#compid = 191\n"
	      "# Control socket for baroctl (default: $RUNTIME_DIRECTORY/"
	      "control under\n"
	      "# systemd, else $XDG_RUNTIME_DIR/barod.control, else "
	      "/run/barod/control).\n"
	      "#control = /run/barod/control\n"
	      "#control_mode = 0600\n"
	      "# Every published sample as CSV.\n"
	      "#record = /var/lib/barod/record.csv\n"
	      "\n"
	      "[mavlink]\n"
	      "#protocol = 2\n"
	      "#heartbeat_hz = 1\n"
	      "# all: every sample as SCALED_PRESSURE (instance 0), "
	      "SCALED_PRESSURE2 (1),\n"
	      "# SCALED_PRESSURE3 (2).\n"
	      "#scaled_pressure_hz = all\n"
	      "#hil_sensor_hz = 0\n"
	      "\n"
	      "# Without an [output NAME] section barod sends to "
	      "127.0.0.1:14550, where\n"
	      "# QGroundControl, MAVProxy and mavlink-router listen.  A "
	      "flight controller:\n"
	      "#[output fc]\n"
	      "#type = serial\n"
	      "#device = /dev/serial0\n"
	      "#baud = 921600\n"
	      "\n"
	      "# The chips found.  Each takes osr_p, osr_t, iir, rate_hz, "
	      "mode, drdy and\n"
	      "# power too (barod.conf(5)); left out, the driver's "
	      "defaults.\n",
	      out);
}

static void
print_whole(FILE *out, const char *sections, unsigned found)
{
	print_header(out);
	fputs(sections, out);
	fprintf(out, "\n# %u barometer%s found\n", found, found == 1 ? "" : "s");
}

/* The file as it is, for PATH.bak.  0 and *text NULL when there is no
 * regular file to keep; the mode is kept too, as the file may hold what
 * only root should read. */
static int
read_previous(const char *path, char **text, size_t *len, mode_t *mode,
	      char *err, size_t errlen)
{
	struct stat st;
	FILE *f;

	*text = NULL;
	*len = 0;
	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return str_errorf(err, errlen, -errno, "%s: %s", path,
				  strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return 0;
	if (st.st_size > PROBE_PREVIOUS_MAX)
		return str_errorf(err, errlen, -EFBIG, "%s: larger than %d "
				  "bytes: not a barod.conf to keep as %s.bak",
				  path, PROBE_PREVIOUS_MAX, path);
	*mode = st.st_mode & 07777;
	f = fopen(path, "rb");
	if (f == NULL)
		return str_errorf(err, errlen, -errno, "%s: %s", path,
				  strerror(errno));
	*text = malloc((size_t)st.st_size + 1);
	if (*text == NULL) {
		fclose(f);
		return str_errorf(err, errlen, -ENOMEM, "out of memory");
	}
	*len = fread(*text, 1, (size_t)st.st_size, f);
	const bool bad = ferror(f) || *len != (size_t)st.st_size;
	fclose(f);
	if (bad) {
		free(*text);
		*text = NULL;
		return str_errorf(err, errlen, -EIO, "%s: read error", path);
	}
	return 0;
}

/* One file written through util-atomic-file: whole or not at all. */
static int
write_atomic(const char *path, const char *text, size_t len, const mode_t *mode,
	     char *err, size_t errlen)
{
	struct atomic_file af;
	FILE *f = atomic_file_open(&af, path, err, errlen);

	if (f == NULL)
		return -errno;
	if ((mode && !af.direct && fchmod(fileno(f), *mode) < 0) ||
	    fwrite(text, 1, len, f) != len) {
		int e = errno ? errno : EIO;
		atomic_file_abort(&af);
		return str_errorf(err, errlen, -e, "%s: %s", path, strerror(e));
	}
	return atomic_file_commit(&af, err, errlen);
}

/*
 * --probe --write PATH: the previous file to PATH.bak, then the new one
 * over PATH, each renamed into place whole, so an interrupted run leaves
 * either the old file or the new one and the old one is never lost.
 */
static int
write_config(const char *path, const char *sections, unsigned found,
	     FILE *errs)
{
	char err[PATH_MAX + 128], bak[PATH_MAX];
	char *whole = NULL, *previous = NULL;
	size_t len = 0, plen = 0;
	mode_t mode = 0;
	int rc;

	if (snprintf(bak, sizeof(bak), "%s.bak", path) >= (int)sizeof(bak)) {
		fprintf(errs, "barod: --write: '%s': path too long\n", path);
		return 1;
	}
	FILE *m = open_memstream(&whole, &len);
	if (m == NULL) {
		fprintf(errs, "barod: --write: %s\n", strerror(errno));
		return 1;
	}
	print_whole(m, sections, found);
	if (fclose(m) != 0) {
		free(whole);
		fprintf(errs, "barod: --write: out of memory\n");
		return 1;
	}
	rc = read_previous(path, &previous, &plen, &mode, err, sizeof(err));
	if (rc == 0 && previous != NULL)
		rc = write_atomic(bak, previous, plen, &mode, err, sizeof(err));
	if (rc == 0)
		rc = write_atomic(path, whole, len, NULL, err, sizeof(err));
	if (rc < 0)
		fprintf(errs, "barod: --write: %s; %s left as it was\n", err,
			path);
	else if (previous)
		fprintf(errs, "barod: --probe: %u barometer%s found; wrote %s "
			      "(the previous one is %s)\n", found,
			found == 1 ? "" : "s", path, bak);
	else
		fprintf(errs, "barod: --probe: %u barometer%s found; wrote %s\n",
			found, found == 1 ? "" : "s", path);
	free(whole);
	free(previous);
	return rc < 0 ? 1 : 0;
}

static int
bus_number(const char *name)
{
	return atoi(name + 4);
}

static int
by_number(const void *a, const void *b)
{
	return bus_number(a) - bus_number(b);
}

/* /dev/i2c-N in numeric order. */
static size_t
list_buses(char names[][16])
{
	size_t n = 0;
	struct dirent *e;
	DIR *dir = opendir("/dev");
	uint64_t num;

	if (dir == NULL)
		return 0;
	while ((e = readdir(dir)) != NULL && n < MAX_BUSES) {
		if (strncmp(e->d_name, "i2c-", 4) == 0 &&
		    str_to_u64(e->d_name + 4, &num) == 0 && num < 100000)
			snprintf(names[n++], 16, "i2c-%u", (unsigned)num);
	}
	closedir(dir);
	qsort(names, n, sizeof(names[0]), by_number);
	return n;
}

/* Pressure sensors the kernel drives. */
static void
scan_iio(struct probe *p)
{
	struct dirent *e;
	DIR *dir = opendir(IIO_DEVICES);

	if (dir == NULL)
		return;
	while ((e = readdir(dir)) != NULL) {
		char path[300], attr[340], name[32] = "?", comment[400];
		char body[320];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), IIO_DEVICES "/%s", e->d_name);
		snprintf(attr, sizeof(attr), "%s/in_pressure_input", path);
		if (access(attr, R_OK) != 0) {
			snprintf(attr, sizeof(attr), "%s/in_pressure_raw", path);
			if (access(attr, R_OK) != 0)
				continue;
		}
		snprintf(attr, sizeof(attr), "%s/name", path);
		FILE *f = fopen(attr, "r");
		if (f != NULL) {
			if (fgets(name, sizeof(name), f) != NULL)
				name[strcspn(name, "\n")] = '\0';
			fclose(f);
		}
		snprintf(comment, sizeof(comment),
			 "%s driven by the kernel (IIO %s)", name, e->d_name);
		snprintf(body, sizeof(body), "iio = %s", path);
		print_section(p, comment, body);
	}
	closedir(dir);
}

int
daemon_probe(const char *bus, const char *write_path, FILE *out, FILE *errs)
{
	struct probe p = { .out = out };
	char names[MAX_BUSES][16];
	char path[BARO_BUS_PATH_MAX];
	size_t n = 0;

	if (bus != NULL) {
		if (config_parse_bus(bus, path, sizeof(path)) < 0) {
			fprintf(errs, "barod: --probe: '%s' is not a bus number "
				      "or a /dev path\n", bus);
			return 2;
		}
		if (access(path, F_OK) != 0) {
			fprintf(errs, "barod: --probe: %s: %s\n", path,
				strerror(errno));
			return 1;
		}
	} else {
		n = list_buses(names);
	}

	/* The sections go to memory first: the [barod] section only
	 * belongs in front of them when something was found. */
	char *sections = NULL;
	size_t len = 0;
	p.out = open_memstream(&sections, &len);
	if (p.out == NULL) {
		fprintf(errs, "barod: --probe: %s\n", strerror(errno));
		return 1;
	}
	if (bus != NULL) {
		scan_bus(&p, path, errs);
	} else {
		for (size_t i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "/dev/%.15s", names[i]);
			scan_bus(&p, path, errs);
		}
		scan_iio(&p);
	}
	fclose(p.out);
	if (p.found == 0) {
		const char *where = bus != NULL ? path
				    : n ? "every /dev/i2c-* bus and IIO device"
					: "no /dev/i2c-* bus: is i2c-dev loaded?";

		/* With --write the file is left as it was: what was not
		 * found is no configuration. */
		if (write_path == NULL)
			fprintf(out, "# barod --probe: no supported barometer "
				     "found (%s)\n%s", where, sections);
		else
			fputs(sections, errs);
		fprintf(errs, "barod: --probe: no supported barometer found "
			      "(%s)%s%s%s\n", where,
			write_path ? "; " : "", write_path ? write_path : "",
			write_path ? " left as it was" : "");
		free(sections);
		return 1;
	}
	int rc = 0;
	if (write_path == NULL) {
		print_whole(out, sections, p.found);
	} else {
		rc = write_config(write_path, sections, p.found, errs);
	}
	free(sections);
	return rc;
}
