/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "sitl-peer.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "test-util.h"

void
sitl_peer_send_servo(int fd, unsigned port, const struct sitl_servo *s)
{
	uint8_t buf[SITL_SERVO_LEN_32];
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	size_t n = sitl_servo_encode(s, buf);

	assert_int_equal(sendto(fd, buf, n, 0, (struct sockaddr *)&sa,
				sizeof(sa)), (ssize_t)n);
}

ssize_t
sitl_peer_receive(int fd, char *buf, size_t cap, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };

	if (poll(&p, 1, ms) <= 0)
		return 0;
	ssize_t n = recv(fd, buf, cap - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	return n;
}

uint64_t
sitl_peer_ap_read(const char *datagram, struct sitl_fdm *fdm)
{
	char copy[8192];
	size_t n = strlen(datagram);

	assert_true(n >= 2 && n < sizeof(copy));
	memcpy(copy, datagram, n + 1);
	copy[n - 1] = '\0';
	char *line = strrchr(copy, '\n') + 1;
	memset(fdm, 0, sizeof(*fdm));
	return sitl_json_ap_parse(line, fdm);
}
