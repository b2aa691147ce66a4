"""The Go2's SDK2 messages (``unitree_go`` IDL: ``LowCmd_``, ``LowState_`` and their parts), declared field for field
for CycloneDDS's Python binding so that DDS matches them with the robot's types, with a ``struct`` codec byte-equal to
the binding's (:class:`FixedLayout`) and the CRC the robot checks.

Why: docs/deploy_sdk2.md, *Which SDK: the unitree_go types on CycloneDDS 0.10.2*.
"""

import binascii
import functools
import struct
import typing
from dataclasses import dataclass

import cyclonedds.idl as idl
import cyclonedds.idl.annotations as annotate
import cyclonedds.idl.types as types
import numpy as np

from .figures import LEVEL_FLAG_LOW, LOWCMD_HEAD, MOTOR_MODE_SERVO, MOTOR_SLOTS, POS_STOP, REMOTE_BYTES, VEL_STOP

_XCDR1_LE = b"\x00\x01"
"""Encapsulation header of XCDR1 little-endian data (the first two of its four bytes)."""


class FixedLayout:
    """What every message class gets (copied in by :func:`fixed_layout`, not inherited: CycloneDDS would publish a
    base class as an XTypes base type, and the robot's types have none): CycloneDDS's serialisation for any
    encoding, a ``struct``-based one for XCDR1 little-endian (the encoding both sides use here), about 10x faster
    in Python.

    A message decoded that way (or made by :meth:`from_values`) holds its flat leaf values only and builds its
    field objects the first time a field is read or set, so a reader that only wants arrays never builds them."""

    @classmethod
    def from_values(cls, values):
        """A message of this type from its leaf values in declaration order (see :class:`Layout`)."""
        message = cls.__new__(cls)
        message.__dict__["_values"] = tuple(values)
        return message

    def values(self) -> tuple:
        """The leaf values in declaration order."""
        values = self.__dict__.get("_values")
        return values if values is not None else tuple(layout_of(type(self)).flatten(self))

    def _materialize(self) -> None:
        values = self.__dict__.pop("_values")
        self.__dict__.update(layout_of(type(self)).build(values).__dict__)

    def __getattr__(self, name: str):
        if name.startswith("__") or "_values" not in self.__dict__:
            raise AttributeError(name)
        self._materialize()
        return getattr(self, name)

    def __setattr__(self, name: str, value) -> None:
        # only a field's change needs the fields: CycloneDDS's reader sets ``sample_info`` on every sample it takes
        if "_values" in self.__dict__ and name in self.__dataclass_fields__:
            self._materialize()
        object.__setattr__(self, name, value)

    def serialize(self, buffer=None, endianness=None, use_version_2=None) -> bytes:
        if buffer is None and endianness in (None, idl.Endianness.Little) and not use_version_2:
            return _XCDR1_LE + b"\x00\x00" + layout_of(type(self)).wire.pack(*self.values())
        if "_values" in self.__dict__:
            self._materialize()
        return idl.IdlStruct.serialize(self, buffer=buffer, endianness=endianness, use_version_2=use_version_2)

    @classmethod
    def deserialize(cls, data: bytes, has_header: bool = True, use_version_2=None):
        if has_header and not use_version_2 and bytes(data[:2]) == _XCDR1_LE:
            return cls.from_values(layout_of(cls).wire.unpack_from(data, 4))
        return cls.__idl__.deserialize(data, has_header=has_header, use_version_2=use_version_2)


def fixed_layout(cls):
    """Class decorator: give an IDL struct the methods of :class:`FixedLayout`."""
    for name in ("from_values", "values", "_materialize", "__getattr__", "__setattr__", "serialize", "deserialize"):
        setattr(cls, name, FixedLayout.__dict__[name])
    return cls


# --- the unitree_go IDL ----------------------------------------------------------------------------------------------
def unitree_go(name: str, fields: dict):
    """The ``unitree_go::msg::dds_::<name>`` struct: ``fields`` in declaration order, ``@final``, sequential member
    ids, as Unitree's IDL declares them; with the fast codec."""
    cls = idl.make_idl_struct(name, f"unitree_go.msg.dds_.{name}", fields)
    return fixed_layout(annotate.final(annotate.autoid("sequential")(cls)))


u8, i8, u16, i16, u32, i32, f32 = (
    types.uint8,
    types.int8,
    types.uint16,
    types.int16,
    types.uint32,
    types.int32,
    types.float32,
)
array = types.array

HEADER = {
    "head": array[u8, 2],
    "level_flag": u8,
    "frame_reserve": u8,
    "sn": array[u32, 2],
    "version": array[u32, 2],
    "bandwidth": u16,
}
"""The fields LowCmd_ and LowState_ begin with."""

MotorCmd_ = unitree_go(
    "MotorCmd_", {"mode": u8, "q": f32, "dq": f32, "tau": f32, "kp": f32, "kd": f32, "reserve": array[u32, 3]}
)
BmsCmd_ = unitree_go("BmsCmd_", {"off": u8, "reserve": array[u8, 3]})
LowCmd_ = unitree_go(
    "LowCmd_",
    {
        **HEADER,
        "motor_cmd": array[MotorCmd_, 20],
        "bms_cmd": BmsCmd_,
        "wireless_remote": array[u8, 40],
        "led": array[u8, 12],
        "fan": array[u8, 2],
        "gpio": u8,
        "reserve": u32,
        "crc": u32,
    },
)
IMUState_ = unitree_go(
    "IMUState_",
    {
        "quaternion": array[f32, 4],
        "gyroscope": array[f32, 3],
        "accelerometer": array[f32, 3],
        "rpy": array[f32, 3],
        "temperature": u8,
    },
)
MotorState_ = unitree_go(
    "MotorState_",
    {
        "mode": u8,
        **{key: f32 for key in ("q", "dq", "ddq", "tau_est", "q_raw", "dq_raw", "ddq_raw")},
        "temperature": u8,
        "lost": u32,
        "reserve": array[u32, 2],
    },
)
BmsState_ = unitree_go(
    "BmsState_",
    {
        **{key: u8 for key in ("version_high", "version_low", "status", "soc")},
        "current": i32,
        "cycle": u16,
        "bq_ntc": array[u8, 2],
        "mcu_ntc": array[u8, 2],
        "cell_vol": array[u16, 15],
    },
)
LowState_ = unitree_go(
    "LowState_",
    {
        **HEADER,
        "imu_state": IMUState_,
        "motor_state": array[MotorState_, 20],
        "bms_state": BmsState_,
        "foot_force": array[i16, 4],
        "foot_force_est": array[i16, 4],
        "tick": u32,
        "wireless_remote": array[u8, 40],
        "bit_flag": u8,
        "adc_reel": f32,
        "temperature_ntc1": u8,
        "temperature_ntc2": u8,
        "power_v": f32,
        "power_a": f32,
        "fan_frequency": array[u16, 4],
        "reserve": u32,
        "crc": u32,
    },
)


# --- fixed layouts ----------------------------------------------------------------------------------------------------
_CODES = {"uint8": "B", "int8": "b", "uint16": "H", "int16": "h", "uint32": "I", "int32": "i", "float32": "f"}
"""IDL primitive -> ``struct`` code (all of them have size = alignment)."""


@dataclass(frozen=True)
class _Field:
    name: str
    code: str | None
    """``struct`` code of a primitive (or of an array's elements); ``None`` for a struct."""
    length: int | None
    """Array length; ``None`` for a single value."""
    struct: type | None
    """Nested struct type (or an array's element type)."""


@functools.cache
def _fields(cls) -> list[_Field]:
    out = []
    for name, hint in typing.get_type_hints(cls, include_extras=True).items():
        if isinstance(hint, type) and issubclass(hint, idl.IdlStruct):
            out.append(_Field(name, None, None, hint))
            continue
        base, meta = typing.get_args(hint)[:2]
        if isinstance(meta, str):
            out.append(_Field(name, _CODES[meta], None, None))
        elif isinstance(meta, types.array):
            sub = meta.subtype
            if isinstance(sub, type) and issubclass(sub, idl.IdlStruct):
                out.append(_Field(name, None, meta.length, sub))
            else:
                out.append(_Field(name, _CODES[typing.get_args(sub)[1]], meta.length, None))
        else:
            raise TypeError(f"{cls.__name__}.{name}: unsupported IDL type {hint!r}")
    return out


@functools.cache
def _c_shape(cls) -> tuple[int, int]:
    """(size, alignment) of a struct in C: members at natural alignment, size padded to the largest alignment."""
    offset, align = 0, 1
    for field in _fields(cls):
        size, item_align = _c_shape(field.struct) if field.struct else (struct.calcsize(field.code),) * 2
        offset += -offset % item_align
        offset += size * (field.length or 1)
        align = max(align, item_align)
    return offset + (-offset % align), align


class Layout:
    """The fixed layouts of one message type: ``wire`` (XCDR1 payload after the 4-byte header) and ``c`` (the C
    struct) as ``struct.Struct`` formats over the same flat list of leaf values (declaration order)."""

    def __init__(self, cls):
        self.cls = cls
        wire, c, paths = ["<"], ["<"], []
        self._codes(cls, wire, [0], c, [0], paths, "")
        self.paths = tuple(paths)
        """Leaf names in declaration order, e.g. ``motor_cmd[3].kp``."""
        self.index = {path: i for i, path in enumerate(self.paths)}
        """Leaf name -> position in the flat values."""
        self.wire = struct.Struct("".join(wire))
        self.c = struct.Struct("".join(c))
        size, _ = _c_shape(cls)
        if self.c.size != size:  # the C form ends with the struct's tail padding
            raise AssertionError(f"{cls.__name__}: C layout {self.c.size} bytes, expected {size}")
        self.template = tuple(0 for _ in self.paths)
        """All-zero leaf values."""

    def _codes(self, cls, wire, wire_at, c, c_at, paths, prefix) -> None:
        """Append the formats and leaf names of ``cls``'s fields; ``wire_at`` / ``c_at`` hold the running
        offsets."""
        c_start = c_at[0]
        for field in _fields(cls):
            for k in range(field.length or 1):
                name = f"{prefix}{field.name}" + (f"[{k}]" if field.length else "")
                if field.struct:
                    pad = -c_at[0] % _c_shape(field.struct)[1]  # a C struct starts at its alignment
                    if pad:
                        c.append(f"{pad}x")
                        c_at[0] += pad
                    self._codes(field.struct, wire, wire_at, c, c_at, paths, name + ".")
                    continue
                paths.append(name)
                size = struct.calcsize(field.code)
                for parts, at in ((wire, wire_at), (c, c_at)):
                    pad = -at[0] % size
                    parts.append(f"{pad}x{field.code}" if pad else field.code)
                    at[0] += pad + size
        size, _ = _c_shape(cls)
        tail = c_start + size - c_at[0]
        if tail:
            c.append(f"{tail}x")
            c_at[0] += tail

    def flatten(self, message) -> list:
        """The leaf values of ``message`` in declaration order."""
        out: list = []
        _flatten(message, out)
        return out

    def build(self, values) -> typing.Any:
        """A message of this type from its leaf values."""
        return _build(self.cls, iter(values))

    def indices(self, pattern: str, count: int) -> list[int]:
        """Positions of ``pattern.format(i)`` for ``i < count``, e.g. ``("motor_cmd[{}].q", 12)``."""
        return [self.index[pattern.format(i)] for i in range(count)]


def _flatten(message, out: list) -> None:
    for field in _fields(type(message)):
        value = getattr(message, field.name)
        if field.struct is None:
            out.extend(value) if field.length else out.append(value)
        else:
            for element in value if field.length else (value,):
                _flatten(element, out)


def _build(cls, values):
    kwargs = {}
    for field in _fields(cls):
        if field.struct is None and field.code == "B" and field.length:  # as CycloneDDS decodes octet arrays
            kwargs[field.name] = bytes(next(values) for _ in range(field.length))
            continue
        items = [
            next(values) if field.struct is None else _build(field.struct, values) for _ in range(field.length or 1)
        ]
        kwargs[field.name] = items if field.length else items[0]
    return cls(**kwargs)


@functools.cache
def layout_of(cls) -> Layout:
    """The :class:`Layout` of a message type."""
    return Layout(cls)


# --- CRC --------------------------------------------------------------------------------------------------------------
_REVERSED_BITS = bytes(int(f"{i:08b}"[::-1], 2) for i in range(256))


def crc32_mpeg2(data: bytes) -> int:
    """CRC-32/MPEG-2 of ``data`` (polynomial 0x04C11DB7, init 0xFFFFFFFF, no reflection, no final XOR), computed
    with zlib's reflected CRC-32 on bit-reversed bytes (C speed instead of a Python bit loop)."""
    reflected = binascii.crc32(bytes(data).translate(_REVERSED_BITS)) ^ 0xFFFFFFFF
    return int(f"{reflected:032b}"[::-1], 2)


def unitree_crc(c_bytes: bytes) -> int:
    """Unitree's ``crc32_core`` of a message's C form: its little-endian 32-bit words but the last one."""
    words = np.frombuffer(bytes(c_bytes), dtype="<u4")[:-1]
    return crc32_mpeg2(words.astype(">u4").tobytes())


def leaf(message, path: str):
    """One leaf value of a message by name (``"crc"``, ``"tick"``, ``"motor_cmd[0].kp"``), without building its
    field objects."""
    return message.values()[layout_of(type(message)).index[path]]


def crc_of(message) -> int:
    """The CRC a Go2 expects in ``message.crc`` (``LowCmd_`` or ``LowState_``)."""
    return unitree_crc(layout_of(type(message)).c.pack(*message.values()))


def seal(message):
    """Set ``message.crc``; returns the message."""
    message.crc = crc_of(message)
    return message


def crc_ok(message) -> bool:
    """Whether ``message.crc`` matches its content."""
    return leaf(message, "crc") == crc_of(message)


def _sealed(cls, values: list):
    """A message from leaf values, its ``crc`` set."""
    layout = layout_of(cls)
    values[layout.index["crc"]] = unitree_crc(layout.c.pack(*values))
    return cls.from_values(values)


class _Slots:
    """Positions of the fields the deploy path reads and writes, per message type (computed once)."""

    def __init__(self):
        cmd, state = layout_of(LowCmd_), layout_of(LowState_)
        self.cmd = {key: cmd.indices(f"motor_cmd[{{}}].{key}", MOTOR_SLOTS) for key in ("mode", *_PD_KEYS)}
        self.cmd_template = list(cmd.template)
        for i, value in zip(cmd.indices("head[{}]", 2), LOWCMD_HEAD, strict=True):
            self.cmd_template[i] = value
        self.cmd_template[cmd.index["level_flag"]] = LEVEL_FLAG_LOW
        for i in range(MOTOR_SLOTS):
            self.cmd_template[self.cmd["mode"][i]] = MOTOR_MODE_SERVO
            self.cmd_template[self.cmd["q"][i]] = POS_STOP
            self.cmd_template[self.cmd["dq"][i]] = VEL_STOP
        motor = {key: state.indices(f"motor_state[{{}}].{key}", MOTOR_SLOTS) for key in ("mode", "q", "dq", "tau_est")}
        self.state = {
            **motor,
            "tick": state.index["tick"],
            "quaternion": state.indices("imu_state.quaternion[{}]", 4),
            "gyroscope": state.indices("imu_state.gyroscope[{}]", 3),
            "accelerometer": state.indices("imu_state.accelerometer[{}]", 3),
            "rpy": state.indices("imu_state.rpy[{}]", 3),
            "foot_force": state.indices("foot_force[{}]", 4),
            "remote": state.indices("wireless_remote[{}]", REMOTE_BYTES),
        }
        self.state_template = list(state.template)
        for i, value in zip(state.indices("head[{}]", 2), LOWCMD_HEAD, strict=True):
            self.state_template[i] = value
        self.state_template[state.index["level_flag"]] = LEVEL_FLAG_LOW


_PD_KEYS = ("q", "dq", "tau", "kp", "kd")
"""``MotorCmd_`` fields of the PD law, in :func:`lowcmd`'s argument order."""


@functools.cache
def _slots() -> _Slots:
    return _Slots()


def _put(values: list, positions: list[int], numbers) -> None:
    numbers = numbers.tolist() if isinstance(numbers, np.ndarray) else numbers
    for i, value in zip(positions, numbers, strict=False):
        values[i] = float(value)


def lowcmd(q, dq, tau, kp, kd) -> LowCmd_:
    """A sealed ``LowCmd_``: per motor in SDK2 order (``[12]`` each), the PD law's target position [rad], target
    speed [rad/s], feed-forward torque [N m], kp [N m/rad] and kd [N m s/rad]; the unused slots stopped."""
    slots = _slots()
    values = list(slots.cmd_template)
    for key, numbers in zip(_PD_KEYS, (q, dq, tau, kp, kd), strict=True):
        _put(values, slots.cmd[key], numbers)
    return _sealed(LowCmd_, values)


@dataclass
class MotorCommand:
    """One ``LowCmd_`` as arrays over the first ``n`` motors (SDK2 order)."""

    q: np.ndarray
    """Target positions [rad]."""
    dq: np.ndarray
    """Target speeds [rad/s]."""
    tau: np.ndarray
    """Feed-forward torques [N m]."""
    kp: np.ndarray
    """Position gains [N m/rad]."""
    kd: np.ndarray
    """Speed gains [N m s/rad]."""
    mode: np.ndarray
    """``MotorCmd_.mode`` per motor."""
    crc_ok: bool
    """Whether the CRC matched."""


def command_arrays(message: LowCmd_, n: int = 12) -> MotorCommand:
    """The first ``n`` motors' commands of a ``LowCmd_`` as arrays, and whether its CRC is intact."""
    values, slots = message.values(), _slots()

    def pick(key: str) -> np.ndarray:
        return np.array([values[i] for i in slots.cmd[key][:n]], dtype=np.float64)

    return MotorCommand(*(pick(key) for key in _PD_KEYS), mode=pick("mode"), crc_ok=crc_ok(message))


@dataclass
class RobotReading:
    """One ``LowState_`` as arrays (per motor in SDK2 order), with when it arrived."""

    tick: int
    """The robot's millisecond counter."""
    q: np.ndarray
    """``[12]`` joint positions [rad]."""
    dq: np.ndarray
    """``[12]`` joint speeds [rad/s]."""
    tau: np.ndarray
    """``[12]`` estimated joint torques [N m]."""
    quaternion: np.ndarray
    """``[4]`` trunk orientation (w, x, y, z)."""
    gyroscope: np.ndarray
    """``[3]`` trunk angular velocity, trunk frame [rad/s]."""
    accelerometer: np.ndarray
    """``[3]`` specific force, trunk frame [m/s^2] (+9.81 up at rest)."""
    foot_force: np.ndarray
    """``[4]`` foot sensors (FR, FL, RR, RL), the robot's own units."""
    remote: bytes
    """``wireless_remote`` (40 bytes)."""
    crc_ok: bool
    """Whether the CRC matched."""
    received: float = 0.0
    """``time.monotonic()`` when it arrived [s]."""


def reading(message: LowState_, n: int = 12, received: float = 0.0) -> RobotReading:
    """A ``LowState_`` as arrays over the first ``n`` motors."""
    values, slots = message.values(), _slots().state

    def pick(key: str, count: int | None = None) -> np.ndarray:
        return np.array([values[i] for i in slots[key][:count]], dtype=np.float64)

    return RobotReading(
        tick=int(values[slots["tick"]]),
        q=pick("q", n),
        dq=pick("dq", n),
        tau=pick("tau_est", n),
        quaternion=pick("quaternion"),
        gyroscope=pick("gyroscope"),
        accelerometer=pick("accelerometer"),
        foot_force=pick("foot_force"),
        remote=bytes(values[i] for i in slots["remote"]),
        crc_ok=crc_ok(message),
        received=received,
    )


def lowstate(
    tick: int, q, dq, tau, quaternion, gyroscope, accelerometer, rpy, foot_force, remote: bytes = b""
) -> LowState_:
    """A sealed ``LowState_`` as a Go2 fills it (per motor in SDK2 order; ``foot_force`` FR, FL, RR, RL)."""
    slots = _slots()
    values, at = list(slots.state_template), slots.state
    values[at["tick"]] = int(tick) & 0xFFFFFFFF
    for key, numbers in (
        ("quaternion", quaternion),
        ("gyroscope", gyroscope),
        ("accelerometer", accelerometer),
        ("rpy", rpy),
        ("q", q),
        ("dq", dq),
        ("tau_est", tau),
    ):
        _put(values, at[key], numbers)
    for i in at["mode"][: len(q)]:
        values[i] = MOTOR_MODE_SERVO
    for i, force in zip(at["foot_force"], foot_force, strict=True):
        values[i] = int(min(max(round(float(force)), -32768), 32767))
    for i, byte in zip(at["remote"], bytes(remote).ljust(REMOTE_BYTES, b"\x00"), strict=False):
        values[i] = byte
    return _sealed(LowState_, values)
