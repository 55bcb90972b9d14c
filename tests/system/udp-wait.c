/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * udp-wait TIMEOUT_MS: bind 127.0.0.1 on a free port, print "port N",
 * then wait for one datagram and describe it ("datagram LEN bytes,
 * MAVLink 2 msgid ID").  Exit 0 when a MAVLink 2 datagram arrived, 1 on
 * timeout or anything else.  check-units.sh points barod's output here.
 */
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	unsigned char buf[2048];

	if (argc != 2) {
		fprintf(stderr, "usage: udp-wait TIMEOUT_MS\n");
		return 2;
	}
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		perror("udp-wait");
		return 1;
	}
	printf("port %u\n", (unsigned)ntohs(sa.sin_port));
	fflush(stdout);

	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, atoi(argv[1])) != 1) {
		printf("no datagram\n");
		return 1;
	}
	ssize_t n = recv(fd, buf, sizeof(buf), 0);
	/* MAVLink 2: STX 0xFD, payload length, flags, seq, sysid, compid,
	 * 24-bit message id. */
	if (n < 12 || buf[0] != 0xfd) {
		printf("datagram %zd bytes, not MAVLink 2\n", n);
		return 1;
	}
	printf("datagram %zd bytes, MAVLink 2 msgid %u\n", n,
	       buf[7] | buf[8] << 8 | (unsigned)buf[9] << 16);
	close(fd);
	return 0;
}
