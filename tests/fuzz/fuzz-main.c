/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Stand-in for libFuzzer's main() in ordinary builds, so every fuzz target
 * runs as a regression test (and under ASan/UBSan in CI):
 *
 *   fuzz-X FILE|DIR...              run each input file
 *   fuzz-X --mutate N SEED DIR...   also run N deterministic mutations of
 *                                   the inputs (byte flips, inserts, cuts)
 *
 * Real coverage-guided fuzzing: ./dev fuzz (clang + libFuzzer).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

struct input {
	uint8_t *data;
	size_t size;
};

static struct input *inputs;
static size_t n_inputs;

static int
load(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	struct input *grown = realloc(inputs, (n_inputs + 1) * sizeof(*inputs));
	if (!buf || !grown) {
		free(buf);
		fprintf(stderr, "out of memory\n");
		return -1;
	}
	inputs = grown;
	inputs[n_inputs++] = (struct input){ buf, n };
	return 0;
}

static int
load_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return load(path);

	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char full[4096];
		snprintf(full, sizeof(full), "%s/%s", path, e->d_name);
		rc = load(full);
	}
	closedir(d);
	return rc;
}

/* xorshift: the mutations must be the same on every run. */
static uint32_t
next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void
mutate_and_run(const struct input *in, uint32_t *seed)
{
	size_t cap = in->size + 64;
	uint8_t *buf = malloc(cap);
	size_t n = in->size;
	static const char interesting[] = ",\n-.e9#\"=:0";

	if (!buf)
		return;
	memcpy(buf, in->data, n);
	int edits = 1 + (int)(next_rand(seed) % 8);
	for (int i = 0; i < edits; i++) {
		uint32_t r = next_rand(seed);
		size_t pos = n ? next_rand(seed) % n : 0;
		switch (r % 4) {
		case 0: /* flip a byte */
			if (n)
				buf[pos] ^= (uint8_t)(1u << (r >> 8) % 8);
			break;
		case 1: /* insert a character that matters to the parsers */
			if (n < cap) {
				memmove(buf + pos + 1, buf + pos, n - pos);
				buf[pos] = (uint8_t)interesting[(r >> 8) %
						(sizeof(interesting) - 1)];
				n++;
			}
			break;
		case 2: /* truncate */
			n = pos;
			break;
		default: /* random byte */
			if (n)
				buf[pos] = (uint8_t)(r >> 16);
			break;
		}
	}
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
}

int
main(int argc, char **argv)
{
	long mutations = 0;
	uint32_t seed = 1;
	int i = 1;

	if (argc > 3 && strcmp(argv[1], "--mutate") == 0) {
		mutations = strtol(argv[2], NULL, 10);
		seed = (uint32_t)strtoul(argv[3], NULL, 10) | 1u;
		i = 4;
	}
	for (; i < argc; i++) {
		if (load_path(argv[i]) < 0)
			return 1;
	}
	if (n_inputs == 0) {
		fprintf(stderr, "no inputs\n");
		return 1;
	}
	for (size_t k = 0; k < n_inputs; k++)
		LLVMFuzzerTestOneInput(inputs[k].data, inputs[k].size);
	for (long m = 0; m < mutations; m++)
		mutate_and_run(&inputs[(size_t)m % n_inputs], &seed);
	printf("%zu inputs, %ld mutations: no crash\n", n_inputs, mutations);
	for (size_t k = 0; k < n_inputs; k++)
		free(inputs[k].data);
	free(inputs);
	return 0;
}
