"""The stumble penalty (``presets=stumble``, :func:`go2_locomotion.tasks.mdp.feet_stumble`): a robot is charged while
any foot pushes horizontally more than ``ratio`` times vertically, as a foot striking a riser does."""

from types import SimpleNamespace

import pytest
import torch

from go2_locomotion.tasks.mdp import feet_stumble


def _env(forces):
    """Contact forces [N] of robots' bodies ``[N, B, 3]``; the feet are bodies 1 and 2 (body 0 is the trunk)."""
    data = SimpleNamespace(net_forces_w=SimpleNamespace(torch=torch.tensor(forces, dtype=torch.float32)))
    return SimpleNamespace(scene=SimpleNamespace(sensors={"contact_forces": SimpleNamespace(data=data)}))


FEET = SimpleNamespace(name="contact_forces", body_ids=[1, 2])


def test_a_foot_pushing_sideways_more_than_five_times_down_is_a_stumble_worked_by_hand():
    """Robot 0: a foot on a tread (3, 4, 40): |F_xy| 5 < 5 x 40. Robot 1: a foot on a riser's face (30, 40, 9):
    |F_xy| 50 > 45. Robot 2: 50 against exactly 5 x 10 = 50: not more, no stumble. Robot 3: the trunk (body 0)
    pushes sideways, the feet are in the air (0 force): no stumble."""
    forces = [
        [[0, 0, 0], [3, 4, 40], [0, 0, 50]],
        [[0, 0, 0], [0, 0, 60], [30, 40, 9]],
        [[0, 0, 0], [30, 40, -10], [0, 0, 0]],
        [[90, 0, 1], [0, 0, 0], [0, 0, 0]],
    ]
    assert feet_stumble(_env(forces), FEET).tolist() == [0.0, 1.0, 0.0, 0.0]
    assert feet_stumble(_env(forces), FEET, ratio=0.1).tolist() == [1.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize("task", ["Go2-Rough", "Go2-Rough-Blind"])
def test_presets_stumble_adds_the_penalty_on_the_feet_and_the_default_has_none(task):
    from isaaclab_tasks.utils import resolve_task_config

    env = resolve_task_config(task, None, overrides=["presets=cpu,stairs20,stumble"])[0]
    term = env.rewards.feet_stumble
    assert term.func is feet_stumble and term.weight < 0
    assert list(term.params["sensor_cfg"].body_names) == ["FL_foot", "FR_foot", "RL_foot", "RR_foot"]
    assert resolve_task_config(task, None, overrides=["presets=cpu,stairs20"])[0].rewards.feet_stumble is None
