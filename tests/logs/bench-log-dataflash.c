/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Read a DataFlash log N times through log_reader_open_fd and print
 * records/s and MB/s: bench-log-dataflash FILE [N].  Not a test
 * (timings vary); compare with `time cat FILE > /dev/null`.
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
	int n = argc > 2 ? atoi(argv[2]) : 20;
	unsigned long long records = 0, baro = 0, bytes = 0;
	double t0 = now_s();

	for (int i = 0; i < n; i++) {
		int fd = open(argv[1], O_RDONLY);
		struct stat st;
		struct log_reader r;
		struct log_record rec;
		int rc;

		if (fd < 0 || fstat(fd, &st) < 0) {
			perror(argv[1]);
			return 1;
		}
		if (log_reader_open_fd(&r, fd, argv[1], "dataflash") < 0) {
			fprintf(stderr, "%s\n", r.err);
			return 1;
		}
		while ((rc = log_reader_next(&r, &rec)) > 0) {
			records++;
			baro += rec.kind == LOG_REC_BARO;
		}
		if (rc < 0 && i == 0)
			fprintf(stderr, "(ends with: %s)\n", r.err);
		bytes += (unsigned long long)st.st_size;
		log_reader_close(&r);
		close(fd);
	}
	double dt = now_s() - t0;
	printf("%s: %d passes, %llu records (%llu baro) in %.3f s: "
	       "%.0f records/s, %.1f MB/s\n", argv[1], n, records, baro, dt,
	       (double)records / dt, (double)bytes / dt / 1e6);
	return 0;
}
