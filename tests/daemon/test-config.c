/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "options.h"
#include "gpio.h"
#include "test-util.h"

static int
load(struct config *c, const char *text, char *err, size_t errlen)
{
	config_defaults(c);
	err[0] = '\0';
	return config_load_string(c, text, "test.conf", err, errlen);
}

static void
test_defaults(void **state)
{
	struct config c;
	char err[256];
	(void)state;

	config_defaults(&c);
	assert_int_equal(c.source, CONFIG_SOURCE_NONE);
	assert_int_equal(c.sysid, 1);
	assert_int_equal(c.compid, 191);
	assert_int_equal(c.mavlink_version, 2);
	assert_true(c.rates.heartbeat_hz == 1.0);
	assert_true(c.rates.scaled_pressure_hz == RATE_EVERY_SAMPLE);
	assert_int_equal(c.params.baro_count, 2);
	assert_int_equal(c.control_mode, 0600);
	assert_int_equal(c.atmosphere, BARO_SITL_ATMOS_1976);
	/* The home depends on the source, resolved once both are known. */
	assert_true(isnan(c.home_alt_m));
	c.source = CONFIG_SOURCE_SITL_PROXY;
	config_resolve(&c);
	assert_true(c.home_alt_m == 584.0);
	c.source = CONFIG_SOURCE_SIM;
	c.home_alt_m = NAN;
	config_resolve(&c);
	assert_true(c.home_alt_m == 0.0);
	c.home_alt_m = 12.5;
	c.source = CONFIG_SOURCE_SITL_JSON;
	config_resolve(&c);
	assert_true(c.home_alt_m == 12.5);
	c.source = CONFIG_SOURCE_NONE;
	/* No source is an error only at validation. */
	assert_int_equal(config_validate(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no source"));
}

static void
test_full_file(void **state)
{
	struct config c;
	char err[256];
	(void)state;

	int rc = load(&c,
		      "# comment\n"
		      "; another\n"
		      "[barod]\n"
		      "source = sim\n"
		      "sysid = 42\n"
		      "compid = 192\n"
		      "control = /tmp/x.sock\n"
		      "control_mode = 0660\n"
		      "record = /tmp/r.csv\n"
		      "[sim]\n"
		      "profile = climb:2:5\n"
		      "home_alt = 584\n"
		      "atmosphere = 1976\n"
		      "seed = 7\n"
		      "SIM_BARO_COUNT = 3\n"
		      "SIM_BAR3_GLITCH = -4.5\n"
		      "SIM_TEMP_BFACTOR = 1.2\n"
		      "[mavlink]\n"
		      "protocol = 1\n"
		      "heartbeat_hz = 2\n"
		      "scaled_pressure_hz = 10\n"
		      "hil_sensor_hz = all\n"
		      "[output gcs]\n"
		      "type = udp-client\n"
		      "address = 127.0.0.1:14550\n"
		      "scaled_pressure_hz = 5\n"
		      "[output fc]\n"
		      "type = serial\n"
		      "device = /dev/ttyAMA0\n"
		      "baud = 921600\n"
		      "[output:srv]\n"
		      "type = udp-server\n"
		      "address = [::1]:14560\n",
		      err, sizeof(err));
	if (rc != 0)
		fail_msg("%s", err);
	assert_int_equal(c.source, CONFIG_SOURCE_SIM);
	assert_int_equal(c.sysid, 42);
	assert_int_equal(c.compid, 192);
	assert_string_equal(c.control_path, "/tmp/x.sock");
	assert_int_equal(c.control_mode, 0660);
	assert_string_equal(c.record_path, "/tmp/r.csv");
	assert_int_equal(c.profile.kind, TRUTH_CLIMB);
	assert_true(c.profile.a == 2.0 && c.profile.b == 5.0);
	assert_true(c.home_alt_m == 584.0);
	assert_int_equal(c.atmosphere, BARO_SITL_ATMOS_1976);
	assert_int_equal(c.seed, 7);
	assert_int_equal(c.params.baro_count, 3);
	assert_float_exact(c.params.baro[2].glitch, -4.5f);
	assert_float_exact(c.params.temp_bfactor, 1.2f);
	assert_int_equal(c.mavlink_version, 1);
	assert_true(c.rates.heartbeat_hz == 2.0);
	assert_true(c.rates.scaled_pressure_hz == 10.0);
	assert_true(c.rates.hil_sensor_hz == RATE_EVERY_SAMPLE);
	assert_int_equal(c.n_outputs, 3);
	assert_string_equal(c.outputs[0].name, "gcs");
	assert_int_equal(c.outputs[0].type, OUTPUT_UDP_CLIENT);
	assert_true(c.outputs[0].rates.scaled_pressure_hz == 5.0);
	assert_true(c.outputs[0].rates.heartbeat_hz == RATE_UNSET);
	assert_int_equal(c.outputs[1].type, OUTPUT_SERIAL);
	assert_string_equal(c.outputs[1].device, "/dev/ttyAMA0");
	assert_int_equal(c.outputs[1].baud, 921600);
	assert_string_equal(c.outputs[2].name, "srv");
	assert_string_equal(c.outputs[2].address, "[::1]:14560");
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);
}

/* The sample file installed with the project must itself be valid. */
static void
test_sample_file(void **state)
{
	struct config c;
	char err[256];
	const char *path = getenv("BAROD_SAMPLE_CONF");
	(void)state;

	assert_non_null(path);
	config_defaults(&c);
	if (config_load_file(&c, path, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);
	assert_int_equal(c.n_outputs, 1);
	assert_string_equal(c.outputs[0].address, "127.0.0.1:14550");
}

struct bad {
	const char *text;
	const char *msg;	/* expected in the error, after test.conf:LINE: */
};

static void
test_errors(void **state)
{
	static const struct bad cases[] = {
		{ "[barod]\nsource = gps\n", "test.conf:2: source = 'gps'" },
		{ "[barod]\nsysid = 0\n", "test.conf:2: sysid = '0'" },
		{ "[barod]\nsysid = 256\n", "test.conf:2: sysid" },
		{ "[barod]\ncompid = x\n", "test.conf:2: compid" },
		{ "[barod]\ncontrol_mode = 999\n", "test.conf:2: control_mode" },
		{ "[barod]\nfoo = 1\n", "test.conf:2: unknown key 'foo' in [barod]" },
		{ "\n\n[sim]\nSIM_BARO_GLICH = 3\n",
		  "test.conf:4: unknown parameter 'SIM_BARO_GLICH' (did you mean "
		  "SIM_BARO_GLITCH?)" },
		{ "[sim]\nSIM_BARO_DELAY = 1e6\n", "test.conf:2: SIM_BARO_DELAY" },
		{ "[sim]\nprofile = hover\n", "test.conf:2: unknown profile" },
		{ "[sim]\natmosphere = mars\n", "test.conf:2: atmosphere = 'mars'" },
		{ "[sim]\nhome_alt = high\n", "test.conf:2: home_alt" },
		{ "[sim]\nseed = -1\n", "test.conf:2: seed" },
		{ "[sim]\nrnd = 1\n", "test.conf:2: unknown key 'rnd' in [sim]" },
		{ "[mavlink]\nprotocol = 3\n", "test.conf:2: protocol = '3'" },
		{ "[mavlink]\nscaled_pressure_hz = fast\n",
		  "test.conf:2: scaled_pressure_hz = 'fast'" },
		{ "[mavlink]\nheartbeat_hz = 5000\n", "test.conf:2: heartbeat_hz" },
		{ "[mavlink]\nfoo_hz = 1\n", "test.conf:2: unknown key 'foo_hz'" },
		{ "[output x]\ntype = tcpout\n", "test.conf:2: type = 'tcpout'" },
		{ "[output x]\ntype = tcp\naddress = [::]:5760\n",
		  "test.conf:2: [output x]: type = tcp-client connects to its "
		  "address, and [::]:5760 is nowhere to connect to; to listen "
		  "there for a GCS (MAVProxy's tcpin:), use type = tcp-server" },
		{ "[output x]\ntype = udp-client\naddress = nowhere\n",
		  "test.conf:3: address = 'nowhere'" },
		{ "[output x]\ntype = udp-client\naddress = h:99999\n",
		  "test.conf:3: address" },
		{ "[output x]\ntype = serial\nbaud = 12345\n",
		  "test.conf:3: baud = '12345'" },
		{ "[output x]\naddress = 1.2.3.4:5\n",
		  "test.conf:2: [output x] has no type" },
		{ "[barod]\n[output x]\ntype = udp-client\n",
		  "test.conf:3: [output x] needs an address" },
		{ "[output x]\ntype = serial\n", "needs a device" },
		{ "[output x]\nbogus = 1\n", "unknown key 'bogus' in [output x]" },
		{ "[radio]\nx = 1\n", "test.conf:2: unknown section [radio]" },
		{ "x = 1\n", "test.conf:1: 'x' outside any [section]" },
		{ "[barod]\nsource = sim\nthis is not ini\n",
		  "test.conf:3: syntax error" },
		{ "[barod\n", "test.conf:1: syntax error" },
		/* The first error is the one reported, whichever kind. */
		{ "[barod]\nsource = sim\nthis is not ini\n\nfoo = 1\n",
		  "test.conf:3: syntax error" },
		{ "[barod]\nsource = sim\n[sim\n[sim]\nrnd = 1\nnot ini\n",
		  "test.conf:3: syntax error" },
		{ "[barod]\nfoo = 1\nthis is not ini\n",
		  "test.conf:2: unknown key 'foo'" },
		{ "[sitl]\ninstances = 9\n", "test.conf:2: instances = '9'" },
		{ "[sitl]\ninstances = 0\n", "test.conf:2: instances" },
		{ "[sitl]\nport = 70000\n", "test.conf:2: port = '70000'" },
		{ "[sitl]\nupstream = nowhere\n", "test.conf:2: upstream" },
		{ "[sitl]\nrng_1 = 3\n", "test.conf:2: rng_1 = '3'" },
		{ "[sitl]\nrng_7 = 0\n", "test.conf:2: unknown key 'rng_7'" },
		{ "[sitl]\nbind =\n", "test.conf:2: bind" },
		{ "[barod]\nsource = gpsd\n",
		  "sitl-json-proxy, px4-sim, px4-sim-proxy, hardware" },
		{ "[px4]\nport = 0\n", "test.conf:2: port = '0'" },
		{ "[px4]\nhome_lat = 91\n", "test.conf:2: home_lat = '91'" },
		{ "[px4]\nhome_lon = east\n", "test.conf:2: home_lon = 'east'" },
		{ "[px4]\nhil_baros = 3\n", "test.conf:2: hil_baros = '3'" },
		{ "[px4]\ninstances = 9\n", "test.conf:2: instances = '9'" },
		{ "[px4]\nlat = 1\n", "test.conf:2: unknown key 'lat' in [px4]" },
		{ "[px4]\nlockstep_timeout_ms = 5\n",
		  "test.conf:2: lockstep_timeout_ms = '5'" },
		{ "[px4]\ninstances = 0\n", "instances = '0'" },
		{ "[px4]\nport = 65535\n", "bad port" },
		{ "[px4]\nupstream = nowhere\n", "expected HOST:PORT" },
		{ "[px4]\nrng_1 = 0\n", "unknown key 'rng_1' in [px4]" },
		{ "[sensor a]\nbus = one\n", "test.conf:2: bus = 'one'" },
		{ "[sensor a]\nbus = 10000\n", "test.conf:2: bus = '10000'" },
		{ "[sensor a]\nbus = dev/i2c-1\n", "test.conf:2: bus" },
		{ "[sensor a]\naddress = 0x78\n", "test.conf:2: address = '0x78'" },
		{ "[sensor a]\naddress = 0x02\n", "test.conf:2: address" },
		{ "[sensor a]\naddress = 0x\n", "test.conf:2: address" },
		{ "[sensor a]\naddress = 0x7g\n", "test.conf:2: address" },
		{ "[sensor a]\naddress = 300\n", "test.conf:2: address" },
		{ "[sensor a]\ndriver = bmp999\n",
		  "test.conf:2: driver = 'bmp999': known drivers: bmp280" },
		{ "[sensor a]\nosr_p = 3\n", "test.conf:2: osr_p = '3'" },
		{ "[sensor a]\nosr_t = 0\n", "test.conf:2: osr_t = '0'" },
		{ "[sensor a]\nosr_t = 256\n", "test.conf:2: osr_t" },
		{ "[sensor a]\niir = 5\n", "test.conf:2: iir = '5'" },
		{ "[sensor a]\nrate_hz = 1001\n", "test.conf:2: rate_hz" },
		{ "[sensor a]\nmode = sleep\n", "test.conf:2: mode = 'sleep'" },
		{ "[sensor a]\ninstance = 3\n", "test.conf:2: instance = '3'" },
		{ "[sensor a]\niio = iio:device0\n", "test.conf:2: iio" },
		{ "[sensor a]\ndrdy = GPIO17\n", "test.conf:2: drdy = 'GPIO17'" },
		{ "[sensor a]\ndrdy = :GPIO17\n", "test.conf:2: drdy" },
		{ "[sensor a]\npower = chip:\n", "test.conf:2: power = 'chip:'" },
		{ "[sensor a]\ncolour = red\n",
		  "test.conf:2: unknown key 'colour' in [sensor a]" },
		{ "\n[sensor a]\nbus = 1\n",
		  "test.conf:3: [sensor a] needs bus and address" },
		{ "[sensor a]\naddress = 0x76\n", "needs bus and address (or iio)" },
		{ "[sensor a]\niio = /sys/x\nbus = 1\n",
		  "test.conf:2: [sensor a]: iio reads a chip the kernel drives" },
		{ "[sensor a]\niio = /sys/x\ndrdy = c:l\n", "iio reads a chip" },
		{ "[sensor a]\niio = /x\ninstance = 1\n"
		  "[sensor b]\niio = /y\ninstance = 1\n",
		  "test.conf:5: [sensor b]: instance 1 is taken" },
		{ "[sensor a]\niio = /a\n[sensor b]\niio = /b\n"
		  "[sensor c]\niio = /c\n[sensor d]\niio = /d\n",
		  "test.conf:8: more than 3 sensors" },
		{ "[sensor ]\nbus = 1\n", "sensor name '' is empty" },
		{ "[sensor a]\ndrdy_active = rising\n",
		  "test.conf:2: drdy_active = 'rising': expected high or low" },
		{ "[sensor a]\ndrdy_drive = od\n", "test.conf:2: drdy_drive = 'od'" },
		{ "[sensor a]\npower_off_ms = 0\n", "test.conf:2: power_off_ms" },
		{ "[sensor a]\nbus = 1\naddress = 0x76\ndrdy_active = low\n",
		  "test.conf:2: [sensor a]: drdy_active and drdy_drive set up a "
		  "drdy line, and there is none" },
		{ "[sensor a]\nbus = 1\naddress = 0x76\npower_off_ms = 50\n",
		  "power_off_ms needs a power line" },
		/* Chips without a data-ready pin, when the driver is named. */
		{ "[sensor a]\nbus = 1\naddress = 0x76\ndriver = bmp280\n"
		  "drdy = c:l\n",
		  "test.conf:2: [sensor a]: drdy: the bmp280 driver's chips: no "
		  "data-ready pin" },
		{ "[sensor a]\nbus = 1\naddress = 0x77\ndriver = ms5611\n"
		  "drdy = c:l\n", "the ms5611 driver's chips: no data-ready pin" },
		{ "[sensor a]\nbus = 1\naddress = 0x77\ndriver = dps310\n"
		  "drdy = c:l\ndrdy_drive = open-drain\n",
		  "the dps310 driver's chips: the interrupt pin is push-pull only" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		char err[256];
		int rc = load(&c, cases[i].text, err, sizeof(err));
		if (rc == 0 || !strstr(err, cases[i].msg))
			fail_msg("case %zu: rc %d, error '%s', expected '%s'", i,
				 rc, err, cases[i].msg);
	}
}

static void
test_sensor_sections(void **state)
{
	struct config c;
	char err[256];
	(void)state;

	int rc = load(&c, "[barod]\nsource = hardware\n"
			  "[sensor baro0]\nbus = 1\naddress = 0x76\n"
			  "driver = bmp388\nosr_p = 16\nosr_t = 2\niir = 4\n"
			  "rate_hz = 25\nmode = forced\ninstance = 2\n"
			  "drdy = pinctrl-rp1:GPIO17\n"
			  "power = pinctrl-rp1:GPIO27\npower_off_ms = 250\n"
			  "[sensor:ext]\nbus = /dev/i2c-baro\naddress = 119\n"
			  "mode = normal\n"
			  "[sensor kernel]\n"
			  "iio = /sys/bus/iio/devices/iio:device0\n",
		      err, sizeof(err));
	if (rc != 0)
		fail_msg("%s", err);
	assert_int_equal(c.source, CONFIG_SOURCE_HARDWARE);
	assert_string_equal(config_source_name(c.source), "hardware");
	assert_int_equal(c.n_sensors, 3);

	const struct config_sensor *s = &c.sensors[0];
	assert_string_equal(s->name, "baro0");
	assert_string_equal(s->bus, "/dev/i2c-1");
	assert_int_equal(s->address, 0x76);
	assert_string_equal(s->driver, "bmp388");
	assert_int_equal(s->settings.osr_p, 16);
	assert_int_equal(s->settings.osr_t, 2);
	assert_int_equal(s->settings.iir, 4);
	assert_int_equal(s->settings.rate_hz, 25);
	assert_int_equal(s->settings.mode, BARO_MODE_FORCED);
	assert_int_equal(s->instance, 2);
	assert_string_equal(s->drdy, "pinctrl-rp1:GPIO17");
	assert_string_equal(s->power, "pinctrl-rp1:GPIO27");
	assert_int_equal(s->power_off_ms, 250);
	/* A drdy line alone: the chip's pin active high, push-pull. */
	assert_int_equal(s->settings.drdy, BARO_DRDY_ACTIVE_HIGH);
	assert_false(s->settings.drdy_open_drain);

	/* Defaults: probe, the driver's settings, the lowest free
	 * instances in file order. */
	s = &c.sensors[1];
	assert_string_equal(s->name, "ext");
	assert_string_equal(s->bus, "/dev/i2c-baro");
	assert_int_equal(s->address, 0x77);
	assert_string_equal(s->driver, "");
	assert_int_equal(s->settings.osr_p, 0);
	assert_int_equal(s->settings.mode, BARO_MODE_NORMAL);
	assert_int_equal(s->instance, 0);
	assert_string_equal(s->drdy, "");
	assert_int_equal(s->settings.drdy, BARO_DRDY_OFF);
	assert_int_equal(s->power_off_ms, 0);
	s = &c.sensors[2];
	assert_string_equal(s->iio, "/sys/bus/iio/devices/iio:device0");
	assert_string_equal(s->bus, "");
	assert_int_equal(s->instance, 1);
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);

	/* The pin's level and drive, in any order around the line. */
	assert_int_equal(load(&c, "[sensor a]\nbus = 1\naddress = 0x5c\n"
				  "drdy_active = low\ndrdy = c:l\n"
				  "drdy_drive = open-drain\n", err, sizeof(err)),
			 0);
	assert_int_equal(c.sensors[0].settings.drdy, BARO_DRDY_ACTIVE_LOW);
	assert_true(c.sensors[0].settings.drdy_open_drain);

	/* iir 0 is "off"; the same section twice adds up. */
	assert_int_equal(load(&c, "[sensor a]\nbus = 0\naddress = 0x5c\n"
				  "iir = 0\n[sensor a]\nosr_p = 128\n",
			      err, sizeof(err)), 0);
	assert_int_equal(c.n_sensors, 1);
	assert_string_equal(c.sensors[0].bus, "/dev/i2c-0");
	assert_int_equal(c.sensors[0].settings.osr_p, 128);

	/* Hardware without a sensor is refused at validation. */
	assert_int_equal(load(&c, "[barod]\nsource = hardware\n", err,
			      sizeof(err)), 0);
	assert_int_equal(config_validate(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs a [sensor NAME] section"));
}

/* The GPIO line spec's parser, shared with sensors/gpio.c. */
static void
test_gpio_spec(void **state)
{
	char chip[16], line[16];
	(void)state;

	assert_int_equal(baro_gpio_parse_spec("pinctrl-bcm2711:GPIO17", chip,
					      sizeof(chip), line, sizeof(line)),
			 0);
	assert_string_equal(chip, "pinctrl-bcm2711");
	assert_string_equal(line, "GPIO17");
	/* The last colon splits: labels may hold one, line names not. */
	assert_int_equal(baro_gpio_parse_spec("a:b:GPIO4", chip, sizeof(chip),
					      line, sizeof(line)), 0);
	assert_string_equal(chip, "a:b");
	assert_string_equal(line, "GPIO4");
	assert_int_equal(baro_gpio_parse_spec("x:y", NULL, 0, NULL, 0), 0);
	assert_int_equal(baro_gpio_parse_spec("GPIO17", NULL, 0, NULL, 0),
			 -EINVAL);
	assert_int_equal(baro_gpio_parse_spec("", NULL, 0, NULL, 0), -EINVAL);
	assert_int_equal(baro_gpio_parse_spec("a-very-long-chip-label:L", chip,
					      sizeof(chip), NULL, 0), -EINVAL);
	assert_int_equal(baro_gpio_parse_spec("c:a-very-long-line-name", NULL,
					      0, line, sizeof(line)), -EINVAL);
}

/* No GPIO chip exists on CI machines (gpio-sim needs a kernel module):
 * what can be checked is that a missing one is a clear error. */
static void
test_gpio_no_chip(void **state)
{
	struct baro_gpio g;
	char err[256];
	(void)state;

	assert_int_equal(baro_gpio_open_drdy(&g, "no-such-chip-label:GPIO17",
					     "test", false, false, err,
					     sizeof(err)),
			 -ENODEV);
	assert_non_null(strstr(err, "no GPIO chip labelled or named "
				    "'no-such-chip-label'"));
	assert_int_equal(g.fd, -1);
	assert_int_equal(baro_gpio_open_output(&g, "nochip:GPIO27", "test", 1,
					       err, sizeof(err)), -ENODEV);
	assert_int_equal(baro_gpio_open_drdy(&g, "GPIO17", "test", false,
					     false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "CHIPLABEL:LINENAME"));
	baro_gpio_close(&g);
	assert_non_null(strstr(baro_gpio_backend(), "libgpiod "));
}

/* A line longer than libinih's buffer is an error, not two lines. */
static void
test_sitl_section(void **state)
{
	struct config c;
	char err[256];
	(void)state;

	assert_int_equal(load(&c, "[barod]\nsource = sitl-json-proxy\n"
				  "[sitl]\ninstances = 3\nbind = ::1\n"
				  "port = 9102\nupstream = 127.0.0.1:9202\n"
				  "rng_1 = none\nrng_3 = 2\n",
			      err, sizeof(err)), 0);
	assert_int_equal(c.source, CONFIG_SOURCE_SITL_PROXY);
	assert_int_equal(c.sitl.instances, 3);
	assert_string_equal(c.sitl.bind, "::1");
	assert_int_equal(c.sitl.port, 9102);
	assert_string_equal(c.sitl.upstream, "127.0.0.1:9202");
	assert_int_equal(c.sitl.rng[0], -1);
	assert_int_equal(c.sitl.rng[2], 2);
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);

	/* Defaults: one instance on 9002, rng_1 carries baro 0. */
	config_defaults(&c);
	assert_int_equal(c.sitl.instances, 1);
	assert_int_equal(c.sitl.port, 9002);
	assert_int_equal(c.sitl.rng[0], 0);
	assert_int_equal(c.sitl.rng[1], -1);
	/* A proxy without an upstream is refused at validation. */
	assert_int_equal(load(&c, "[barod]\nsource = sitl-json-proxy\n", err,
			      sizeof(err)), 0);
	assert_int_equal(config_validate(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "upstream"));
}

/* A fake environment for options_apply_env(). */
static const char *const *fake_env;

static const char *
fake_getenv(const char *name)
{
	for (const char *const *e = fake_env; e && *e; e += 2) {
		if (strcmp(e[0], name) == 0)
			return e[1];
	}
	return NULL;
}

/* [px4] speed_factor, and PX4_SIM_SPEED_FACTOR above it. */
static void
test_px4_speed_factor(void **state)
{
	struct config c;
	char err[256];
	(void)state;

	config_defaults(&c);
	assert_true(c.px4.speed_factor == 1.0);
	assert_string_equal(c.px4.speed_factor_from, "default");
	assert_int_equal(load(&c, "[px4]\nspeed_factor = 2.5\n", err,
			      sizeof(err)), 0);
	assert_true(c.px4.speed_factor == 2.5);
	assert_int_equal(load(&c, "[px4]\nspeed_factor = 0\n", err,
			      sizeof(err)), 0);
	assert_true(c.px4.speed_factor == 0.0);
	static const char *const bad[] = { "-1", "fast", "2000", "0.001",
					   "nan", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[64], want[64];
		snprintf(text, sizeof(text), "[px4]\nspeed_factor = %s\n",
			 bad[i]);
		snprintf(want, sizeof(want), "test.conf:2: speed_factor = '%s'",
			 bad[i]);
		assert_int_equal(load(&c, text, err, sizeof(err)), -EINVAL);
		if (!strstr(err, want))
			fail_msg("'%s': %s", bad[i], err);
	}

	/* The environment, as PX4 reads it. */
	config_defaults(&c);
	fake_env = (const char *const[]){ "PX4_SIM_SPEED_FACTOR", "4", NULL };
	assert_int_equal(options_apply_env(&c, fake_getenv, err,
					      sizeof(err)), 0);
	assert_true(c.px4.speed_factor == 4.0);
	assert_string_equal(c.px4.speed_factor_from, "PX4_SIM_SPEED_FACTOR");
	/* Set but empty: as unset. */
	config_defaults(&c);
	fake_env = (const char *const[]){ "PX4_SIM_SPEED_FACTOR", "", NULL };
	assert_int_equal(options_apply_env(&c, fake_getenv, err,
					      sizeof(err)), 0);
	assert_true(c.px4.speed_factor == 1.0);
	fake_env = (const char *const[]){ "PX4_SIM_SPEED_FACTOR", "4x", NULL };
	assert_int_equal(options_apply_env(&c, fake_getenv, err,
					      sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "PX4_SIM_SPEED_FACTOR='4x'"));
	assert_true(c.px4.speed_factor == 1.0);
	fake_env = NULL;
}

static void
test_px4_section(void **state)
{
	struct config c;
	char err[256];
	(void)state;

	assert_int_equal(load(&c, "[barod]\nsource = px4-sim\n"
				  "[px4]\ninstances = 2\nbind = 127.0.0.1\n"
				  "port = 4600\nhome_lat = -33.5\n"
				  "home_lon = 151.25\nhil_baros = 2\n"
				  "lockstep_timeout_ms = 20\n",
			      err, sizeof(err)), 0);
	assert_int_equal(c.source, CONFIG_SOURCE_PX4_SIM);
	assert_string_equal(config_source_name(c.source), "px4-sim");
	assert_int_equal(c.px4.instances, 2);
	assert_string_equal(c.px4.bind, "127.0.0.1");
	assert_int_equal(c.px4.port, 4600);
	assert_true(c.px4.home_lat_deg == -33.5);
	assert_true(c.px4.home_lon_deg == 151.25);
	assert_int_equal(c.px4.hil_baros, 2);
	assert_int_equal(c.px4.lockstep_timeout_ms, 20);
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);

	/* Defaults: PX4's port 4560 and home, baro 0 only. */
	config_defaults(&c);
	assert_int_equal(c.px4.port, 4560);
	assert_true(c.px4.home_lat_deg == 47.397742);
	assert_true(c.px4.home_lon_deg == 8.545594);
	assert_int_equal(c.px4.hil_baros, 1);
	assert_int_equal(c.px4.lockstep_timeout_ms, 1000);

	assert_int_equal(load(&c, "[barod]\nsource = px4-sim-proxy\n"
				  "[px4]\ninstances = 4\nbind = 127.0.0.1\n"
				  "port = 4600\nupstream = sim.local:4700\n",
			      err, sizeof(err)), 0);
	assert_int_equal(c.source, CONFIG_SOURCE_PX4_PROXY);
	assert_int_equal(c.px4.instances, 4);
	assert_string_equal(c.px4.bind, "127.0.0.1");
	assert_int_equal(c.px4.port, 4600);
	assert_string_equal(c.px4.upstream, "sim.local:4700");
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);
	assert_string_equal(config_source_name(c.source), "px4-sim-proxy");

	/* Defaults: PX4's own port, every address; no simulator. */
	config_defaults(&c);
	assert_int_equal(c.px4.instances, 1);
	assert_int_equal(c.px4.port, 4560);
	assert_string_equal(c.px4.bind, "0.0.0.0");
	assert_int_equal(load(&c, "[barod]\nsource = px4-sim-proxy\n", err,
			      sizeof(err)), 0);
	assert_int_equal(config_validate(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "px4-sim-proxy needs"));
}

static void
test_long_line(void **state)
{
	struct config c;
	char err[256];
	char text[1024] = "[sim]\nprofile = static:";
	(void)state;

	memset(text + strlen(text), '1', 400);
	strcat(text, "\n");
	assert_int_equal(load(&c, text, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "test.conf:2: line longer than"));
}

static void
test_missing_file(void **state)
{
	struct config c;
	char err[256];
	(void)state;

	config_defaults(&c);
	assert_int_equal(config_load_file(&c, "/nonexistent/barod.conf", err,
					  sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/barod.conf: No such file"));
}

static void
test_output_specs(void **state)
{
	struct config_output o;
	char err[256];
	(void)state;

	assert_int_equal(config_parse_output("udp:127.0.0.1:14550", &o, err,
					     sizeof(err)), 0);
	assert_int_equal(o.type, OUTPUT_UDP_CLIENT);
	assert_string_equal(o.address, "127.0.0.1:14550");
	assert_int_equal(config_parse_output("udp-server:0.0.0.0:14560", &o,
					     err, sizeof(err)), 0);
	assert_int_equal(o.type, OUTPUT_UDP_SERVER);
	assert_int_equal(config_parse_output("serial:/dev/ttyUSB0:57600", &o,
					     err, sizeof(err)), 0);
	assert_string_equal(o.device, "/dev/ttyUSB0");
	assert_int_equal(o.baud, 57600);
	assert_int_equal(config_parse_output("serial:/dev/ttyS0", &o, err,
					     sizeof(err)), 0);
	assert_int_equal(o.baud, 115200);

	/* MAVProxy's TCP spellings: a client and a server. */
	assert_int_equal(config_parse_output("tcp:1.2.3.4:5", &o, err,
					     sizeof(err)), 0);
	assert_int_equal(o.type, OUTPUT_TCP_CLIENT);
	assert_string_equal(o.address, "1.2.3.4:5");
	assert_string_equal(config_output_type_name(o.type), "tcp-client");
	assert_int_equal(config_parse_output("tcpin:0.0.0.0:5760", &o, err,
					     sizeof(err)), 0);
	assert_int_equal(o.type, OUTPUT_TCP_SERVER);
	assert_string_equal(o.address, "0.0.0.0:5760");
	assert_string_equal(config_output_type_name(o.type), "tcp-server");
	assert_int_equal(config_parse_output("tcp:0.0.0.0:5760", &o, err,
					     sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "use tcpin:0.0.0.0:5760"));
	assert_int_equal(config_parse_output("tcpin:5760", &o, err,
					     sizeof(err)), -EINVAL);
	assert_int_equal(config_parse_output("tcpout:1.2.3.4:5", &o, err,
					     sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "tcp:HOST:PORT or tcpin:HOST:PORT"));
	assert_int_equal(config_parse_output("udp:nohost", &o, err,
					     sizeof(err)), -EINVAL);
	assert_int_equal(config_parse_output("serial:/dev/x:123", &o, err,
					     sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "baud '123'"));

	/* MSP: every instance as itself, every sample, vehicle 0. */
	assert_int_equal(config_parse_output("msp:/dev/serial0", &o, err,
					     sizeof(err)), 0);
	assert_int_equal(o.type, OUTPUT_MSP_SERIAL);
	assert_string_equal(o.device, "/dev/serial0");
	assert_int_equal(o.baud, 115200);
	for (int i = 0; i < BARO_MAX_INSTANCES; i++)
		assert_int_equal(o.msp.map[i], i);
	assert_true(o.msp.rate_hz == RATE_EVERY_SAMPLE);
	assert_int_equal(o.msp.vehicle, 0);
	assert_int_equal(config_parse_output("msp:/dev/ttyAMA0:921600", &o,
					     err, sizeof(err)), 0);
	assert_int_equal(o.baud, 921600);
	assert_int_equal(config_parse_output("msp-tcp:127.0.0.1:5763", &o,
					     err, sizeof(err)), 0);
	assert_int_equal(o.type, OUTPUT_MSP_TCP);
	assert_string_equal(o.address, "127.0.0.1:5763");
	assert_int_equal(config_parse_output("msp-udp:[::1]:14570", &o, err,
					     sizeof(err)), 0);
	assert_int_equal(o.type, OUTPUT_MSP_UDP);
	assert_int_equal(config_parse_output("msp-tcp:5763", &o, err,
					     sizeof(err)), -EINVAL);
	assert_int_equal(config_parse_output("msp:/dev/x:7", &o, err,
					     sizeof(err)), -EINVAL);
	assert_int_equal(config_parse_output("msp-serial:/dev/x", &o, err,
					     sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "msp:DEVICE[:BAUD]"));
}

static void
test_msp_sections(void **state)
{
	struct config c;
	struct config_output mo;
	struct config_msp *const m = &mo.msp;
	char err[256];
	(void)state;

	config_defaults(&c);
	assert_int_equal(config_load_string(&c,
		"[output fc]\ntype = msp\ndevice = /dev/serial0\n"
		"instances = 2=0, 0 = 3\nrate_hz = 20\n"
		"[output sitl]\ntype = msp\naddress = 127.0.0.1:5763\n"
		"vehicle = 1\n"
		"[output bridge]\ntype = msp\naddress = 10.0.0.2:14000\n"
		"transport = udp\nrate_hz = all\n",
		"msp.conf", err, sizeof(err)), 0);
	assert_int_equal(c.n_outputs, 3);
	assert_int_equal(c.outputs[0].type, OUTPUT_MSP_SERIAL);
	assert_int_equal(c.outputs[0].baud, 115200);
	assert_int_equal(c.outputs[0].msp.map[0], 3);
	assert_int_equal(c.outputs[0].msp.map[1], -1);
	assert_int_equal(c.outputs[0].msp.map[2], 0);
	assert_true(c.outputs[0].msp.rate_hz == 20.0);
	assert_int_equal(c.outputs[1].type, OUTPUT_MSP_TCP);
	assert_int_equal(c.outputs[1].msp.vehicle, 1);
	assert_int_equal(c.outputs[2].type, OUTPUT_MSP_UDP);
	assert_true(c.outputs[2].msp.rate_hz == RATE_EVERY_SAMPLE);
	assert_string_equal(config_output_type_name(c.outputs[2].type),
			    "msp-udp");

	/* vehicle 1 needs a SITL source with two instances. */
	c.source = CONFIG_SOURCE_SIM;
	assert_int_equal(config_validate(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "vehicle 1"));
	c.source = CONFIG_SOURCE_SITL_JSON;
	assert_int_equal(config_validate(&c, err, sizeof(err)), -EINVAL);
	c.sitl.instances = 2;
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);

	/* The list alone. */
	config_output_defaults(&mo);
	assert_int_equal(config_parse_msp_instances("1", m->map, err,
						    sizeof(err)), 0);
	assert_int_equal(m->map[0], -1);
	assert_int_equal(m->map[1], 1);
	assert_int_equal(config_parse_msp_instances("all", m->map, err,
						    sizeof(err)), 0);
	assert_int_equal(m->map[0], 0);
	static const char *const bad[] = { "", ",", "0,,1", "x", "0=", "=1",
					   "0=-1", "0=1=2", "1 2" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		config_output_defaults(&mo);
		if (config_parse_msp_instances(bad[k], m->map, err,
					       sizeof(err)) != -EINVAL)
			fail_msg("instances = '%s' accepted", bad[k]);
		/* A refused list leaves the map alone. */
		assert_int_equal(m->map[2], 2);
	}
}

static void
test_output_equal(void **state)
{
	struct config_output a, b;
	char err[256];
	(void)state;

	config_parse_output("udp:127.0.0.1:1", &a, err, sizeof(err));
	config_parse_output("udp:127.0.0.1:1", &b, err, sizeof(err));
	assert_true(config_output_equal(&a, &b));
	b.rates.scaled_pressure_hz = 3;
	assert_false(config_output_equal(&a, &b));

	config_parse_output("msp:/dev/x", &a, err, sizeof(err));
	config_parse_output("msp:/dev/x", &b, err, sizeof(err));
	assert_true(config_output_equal(&a, &b));
	b.msp.map[1] = -1;
	assert_false(config_output_equal(&a, &b));
	b = a;
	b.msp.rate_hz = 10;
	assert_false(config_output_equal(&a, &b));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_sample_file),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_sitl_section),
		cmocka_unit_test(test_px4_section),
		cmocka_unit_test(test_px4_speed_factor),
		cmocka_unit_test(test_sensor_sections),
		cmocka_unit_test(test_gpio_spec),
		cmocka_unit_test(test_gpio_no_chip),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_output_specs),
		cmocka_unit_test(test_output_equal),
		cmocka_unit_test(test_msp_sections),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
