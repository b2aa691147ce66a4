"""scripts/play.py as people watch it: the viser page in a real browser (Debian's Chromium, headless, software
WebGL) draws the robots and steers them through the task's command term; a recording made without a browser has
every frame and opens in the browser without the simulator; ``--video`` writes a real MP4 on this CPU machine;
a viewer that fails ends playback with exit code 1."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BROWSER_ARGS = ["--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--no-sandbox"]
PLAY = [sys.executable, str(ROOT / "scripts" / "play.py"), "--task", "Go2-Flat", "--checkpoint", "pretrained"]
CPU = ["--device", "cpu"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (.ci/run installs it)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def playing(workdir: Path, *args: str, stdin=None):
    """scripts/play.py in the background; yields (process, lines so far: a list that fills as it prints)."""
    process = subprocess.Popen(
        [*PLAY, *CPU, *args],
        cwd=workdir,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: list[str] = []

    import threading

    reader = threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        yield process, lines
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
        reader.join(timeout=10)


def wait_for(lines: list[str], pattern: str, process, timeout: float = 400.0) -> re.Match:
    deadline = time.time() + timeout
    while time.time() < deadline:
        for line in list(lines):
            if match := re.search(pattern, line):
                return match
        if process.poll() is not None:
            break
        time.sleep(0.5)
    raise AssertionError(f"no line matching {pattern!r}; output:\n{''.join(lines)[-4000:]}")


def readout(page) -> dict[str, tuple[float, float]]:
    """The page's command panel readout: axis -> (command, measured), read from the DOM in one go (the panel is
    re-rendered as the robot moves)."""
    rows = page.evaluate(
        "() => [...document.querySelectorAll('table tr')].map(r => [...r.cells].map(c => c.innerText))"
    )
    table = {}
    for cells in rows:
        if len(cells) == 3 and "[" in cells[0]:
            with contextlib.suppress(ValueError):
                table[cells[0].split(" [")[0]] = (float(cells[1]), float(cells[2]))
    return table


def answered_readout(page, axis: str, command: float, sign: int, seconds: float = 90.0) -> tuple[float, float]:
    """Wait until the readout shows ``command`` on ``axis``, then until the measured velocity, as the median of the
    last 4 s of readouts (a trot's instantaneous body velocity swings within a stride), has the command's sign and
    exceeds a quarter metre per second; returns (shown command, that median), or the last median at the deadline.
    Wall-clock windows, not simulated time: under load ``--real-time`` runs slower than real time."""
    deadline = time.time() + seconds
    shown, window = None, []
    while time.time() < deadline:
        row = readout(page).get(axis)
        if row is not None and abs(row[0] - command) < 1e-6:
            shown = row[0]
            window = [*window, row[1]][-8:]  # 8 readouts, 0.5 s apart
            if len(window) == 8 and sign * float(np.median(window)) > 0.25:
                break
        time.sleep(0.5)
    if shown is None:
        raise AssertionError(f"the readout never showed {axis} command {command}: {readout(page)}")
    return shown, float(np.median(window))


def robot_pixels(shot_with: np.ndarray, shot_without: np.ndarray) -> int:
    return int((np.abs(shot_with.astype(int) - shot_without.astype(int)).sum(axis=-1) > 60).sum())


def screenshot(page) -> np.ndarray:
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(page.screenshot(timeout=120_000))).convert("RGB"))


def test_browser_draws_and_steers_the_robots(tmp_path):
    """A user opens the printed URL, sees the robots, drags the forward command up and then down: the command term
    takes each value (the play log says so) and the robot's measured forward velocity follows its sign."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    with (
        playing(tmp_path, "--num_envs", "2", "--viz", "viser", "--viser_port", str(port), "--real-time") as (
            process,
            lines,
        ),
        sync_playwright() as playwright,
    ):
        url = wait_for(lines, r"watch and steer at (http://\S+)", process).group(1)
        assert url == f"http://localhost:{port}"
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(url)
        page.get_by_text("Go2 command").wait_for(timeout=60_000)
        # follow robot 0, so it is in the middle of the picture
        page.get_by_label("follow").check()
        time.sleep(6.0)
        with_robots = screenshot(page)

        # the same view with the robots' shapes hidden (Isaac Lab's own marker panel): the empty scene
        page.get_by_text("Visualization Markers").click()
        page.get_by_label("Visual", exact=True).uncheck()
        time.sleep(3.0)
        empty = screenshot(page)
        page.get_by_label("Visual", exact=True).check()
        drawn = robot_pixels(with_robots, empty)
        assert drawn > 2000, f"only {drawn} pixels differ between the scene with and without robots"

        # the number box beside the forward slider (viser's slider row: label, slider, number)
        forward = (
            page.locator("label", has_text="forward [m/").locator("xpath=ancestor::div[2]").locator("input[type=text]")
        )
        for command, sign in ((0.8, +1), (-0.6, -1)):
            forward.fill(str(command))
            forward.press("Enter")
            wait_for(lines, re.escape(f"steering all robots: forward {command:+.2f} m/s"), process, timeout=60)
            shown, measured = answered_readout(page, "forward", command, sign)
            assert shown == pytest.approx(command)
            assert sign * measured > 0.25, f"commanded {command:+.2f} m/s forward, median {measured:+.2f} m/s"
        browser.close()
        assert process.poll() is None, "playback ended while the browser was connected:\n" + "".join(lines)[-3000:]
    assert "Error stepping visualizer" not in "".join(lines)


def test_recording_without_a_browser_opens_in_the_browser(tmp_path):
    """--record with nobody watching: every policy step is a frame; the file opens in the browser from
    scripts/view_recording.py's server (no simulator) and as one shared HTML file."""
    from playwright.sync_api import sync_playwright

    from go2_locomotion.playback import recording

    out = tmp_path / "walk" / "run.viser"  # a folder that does not exist yet: created before playback starts
    steps = 60
    result = subprocess.run(
        [*PLAY, *CPU, "--num_envs", "2", "--headless", "--record", str(out), "--num_steps", str(steps)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    info = recording.summarize(out)
    # one frame per policy step (0.02 s each), each with the scene's poses
    assert info.frames >= steps
    assert info.duration_s == pytest.approx(steps * 0.02, rel=0.05)
    assert f"{info.frames} frames" in result.stdout

    server, url = recording.serve(out, 0, "127.0.0.1")
    shared = recording.write_html(out, tmp_path / "walk.html")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
            for address in (url, shared.as_uri()):
                page = browser.new_page(viewport={"width": 640, "height": 360})
                page.goto(address)
                page.locator("canvas").first.wait_for(timeout=60_000)
                time.sleep(5.0)
                shot = screenshot(page)
                page.close()  # software WebGL: one animated page at a time
                assert shot.std() > 10, f"{address}: the recording's page is blank"
            browser.close()
    finally:
        server.shutdown()


def test_video_on_a_cpu_machine(tmp_path):
    """--video without --viz (and --headless): an off-screen Newton viewer; an MP4 of --video_length frames that is
    not blank and shows motion."""
    import imageio.v3 as iio

    result = subprocess.run(
        [*PLAY, *CPU, "--num_envs", "2", "--headless", "--video", "--video_length", "24"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    videos = sorted((tmp_path / "logs" / "pretrained" / "go2_flat" / "videos" / "play").glob("*.mp4"))
    assert videos, result.stdout[-3000:]
    frames = iio.imread(max(videos, key=lambda p: p.stat().st_mtime))
    assert frames.shape[0] == 24 and frames.shape[-1] == 3
    assert frames[0].std() > 10, "the first frame is blank"
    assert np.abs(frames[-1].astype(int) - frames[0].astype(int)).mean() > 0.1, "nothing moves"


def test_a_failing_viewer_ends_playback_with_an_error(tmp_path, monkeypatch):
    """Isaac Lab drops a visualizer whose step raised and would let playback finish quietly: play says so, exit 1."""
    from go2_locomotion.playback import play, viser_visualizer

    def broken(self):
        raise AttributeError("a viewer defect")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(viser_visualizer.Go2ViserVisualizer, "draw_frame", broken)
    argv = ["--task", "Go2-Flat", "--checkpoint", "pretrained", *CPU, "--num_envs", "1", "--num_steps", "50"]
    code = play.main([*argv, "--record", str(tmp_path / "x.viser"), "--viser_port", str(free_port())])
    assert code == 1


def test_a_steered_robot_keeps_its_command_through_resampling_and_resets():
    """The task's command term: a steered robot is not resampled (every 0.1 s here), keeps its command through an
    episode reset, is clamped to the training ranges; released, it draws random commands again. Unsteered robots
    keep drawing."""
    import torch
    from isaac_env import make_env

    overrides = ["env.commands.base_velocity.resampling_time_range=[0.1,0.1]"]
    with make_env("Go2-Flat", num_envs=3, overrides=overrides) as env:
        env.reset()
        term = env.unwrapped.command_manager.get_term("base_velocity")
        applied = term.steer([0.5, 3.0, -0.3], [1])
        assert applied.tolist() == pytest.approx([0.5, 1.0, -0.3])  # lateral clamped to the trained +-1 m/s
        others = term.command[[0, 2]].clone()
        actions = torch.zeros(env.unwrapped.num_envs, 12)
        for _ in range(15):  # 0.3 s: three resampling periods
            env.step(actions)
        assert term.command[1].tolist() == pytest.approx([0.5, 1.0, -0.3])
        assert not term.is_heading_env[1] and not term.is_standing_env[1]
        assert not torch.equal(term.command[[0, 2]], others)
        env.unwrapped.reset(env_ids=torch.tensor([1]))
        assert term.command[1].tolist() == pytest.approx([0.5, 1.0, -0.3])
        policy_obs = env.unwrapped.observation_manager.compute()["policy"]
        assert policy_obs[1, 9:12].tolist() == pytest.approx([0.5, 1.0, -0.3])  # what the policy sees
        term.release([1])
        assert not term.steered.any()
        assert term.command[1].tolist() != pytest.approx([0.5, 1.0, -0.3])


def test_terminal_keys_steer_headless_playback(tmp_path):
    """Keys typed into the terminal that runs play.py (a real pseudo-terminal here) steer the robots with no viewer:
    two w and one q are 0.2 m/s forward and 0.2 rad/s left, printed as the command term takes them."""
    import pty

    controller, terminal = pty.openpty()
    try:
        with playing(tmp_path, "--num_envs", "2", "--headless", "--real-time", stdin=terminal) as (process, lines):
            wait_for(lines, re.escape("steer from this terminal"), process)
            for key in b"wwq":
                os.write(controller, bytes([key]))
                time.sleep(0.3)
            expected = "steering all robots: forward +0.20 m/s, lateral +0.00 m/s, yaw rate +0.20 rad/s"
            wait_for(lines, re.escape(expected), process, 60)
            process.send_signal(signal.SIGINT)
            # Ctrl-C ends playback normally; the generous bound is for a loaded 2-core machine (the exit closes the
            # simulator), a hang still fails
            try:
                code = process.wait(timeout=240)
            except subprocess.TimeoutExpired:
                raise AssertionError("playback did not end after Ctrl-C:\n" + "".join(lines)[-3000:]) from None
            assert code == 0, "".join(lines)[-3000:]
    finally:
        os.close(controller)
        os.close(terminal)
