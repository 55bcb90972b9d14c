/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench-log-ulog FILE [N]: read a ULog N times (default 20) through
 * log_reader_open_fd and print records/s and MB/s.  Not a test: compare
 * the figures with `time cat FILE > /dev/null` on the same machine.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../bench-util.h"
#include "log-reader.h"

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [N]\n", argv[0]);
		return 2;
	}
	long passes = argc > 2 ? strtol(argv[2], NULL, 10) : 20;
	unsigned long long records = 0, bytes = 0;
	double start = now_s();

	for (long i = 0; i < passes; i++) {
		struct log_reader r;
		struct log_record rec;
		struct stat st;
		int rc, fd = open(argv[1], O_RDONLY);

		if (fd < 0 || fstat(fd, &st) < 0) {
			perror(argv[1]);
			return 1;
		}
		if (log_reader_open_fd(&r, fd, argv[1], "ulog") < 0) {
			fprintf(stderr, "%s\n", r.err);
			log_reader_close(&r);
			close(fd);
			return 1;
		}
		while ((rc = log_reader_next(&r, &rec)) > 0)
			records++;
		if (rc < 0 && i == 0)
			fprintf(stderr, "stopped at: %s\n", r.err);
		bytes += (unsigned long long)st.st_size;
		log_reader_close(&r);
		close(fd);
	}
	double dt = now_s() - start;
	printf("%s: %ld passes, %llu records, %.3f s: %.0f records/s, "
	       "%.1f MB/s\n", argv[1], passes, records, dt,
	       (double)records / dt, (double)bytes / dt / 1e6);
	return 0;
}
