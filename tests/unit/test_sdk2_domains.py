"""DDS domains for the bench: free ports, and none in the kernel's ephemeral range."""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path

import pytest

from go2_locomotion.sdk2.bench import BENCH_DOMAINS, domain_port_free, random_domain


def test_every_bench_domain_port_lies_below_the_ephemeral_range():
    ephemeral = Path("/proc/sys/net/ipv4/ip_local_port_range")
    low = int(ephemeral.read_text().split()[0]) if ephemeral.exists() else 32768
    # Domain 100 discovers on 7400 + 250 * 100 = 32400; 20 participants listen up to 32400 + 10 + 2 * 19 + 1 = 32449.
    highest = 7400 + 250 * max(BENCH_DOMAINS) + 10 + 2 * 19 + 1
    assert highest == 32449
    assert highest < low
    assert 0 not in BENCH_DOMAINS  # the robot's own domain


def test_a_held_discovery_port_is_skipped():
    keep = 37
    with contextlib.ExitStack() as stack:
        for domain in BENCH_DOMAINS:
            if domain == keep:
                continue
            held = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
            with contextlib.suppress(OSError):  # already held by someone else: just as good
                held.bind(("", 7400 + 250 * domain))
        if not domain_port_free(keep):
            pytest.skip("another program holds domain 37's port")
        assert all(not domain_port_free(d) for d in BENCH_DOMAINS if d != keep)
        assert {random_domain() for _ in range(5)} == {keep}


def test_no_free_domain_is_a_named_error():
    with contextlib.ExitStack() as stack:
        for domain in BENCH_DOMAINS:
            held = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
            with contextlib.suppress(OSError):
                held.bind(("", 7400 + 250 * domain))
        with pytest.raises(RuntimeError, match="no free DDS domain among 1-100"):
            random_domain()
