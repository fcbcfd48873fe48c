"""This machine's own network address, for a server a phone on the same network would reach."""
from __future__ import annotations

import socket


def own_address() -> str:
    """This machine's address on its network (a UDP socket's route: no packet is sent), or loopback's."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()
