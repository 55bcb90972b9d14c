#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# free-port.py [LOW HIGH]: a UDP port on 127.0.0.1 free this moment, in
# LOW..HIGH (default 20000..59000: a campaign's ports end at 60000,
# the kernel's ephemeral ones at 60999), for the shell tests that run
# beside another root's (two CI roots share the network).
import socket
import sys

low, high = (int(a) for a in sys.argv[1:3]) if len(sys.argv) > 2 else (20000, 59000)
while True:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    if low <= port <= high:
        print(port)
        break
