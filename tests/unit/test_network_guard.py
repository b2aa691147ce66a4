"""The guard the offline tests rely on really sees and refuses a connection."""

import socket
import urllib.request

import pytest
from network_guard import no_network


def test_guard_records_and_refuses():
    with no_network() as attempts:
        with pytest.raises(OSError):
            urllib.request.urlopen("http://203.0.113.1/go2.usd", timeout=1)  # TEST-NET-3: never routed
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            assert sock.connect_ex(("203.0.113.1", 80)) != 0
    assert [address[0] for address in attempts] == ["203.0.113.1", "203.0.113.1"]
