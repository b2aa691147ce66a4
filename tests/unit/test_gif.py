"""The sim-to-sim animation (sim2sim/gif.py): a deferred recorder, which keeps poses in a real-time loop and renders
them when saved, gives the very frames of one that renders as it goes. Run in a child process: MuJoCo reads its
off-screen platform once, at import (go2_locomotion/offscreen.py picks it as the scripts do)."""

from __future__ import annotations

import json
import subprocess
import sys

CHILD = """
import json, sys
from go2_locomotion.offscreen import choose_mujoco_gl
choose_mujoco_gl()
import mujoco, numpy as np
from PIL import Image
from go2_locomotion.sim2sim.gif import GifRecorder

model = mujoco.MjModel.from_xml_string('''
<mujoco><worldbody><light pos="0 0 3"/><geom type="plane" size="3 3 0.1" rgba="0.5 0.5 0.5 1"/>
<body pos="0 0 0.3"><freejoint/><geom type="box" size="0.3 0.1 0.05" rgba="0.9 0.2 0.2 1"/></body>
</worldbody></mujoco>''')
data = mujoco.MjData(model)
folder = sys.argv[1]
now = GifRecorder(folder + "/now.gif", model, width=64, height=48, every=1)
later = GifRecorder(folder + "/later.gif", model, width=64, height=48, every=1, deferred=True)
for k in range(3):
    data.qpos[:3] = [0.4 * k, 0.1 * k, 0.3]
    data.qpos[3:7] = [np.cos(0.3 * k), 0.0, 0.0, np.sin(0.3 * k)]
    mujoco.mj_forward(model, data)
    now.capture(data)
    later.capture(data)
before = {"now": len(now.frames), "later": len(later.frames), "captured": later.captured}
later.save(0.02)
now.save(0.02)
print(json.dumps({
    **before,
    "rendered": len(later.frames),
    "equal": [bool(np.array_equal(a, b)) for a, b in zip(now.frames, later.frames)],
    "moved": not np.array_equal(now.frames[0], now.frames[2]),
    "gif_frames": Image.open(folder + "/later.gif").n_frames,
}))
"""


def test_deferred_frames_are_the_frames_rendered_as_it_goes(tmp_path):
    result = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    figures = json.loads(result.stdout.splitlines()[-1])
    # the deferred one keeps 3 poses and no frame until saved, then renders the same 3 frames
    assert (figures["now"], figures["later"], figures["captured"], figures["rendered"]) == (3, 0, 3, 3)
    assert figures["equal"] == [True, True, True] and figures["moved"] and figures["gif_frames"] == 3
