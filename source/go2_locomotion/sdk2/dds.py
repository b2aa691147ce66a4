"""DDS on one network interface with CycloneDDS: a participant (:class:`Bus`), writers, readers served by a
thread of their own, and who else publishes a topic (DDS discovery).

QoS, chosen to match whatever the robot uses: writers are reliable and keep only the newest sample (a reliable
writer serves both reliable and best-effort readers, and keep-last-1 never blocks on a slow reader); readers are
best effort (they match reliable and best-effort writers alike).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from cyclonedds.builtin import BuiltinDataReader, BuiltinTopicDcpsPublication
from cyclonedds.core import InstanceState, Policy, Qos, ReadCondition, SampleState, ViewState, WaitSet
from cyclonedds.domain import Domain, DomainParticipant
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

SYS_NET = Path("/sys/class/net")
"""Where Linux lists the network interfaces and their flags."""

IFF_LOOPBACK = 0x8
"""Linux interface flag of a loopback interface."""

READ_BATCH = 64
"""Samples taken from a reader per wake-up."""

WAKE_S = 0.05
"""A reader thread checks for a stop request at least this often [s]."""


def interfaces() -> list[str]:
    """Names of this machine's network interfaces."""
    return sorted(p.name for p in SYS_NET.iterdir()) if SYS_NET.is_dir() else []


def is_loopback(interface: str) -> bool:
    """Whether ``interface`` is a loopback interface (its Linux flags carry IFF_LOOPBACK)."""
    try:
        return bool(int((SYS_NET / interface / "flags").read_text().strip(), 16) & IFF_LOOPBACK)
    except (OSError, ValueError):
        return False


def cyclonedds_config(interface: str) -> str:
    """CycloneDDS configuration that binds DDS to one interface, without tracing output. On a loopback interface
    multicast is switched on explicitly: Linux's ``lo`` carries it but does not say so, and CycloneDDS 0.10 would
    otherwise fall back to unicast discovery and find no one."""
    multicast = "true" if is_loopback(interface) else "default"
    return (
        '<CycloneDDS><Domain Id="any"><General><Interfaces>'
        f'<NetworkInterface name="{interface}" priority="default" multicast="{multicast}"/>'
        "</Interfaces></General><Tracing><Verbosity>severe</Verbosity><OutputFile>stderr</OutputFile></Tracing>"
        "</Domain></CycloneDDS>"
    )


_DOMAINS: dict[int, tuple[str, Domain]] = {}
"""Domains configured in this process: CycloneDDS configures a domain id once per process."""


def _domain(domain: int, interface: str) -> Domain:
    """The process's domain ``domain`` bound to ``interface``, configured on first use.

    Raises:
        ValueError: The domain is already bound to another interface in this process.
    """
    if domain in _DOMAINS:
        bound, entity = _DOMAINS[domain]
        if bound != interface:
            raise ValueError(f"DDS domain {domain} is already bound to {bound} in this process, not {interface}")
        return entity
    entity = Domain(domain, cyclonedds_config(interface))
    _DOMAINS[domain] = (interface, entity)
    return entity


WRITER_QOS = Qos(Policy.Reliability.Reliable(duration(milliseconds=10)), Policy.History.KeepLast(1))
"""Reliable, newest sample only."""

READER_QOS = Qos(Policy.Reliability.BestEffort, Policy.History.KeepLast(READ_BATCH))
"""Best effort; up to one batch of samples waits between two takes."""


class Subscription:
    """A reader whose samples a thread of its own hands to ``handler(sample, received)``, with ``received`` the
    ``time.monotonic()`` just after the sample was taken and decoded. Instance-state notices (a writer that went
    away) carry no data and are skipped."""

    def __init__(self, participant: DomainParticipant, topic: Topic, handler: Callable, name: str):
        self.reader = DataReader(participant, topic, READER_QOS)
        self._waitset = WaitSet(participant)
        self._condition = ReadCondition(self.reader, SampleState.Any | ViewState.Any | InstanceState.Any)
        self._waitset.attach(self._condition)
        self._handler = handler
        self._stop = threading.Event()
        self.error: BaseException | None = None
        """An exception raised by the handler (the thread then ends)."""
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._waitset.wait(duration(seconds=WAKE_S))
                for sample in self.reader.take(READ_BATCH):
                    if hasattr(sample, "sample_info") and sample.sample_info.valid_data:
                        self._handler(sample, time.monotonic())
        except BaseException as error:  # handed to the main thread, which decides
            self.error = error

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1.0)


class Bus:
    """A DDS participant in ``domain`` bound to ``interface``.

    Raises:
        cyclonedds.core.DDSException: CycloneDDS cannot use the interface.
    """

    def __init__(self, domain: int, interface: str):
        self.domain_id, self.interface = domain, interface
        self._domain = _domain(domain, interface)
        self.participant = DomainParticipant(domain)
        self._topics: dict[str, Topic] = {}
        self._subscriptions: list[Subscription] = []

    def topic(self, name: str, message_type) -> Topic:
        if name not in self._topics:
            self._topics[name] = Topic(self.participant, name, message_type)
        return self._topics[name]

    def writer(self, name: str, message_type) -> DataWriter:
        """A writer of ``message_type`` samples on topic ``name``."""
        return DataWriter(self.participant, self.topic(name, message_type), WRITER_QOS)

    def subscribe(self, name: str, message_type, handler: Callable) -> Subscription:
        """Call ``handler(sample, received)`` from a reader thread for every sample on topic ``name``."""
        subscription = Subscription(self.participant, self.topic(name, message_type), handler, f"dds:{name}")
        self._subscriptions.append(subscription)
        return subscription

    def other_writers(self, topic_name: str, wait_s: float) -> list[str]:
        """GUIDs of writers on ``topic_name`` in other participants, found by DDS discovery within ``wait_s``."""
        reader = BuiltinDataReader(self.participant, BuiltinTopicDcpsPublication)
        own = self.participant.get_guid()
        found: dict[str, None] = {}
        deadline = time.monotonic() + wait_s
        while True:
            for sample in reader.read(256):
                if getattr(sample, "topic_name", None) == topic_name and sample.participant_key != own:
                    found[str(sample.key)] = None
            if time.monotonic() >= deadline:
                return list(found)
            time.sleep(0.05)

    def close(self) -> None:
        """Stop the reader threads (the participant goes with the process)."""
        for subscription in self._subscriptions:
            subscription.close()
