"""Record and refuse every outgoing network connection made while active."""

import contextlib
import socket


@contextlib.contextmanager
def no_network():
    """Yield a list that collects the address of every connection attempt; each attempt raises ``OSError``."""
    attempts = []
    original_connect, original_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def refuse(sock, address, *args):
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(address)
            raise OSError(f"network access refused in tests: {address}")
        return original_connect(sock, address, *args)

    def refuse_ex(sock, address, *args):
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            attempts.append(address)
            return 111  # ECONNREFUSED
        return original_connect_ex(sock, address, *args)

    socket.socket.connect, socket.socket.connect_ex = refuse, refuse_ex
    try:
        yield attempts
    finally:
        socket.socket.connect, socket.socket.connect_ex = original_connect, original_connect_ex
