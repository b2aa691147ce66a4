"""Playback without a simulator: the viewer choice for every flag combination, steering from keys and controls,
terminal key input through a real pseudo-terminal, viser recordings read back, and the upstream viewer defect."""

from __future__ import annotations

import json
import os
import pty
import socket
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from canary_fixtures import upstream_canary

from go2_locomotion.errors import UsageError
from go2_locomotion.playback import recording
from go2_locomotion.playback.play import build_parser
from go2_locomotion.playback.viewer import plan_viewers
from go2_locomotion.robot.steering import Steering, TerminalKeys
from go2_locomotion.training.cli import parse_args

ROOT = Path(__file__).parents[2]


def play_args(*argv: str):
    args, _ = parse_args(build_parser(), ["--task", "Go2-Flat", *argv])
    return args


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# -- which viewers a play command runs ------------------------------------------------------------------------


def test_no_viewer_flags_leave_the_task_config_alone():
    plan = plan_viewers(play_args())
    assert plan.visualizers is None and plan.configs == [] and plan.record is None


def test_viser_gets_the_package_visualizer_on_the_given_port_and_address():
    from go2_locomotion.playback.viser_visualizer import Go2ViserVisualizer, Go2ViserVisualizerCfg

    port = free_port()
    plan = plan_viewers(play_args("--viz", "viser", "--viser_port", str(port)))
    assert plan.visualizers == ["viser"]
    (cfg,) = plan.configs
    assert isinstance(cfg, Go2ViserVisualizerCfg) and cfg.class_type.endswith(":Go2ViserVisualizer")
    assert Go2ViserVisualizer.__name__ in cfg.class_type
    assert (cfg.port, cfg.bind_address, cfg.record_to_viser) == (port, "127.0.0.1", None)


def test_record_starts_the_viser_viewer_even_headless(tmp_path):
    plan = plan_viewers(
        play_args("--headless", "--record", str(tmp_path / "a.viser"), "--viser_port", str(free_port()))
    )
    assert plan.visualizers == ["viser"]
    assert plan.record == tmp_path / "a.viser" and plan.viser.record_to_viser == str(tmp_path / "a.viser")


@pytest.mark.parametrize(
    ("argv", "visualizers", "added_capture_viewer"),
    [
        (["--video"], ["newton_gl"], True),
        (["--video", "--headless"], ["newton_gl"], True),
        (["--video", "--viz", "viser", "--viser_port", str(free_port())], ["viser", "newton_gl"], True),
        (["--video", "--viz", "newton_gl"], ["newton_gl"], False),
    ],
)
def test_video_records_from_a_newton_viewer(argv, visualizers, added_capture_viewer):
    plan = plan_viewers(play_args(*argv))
    assert plan.visualizers == visualizers
    capture = [cfg for cfg in plan.configs if cfg.visualizer_type == "newton_gl"]
    assert bool(capture) == added_capture_viewer
    # the added viewer renders off-screen: no window on a workstation, none needed on a cluster node
    assert all(cfg.headless for cfg in capture)


def test_plan_is_written_into_the_launcher_arguments_and_the_config(tmp_path):
    from types import SimpleNamespace

    args = play_args("--video", "--viz", "viser", "--viser_port", str(free_port()))
    env_cfg = SimpleNamespace(sim=SimpleNamespace(visualizer_cfgs=None))
    plan_viewers(args).apply(args, env_cfg)
    assert args.visualizer == ["viser", "newton_gl"]
    assert [cfg.visualizer_type for cfg in env_cfg.sim.visualizer_cfgs] == ["viser", "newton_gl"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--record", "run.mp4"], "must end in .viser"),
        (["--record", "/proc/nope/run.viser"], "--record /proc/nope: cannot create folders in /proc"),
        (["--viz", "viser", "--viser_port", "70000"], "--viser_port 70000: accepted are 1..65535"),
        (["--video", "--frontend", "warp"], "--video records with the torch frontend only"),
        (["--video", "--viz", "kit"], "--viz kit needs Isaac Sim"),
        (["--viz", "rerun"], "--viz rerun needs rerun-sdk"),
    ],
)
def test_impossible_combinations_are_named(argv, message):
    with pytest.raises(UsageError, match=message.replace(".", r"\.")):
        plan_viewers(play_args(*argv))


def test_a_busy_port_is_refused_before_anything_starts():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(UsageError, match=f"--viser_port {port} --viser_bind 127.0.0.1: cannot listen there"):
            plan_viewers(play_args("--viz", "viser", "--viser_port", str(port)))


def test_video_without_moviepy_says_what_to_install(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "moviepy" else real(name, *a))
    with pytest.raises(UsageError, match="--video needs moviepy"):
        plan_viewers(play_args("--video"))


def test_play_refuses_a_bad_recording_path_in_one_line_and_writes_nothing(tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "play.py"), "--task", "Go2-Flat", "--record", "run.mp4"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["error: --record run.mp4: the recording file must end in .viser"]
    assert list(tmp_path.iterdir()) == []


# -- steering -------------------------------------------------------------------------------------------------


class FakeTerm:
    """What :class:`Steering` uses of the command term: its ranges, steer and release (recorded)."""

    def __init__(self):
        self.calls = []

    def ranges(self):
        return (-1.0, 1.0), (-0.5, 0.5), (-1.0, 1.0)

    def steer(self, velocity, env_ids):
        self.calls.append(("steer", [round(v, 6) for v in velocity], env_ids))

    def release(self, env_ids):
        self.calls.append(("release", env_ids))


def steering():
    log = []
    return Steering(FakeTerm(), num_envs=4, log=log.append), log


def test_keys_change_one_axis_a_step_at_a_time():
    steer, log = steering()
    for char in "wwwqd":
        assert steer.key(char)
    assert steer.apply()
    # 3 x 0.1 m/s forward, one 0.1 m/s to the right (lateral is left-positive), one 0.2 rad/s left turn
    assert steer.term.calls == [("steer", [0.3, -0.1, 0.2], None)]
    assert log == ["[go2] steering all robots: forward +0.30 m/s, lateral -0.10 m/s, yaw rate +0.20 rad/s"]
    assert not steer.apply()  # nothing new: nothing written


def test_commands_stay_within_what_the_policy_was_trained_on():
    steer, _ = steering()
    for _ in range(20):
        steer.key("a")
    steer.set_axis(0, 7.0)
    steer.apply()
    assert steer.term.calls[-1] == ("steer", [1.0, 0.5, 0.0], None)


def test_stop_release_and_choosing_a_robot():
    steer, log = steering()
    steer.key("3")
    steer.key("w")
    steer.apply()
    steer.key(" ")
    steer.apply()
    steer.key("r")
    steer.apply()
    steer.key("9")  # there are 4 robots: ignored
    steer.key("*")
    steer.key("s")
    steer.apply()
    assert steer.term.calls == [
        ("steer", [0.1, 0.0, 0.0], [3]),
        ("steer", [0.0, 0.0, 0.0], [3]),
        ("release", [3]),
        ("steer", [-0.1, 0.0, 0.0], None),
    ]
    assert log[2] == "[go2] steering robot 3: random commands"
    assert not steer.key("x")


def test_follow_tracks_the_steered_robot():
    steer, log = steering()
    assert steer.followed_robot() is None
    steer.key("f")
    assert steer.followed_robot() == 0
    assert not steer.apply()  # the camera, not the command
    assert log == ["[go2] camera follows robot 0"] and steer.term.calls == []
    steer.key("2")
    assert steer.followed_robot() == 2


def test_terminal_keys_through_a_real_pseudo_terminal():
    controller, terminal = pty.openpty()
    try:
        echo_before = termios.tcgetattr(terminal)[3] & termios.ECHO
        with TerminalKeys(terminal) as keys:
            assert keys.active
            assert not termios.tcgetattr(terminal)[3] & termios.ECHO  # no echo, no Enter needed
            assert keys.read() == ""
            os.write(controller, b"wq ")
            import time

            time.sleep(0.1)
            assert keys.read() == "wq "
        assert termios.tcgetattr(terminal)[3] & termios.ECHO == echo_before  # the terminal is given back
    finally:
        os.close(controller)
        os.close(terminal)


def test_terminal_keys_do_nothing_without_a_terminal(tmp_path):
    with open(tmp_path / "f", "w") as f, TerminalKeys(f.fileno()) as keys:
        assert not keys.active and keys.read() == ""


# -- recordings -----------------------------------------------------------------------------------------------


@pytest.fixture
def viser_recording(tmp_path) -> Path:
    """A real viser recording: a box moved over 4 frames of 0.02 s."""
    import viser

    server = viser.ViserServer(host="127.0.0.1", port=free_port(), verbose=False)
    try:
        serializer = server.get_scene_serializer()
        box = server.scene.add_box("/box", color=(200, 50, 50), dimensions=(0.4, 0.2, 0.1))
        for i in range(4):
            box.position = (0.1 * i, 0.0, 0.0)
            serializer.insert_sleep(0.02)
        path = tmp_path / "box.viser"
        path.write_bytes(serializer.serialize())
    finally:
        server.stop()
    return path


def test_a_recording_is_read_back(viser_recording):
    info = recording.summarize(viser_recording)
    assert info.duration_s == pytest.approx(0.08)
    assert info.frames == 4  # the box at 4 moments (its creation shares the first)
    assert info.viser_version


def test_a_recording_becomes_one_html_file(viser_recording, tmp_path):
    import base64

    page = recording.write_html(viser_recording, tmp_path / "box.html").read_text()
    assert base64.b64encode(viser_recording.read_bytes()).decode() in page
    assert page.index("__VISER_EMBED_DATA__") < page.index("</head>")


def test_view_recording_cli(viser_recording, tmp_path):
    script = [sys.executable, str(ROOT / "scripts" / "view_recording.py")]
    info = subprocess.run([*script, str(viser_recording), "--info"], capture_output=True, text=True, check=True)
    assert json.loads(info.stdout)["frames"] == 4
    # --html into a folder that does not exist yet: created
    html = tmp_path / "share" / "today" / "box.html"
    subprocess.run([*script, str(viser_recording), "--html", str(html)], capture_output=True, text=True, check=True)
    assert "__VISER_EMBED_DATA__" in html.read_text()
    (tmp_path / "junk.viser").write_bytes(b"not a recording")
    for bad, message in (
        ("junk.viser", "not a viser recording"),
        ("missing.viser", "no such recording"),
    ):
        result = subprocess.run([*script, str(tmp_path / bad)], capture_output=True, text=True)
        assert result.returncode == 2 and message in result.stderr and len(result.stderr.splitlines()) == 1


# -- the upstream viewer defect -------------------------------------------------------------------------------


@upstream_canary(
    "isaaclab 3.0.0's viser viewer calls self._to_numpy, which newton 1.6.1's ViewerViser no longer has",
    "go2_locomotion/compat/viser_viewer.py and its call",
)
def test_upstream_viser_viewer_draws_a_plane_without_to_numpy():
    """The canary of compat/viser_viewer.py: Isaac Lab's viser viewer draws a ground plane on the installed newton
    without the instance repair."""
    from go2_locomotion.compat import viser_viewer

    assert not viser_viewer.defect_present()


def test_a_dropped_visualizer_is_noticed_by_the_report_isaac_lab_logs():
    """Isaac Lab drops a visualizer whose step raised and says so only in a log record: recognised by its logger and
    format string, and the installed Isaac Lab is checked to still write it."""
    import logging

    from go2_locomotion.compat import private_api

    with private_api.VisualizerFailures() as failures:
        logger = logging.getLogger(private_api.VISUALIZER_LOGGER)
        logger.error(private_api.VISUALIZER_STEP_ERROR, "ViserVisualizer", AttributeError("a viewer defect"))
        logger.error("Error stepping visualizer 'X': typed by someone else")
        logging.getLogger("elsewhere").error(private_api.VISUALIZER_STEP_ERROR, "X", "y")
    assert failures.failures == ["Error stepping visualizer 'ViserVisualizer': a viewer defect"]
