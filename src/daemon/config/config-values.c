/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The configuration's value rules, each once (config-values.h). */
#include "config-values.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-strings.h"

int
config_parse_uint(const char *v, unsigned long lo, unsigned long hi,
		  unsigned long *out)
{
	uint64_t x;

	if (str_to_u64(v, &x) < 0 || x < lo || x > hi)
		return -EINVAL;
	*out = (unsigned long)x;
	return 0;
}

/* rng_N = baro instance 0..2, or none. */
int
config_parse_rng(const char *value, int *out)
{
	unsigned long v;

	if (strcmp(value, "none") == 0 || strcmp(value, "-1") == 0) {
		*out = -1;
		return 0;
	}
	if (config_parse_uint(value, 0, BARO_MAX_INSTANCES - 1, &v) < 0)
		return -EINVAL;
	*out = (int)v;
	return 0;
}


int
config_parse_msp_instances(const char *value, int8_t out[BARO_MAX_INSTANCES],
			   char *err, size_t errlen)
{
	char buf[128];
	bool msp_taken[CONFIG_MSP_INSTANCE_MAX + 1] = { false };
	int8_t map[BARO_MAX_INSTANCES];

	if (strcmp(value, "all") == 0) {
		for (int i = 0; i < BARO_MAX_INSTANCES; i++)
			out[i] = (int8_t)i;
		return 0;
	}
	if (strlen(value) >= sizeof(buf))
		return str_errorf(err, errlen, -EINVAL,
				  "instances: list too long");
	strcpy(buf, value);
	for (int i = 0; i < BARO_MAX_INSTANCES; i++)
		map[i] = -1;
	for (char *item = buf, *next; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		char *eq = strchr(item, '=');
		unsigned long b, to;
		if (eq)
			*eq = '\0';
		char *bs = str_trim(item, "");
		char *ms = eq ? str_trim(eq + 1, "") : bs;
		if (config_parse_uint(bs, 0, BARO_MAX_INSTANCES - 1, &b) < 0)
			return str_errorf(err, errlen, -EINVAL,
					  "instances: '%s' is not a baro "
					  "instance 0..%d (expected 'all' or "
					  "a list such as 0,1=3)", bs,
					  BARO_MAX_INSTANCES - 1);
		if (config_parse_uint(ms, 0, CONFIG_MSP_INSTANCE_MAX, &to) < 0)
			return str_errorf(err, errlen, -EINVAL,
					  "instances: MSP instance '%s' is not "
					  "0..%d", ms, CONFIG_MSP_INSTANCE_MAX);
		if (map[b] >= 0)
			return str_errorf(err, errlen, -EINVAL,
					  "instances: baro %lu listed twice", b);
		if (msp_taken[to])
			return str_errorf(err, errlen, -EINVAL,
					  "instances: MSP instance %lu given "
					  "twice (ArduPilot would average the "
					  "two baros into one)", to);
		map[b] = (int8_t)to;
		msp_taken[to] = true;
	}
	memcpy(out, map, sizeof(map));
	return 0;
}

static const unsigned bauds[] = { 9600,	  19200,  38400,  57600,  115200,
				  230400, 460800, 500000, 576000, 921600 };

int
config_parse_baud(const char *v, unsigned *out)
{
	unsigned long b;

	if (config_parse_uint(v, 1, 4000000, &b) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]); i++) {
		if (bauds[i] == b) {
			*out = (unsigned)b;
			return 0;
		}
	}
	return -EINVAL;
}

/* HOST:PORT, with [v6]:PORT for IPv6 literals; port 1..65535. */
int
config_check_address(const char *a)
{
	const char *colon = strrchr(a, ':');
	unsigned long port;

	if (!colon || colon == a || strlen(a) >= 128)
		return -EINVAL;
	return config_parse_uint(colon + 1, 1, 65535, &port);
}

bool
config_address_unspecified(const char *a)
{
	const char *colon = strrchr(a, ':');
	char host[128];
	unsigned char addr[sizeof(struct in6_addr)];
	size_t n = colon ? (size_t)(colon - a) : strlen(a);

	if (n >= 2 && a[0] == '[' && a[n - 1] == ']') {
		a++;
		n -= 2;
	}
	if (n >= sizeof(host))
		return false;
	memcpy(host, a, n);
	host[n] = '\0';
	/* inet_aton, as the resolver reads numbers: "0" is 0.0.0.0. */
	struct in_addr v4;
	if (inet_aton(host, &v4) == 1)
		return v4.s_addr == htonl(INADDR_ANY);
	if (inet_pton(AF_INET6, host, addr) == 1)
		return memcmp(addr, &in6addr_any, sizeof(in6addr_any)) == 0;
	return false;
}


int
config_parse_bus(const char *value, char *path, size_t len)
{
	uint64_t n;

	if (str_to_u64(value, &n) == 0) {
		if (n > 9999)
			return -EINVAL;
		baro_bus_path((unsigned)n, path, len);
		return 0;
	}
	if (value[0] != '/' || strlen(value) >= len)
		return -EINVAL;
	strcpy(path, value);
	return 0;
}

/* 0x76 or 118: a 7-bit address outside the reserved ranges. */
int
config_parse_i2c_address(const char *v, uint8_t *out)
{
	unsigned long a;

	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		char *end;
		if (!isxdigit((unsigned char)v[2]))
			return -EINVAL;
		errno = 0;
		a = strtoul(v + 2, &end, 16);
		if (*end != '\0' || errno != 0)
			return -EINVAL;
	} else if (config_parse_uint(v, 0, 255, &a) < 0) {
		return -EINVAL;
	}
	if (a < 0x03 || a > 0x77)
		return -EINVAL;
	*out = (uint8_t)a;
	return 0;
}


int
config_parse_speed_factor(const char *text, double *out)
{
	double f;

	if (str_to_double(text, &f) < 0 ||
	    !(f == 0.0 ||
	      (f >= CONFIG_PX4_SPEED_MIN && f <= CONFIG_PX4_SPEED_MAX)))
		return -EINVAL;
	*out = f;
	return 0;
}

void
config_format_double(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
}
