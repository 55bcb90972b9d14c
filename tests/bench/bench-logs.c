/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reader throughput: bench-logs [-n PASSES] FILE...
 *
 * For each file, reads it PASSES times through log_reader_open_fd() (the
 * format chosen by content, as baro-replay does) and PASSES times with
 * plain read() into a buffer (what `cat FILE > /dev/null` costs, without
 * cat's process start-up), and prints records/s, MB/s and the ratio.
 * Not a test: timings vary with the machine's load.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench-util.h"
#include "log-reader.h"

/* Bytes read and records returned in one pass; -1 on failure. */
static long long
reader_pass(const char *path, unsigned long long *records)
{
	struct log_reader r;
	struct log_record rec;
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	if (log_reader_open_fd(&r, fd, path, NULL) < 0) {
		fprintf(stderr, "%s\n", r.err);
		log_reader_close(&r);
		close(fd);
		return -1;
	}
	while (log_reader_next(&r, &rec) > 0)
		(*records)++;
	long long bytes = (long long)log_input_offset(&r.in);
	log_reader_close(&r);
	close(fd);
	return bytes;
}

static long long
plain_pass(const char *path)
{
	static char buf[1 << 16];
	long long total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	close(fd);
	return total;
}

int
main(int argc, char **argv)
{
	int passes = 200, first = 1;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		passes = atoi(argv[2]);
		first = 3;
	}
	if (first >= argc || passes < 1) {
		fprintf(stderr, "usage: bench-logs [-n PASSES] FILE...\n");
		return 2;
	}
	printf("%-44s %10s %9s %9s %8s\n", "log", "records/s", "MB/s",
	       "read MB/s", "ratio");
	for (int i = first; i < argc; i++) {
		unsigned long long records = 0;
		long long bytes = 0;
		double t0 = now_s();
		for (int p = 0; p < passes; p++) {
			long long b = reader_pass(argv[i], &records);
			if (b < 0)
				return 1;
			bytes += b;
		}
		double t_reader = now_s() - t0;
		t0 = now_s();
		long long plain = 0;
		for (int p = 0; p < passes; p++)
			plain += plain_pass(argv[i]);
		double t_plain = now_s() - t0;
		const char *base = strrchr(argv[i], '/');
		printf("%-44.44s %10.0f %9.1f %9.1f %8.1f\n",
		       base ? base + 1 : argv[i],
		       (double)records / t_reader,
		       (double)bytes / t_reader / 1e6,
		       (double)plain / t_plain / 1e6, t_reader / t_plain);
	}
	return 0;
}
