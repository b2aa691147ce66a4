"""The Go2's SDK2 messages: their DDS type identity (equal to Unitree's generated types), the wire bytes of the fast
codec against CycloneDDS's own serialiser, the C layout the robot's CRC reads, and the CRC itself against a bit-by-bit
transcription of Unitree's ``crc32_core``."""

from __future__ import annotations

import random
import struct

import cyclonedds.idl as idl
import numpy as np
import pytest

from go2_locomotion.sdk2 import messages as m
from go2_locomotion.sdk2.figures import POS_STOP, VEL_STOP

UNITREE_TYPE_IDS = {
    # XTypes TypeIdentifiers (complete, minimal) that CycloneDDS 0.10.2 computes for Unitree's own generated Python
    # types (unitree_sdk2py/idl/unitree_go/msg/dds_, identical in the official unitree_sdk2_python and in
    # unitree-sdk2py-dimos 1.0.3), recorded in a scratch environment; a C program built with Debian's CycloneDDS
    # 0.10.2 idlc from sdk2/interop/unitree_go.idl advertises the same complete identifiers. DDS matches a
    # reader and a writer by these (CycloneDDS 11 computes other ones: see docs/deploy_sdk2.md).
    "LowCmd_": ("52cc8eb0d427d692aa2b20a90540", "832876ceec9737d69f6ed62a3f63"),
    "LowState_": ("08f239c471d3a27e67e7c7723184", "853a99e23d0daa1610b65c526b40"),
}


@pytest.mark.parametrize("cls", [m.LowCmd_, m.LowState_], ids=lambda c: c.__name__)
def test_type_identity_equals_unitrees_types(cls):
    info = cls.__idl__.get_type_info()
    assert cls.__idl_typename__ == f"unitree_go.msg.dds_.{cls.__name__}"
    complete, minimal = UNITREE_TYPE_IDS[cls.__name__]
    assert info.complete.typeid_with_size.type_id.value.hex() == complete
    assert info.minimal.typeid_with_size.type_id.value.hex() == minimal


def test_struct_sizes_and_offsets_are_those_of_the_c_structs():
    # Computed by hand from the IDL with C's natural alignment (the memory the firmware's CRC reads):
    # LowCmd_: head 2 + level_flag 1 + frame_reserve 1 + sn 8 + version 8 + bandwidth 2 + 2 padding = 24; each
    # MotorCmd_ is mode 1 + 3 padding + 5 floats + 3 uint32 = 36 bytes (20 of them: 720); BmsCmd_ 4; remote 40,
    # led 12, fan 2, gpio 1, 1 padding; reserve 4; crc 4: 812 bytes, the crc at 808.
    cmd, state = m.layout_of(m.LowCmd_), m.layout_of(m.LowState_)
    assert (cmd.c.size, state.c.size) == (812, 1180)
    assert (cmd.wire.size + 4, state.wire.size + 4) == (812, 1180)  # XCDR1 payload plus its 4-byte header

    def c_offset(layout, path, value, code):
        values = list(layout.template)
        values[layout.index[path]] = value
        return layout.c.pack(*values).find(struct.pack(code, value))

    assert c_offset(cmd, "motor_cmd[0].q", 1.5, "<f") == 28
    assert c_offset(cmd, "motor_cmd[1].q", 1.5, "<f") == 28 + 36
    assert c_offset(cmd, "crc", 0x5A5A5A5A, "<I") == 808
    # LowState_: 24-byte header, IMUState_ 13 floats + uint8 + 3 padding = 56, MotorState_ 48 each from 80 on
    assert c_offset(state, "motor_state[0].q", 1.5, "<f") == 84
    assert c_offset(state, "motor_state[11].q", 1.5, "<f") == 84 + 11 * 48
    assert c_offset(state, "tick", 0x5A5A5A5A, "<I") == 1100
    assert c_offset(state, "crc", 0x5A5A5A5A, "<I") == 1176


def _random_values(layout, rng: random.Random) -> list:
    ranges = {"B": (0, 255), "b": (-128, 127), "H": (0, 65535), "h": (-32768, 32767), "I": (0, 2**32 - 1)}
    ranges["i"] = (-(2**31), 2**31 - 1)
    codes = [c for c in layout.wire.format[1:] if c.isalpha() and c != "x"]
    assert len(codes) == len(layout.paths)
    return [rng.uniform(-30, 30) if c == "f" else rng.randint(*ranges[c]) for c in codes]


@pytest.mark.parametrize("cls", [m.LowCmd_, m.LowState_], ids=lambda c: c.__name__)
def test_fast_codec_matches_cyclonedds_byte_for_byte(cls):
    rng = random.Random(3)
    layout = m.layout_of(cls)
    for _ in range(5):
        message = layout.build(_random_values(layout, rng))
        generic = idl.IdlStruct.serialize(message)  # CycloneDDS's own serialiser
        assert message.serialize() == generic
        decoded = cls.deserialize(generic)
        assert decoded.values() == cls.__idl__.deserialize(generic).values()
        assert decoded == cls.__idl__.deserialize(generic)  # building the fields on demand gives the same message


def test_a_decoded_message_tagged_by_the_reader_keeps_the_fast_form():
    # CycloneDDS's reader sets sample_info on every sample: building the fields there undoes the codec's gain
    message = m.LowState_.deserialize(
        m.lowstate(7, *[np.zeros(12)] * 3, [1, 0, 0, 0], *[np.zeros(3)] * 3, [0] * 4).serialize()
    )
    message.sample_info = "info"
    assert "_values" in message.__dict__ and m.reading(message).tick == 7
    message.tick = 8
    assert "_values" not in message.__dict__ and m.leaf(message, "tick") == 8 and not m.crc_ok(message)


def _crc32_core_bitwise(words: list[int]) -> int:
    """Unitree's ``crc32_core`` transcribed bit by bit: per 32-bit word, most significant bit first."""
    crc, polynomial = 0xFFFFFFFF, 0x04C11DB7
    for word in words:
        for bit in range(31, -1, -1):
            top = crc & 0x80000000
            crc = (crc << 1) & 0xFFFFFFFF
            if top:
                crc ^= polynomial
            if word >> bit & 1:
                crc ^= polynomial
    return crc


def test_crc_is_crc32_mpeg2_and_matches_unitrees_bitwise_algorithm():
    assert m.crc32_mpeg2(b"123456789") == 0x0376E6E7  # the catalogue check value of CRC-32/MPEG-2
    rng = random.Random(5)
    for length in (8, 64, 812):
        data = bytes(rng.randrange(256) for _ in range(length))
        words = list(struct.unpack(f"<{length // 4}I", data))
        assert m.unitree_crc(data) == _crc32_core_bitwise(words[:-1])


def test_lowcmd_is_sealed_and_fills_the_go2_constants():
    q = np.linspace(-1.0, 1.0, 12)
    message = m.lowcmd(q, np.zeros(12), np.full(12, 0.5), np.full(12, 25.0), np.full(12, 0.5))
    assert m.crc_ok(message)
    assert bytes(message.head) == b"\xfe\xef" and message.level_flag == 0xFF
    assert [c.mode for c in message.motor_cmd] == [1] * 20
    assert message.motor_cmd[0].q == pytest.approx(-1.0) and message.motor_cmd[11].kp == 25.0
    assert (message.motor_cmd[12].q, message.motor_cmd[12].dq, message.motor_cmd[12].kp) == (POS_STOP, VEL_STOP, 0)
    arrays = m.command_arrays(m.LowCmd_.deserialize(message.serialize()))
    assert arrays.crc_ok and np.allclose(arrays.q, q, atol=1e-7) and np.allclose(arrays.tau, 0.5)


def test_a_changed_field_breaks_the_crc_and_seal_mends_it():
    message = m.lowcmd(np.zeros(12), np.zeros(12), np.zeros(12), np.full(12, 25.0), np.full(12, 0.5))
    message.motor_cmd[4].kp = 80.0
    assert not m.crc_ok(message)
    m.seal(message)
    assert m.crc_ok(message) and m.crc_of(message) == message.crc


def test_lowstate_round_trip_as_arrays():
    q = np.linspace(-1.2, 1.2, 12)
    message = m.lowstate(
        tick=4321, q=q, dq=-q, tau=2 * q, quaternion=[0.9, 0.1, 0.2, 0.3], gyroscope=[0.1, -0.2, 0.3],
        accelerometer=[0.0, 0.5, 9.8], rpy=[0.0, 0.0, 0.1], foot_force=[12.4, 40000, -5, 0], remote=b"\x00\x00\x04",
    )  # fmt: skip
    r = m.reading(m.LowState_.deserialize(message.serialize()), received=7.0)
    assert r.crc_ok and r.tick == 4321 and r.received == 7.0
    assert np.allclose(r.q, q, atol=1e-6) and np.allclose(r.dq, -q, atol=1e-6) and np.allclose(r.tau, 2 * q, atol=1e-6)
    assert np.allclose(r.quaternion, [0.9, 0.1, 0.2, 0.3]) and np.allclose(r.accelerometer, [0.0, 0.5, 9.8])
    assert r.foot_force.tolist() == [12.0, 32767.0, -5.0, 0.0]  # int16, saturated
    assert r.remote[:3] == b"\x00\x00\x04" and len(r.remote) == 40
