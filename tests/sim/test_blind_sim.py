"""Go2-Rough-Blind in Isaac Lab: the actor's history is time-major, oldest frame first, and moves one frame per
policy step (the order the deploy controller keeps)."""

import pytest
import torch
from isaac_env import make_env

pytestmark = pytest.mark.sim


def test_the_history_shifts_one_frame_per_step_newest_last():
    with make_env("Go2-Rough-Blind", num_envs=2, overrides=["physics=physx"], play_mode=True) as gym_env:
        env = gym_env.unwrapped
        obs, _ = gym_env.reset(seed=0)
        before = obs["policy"].reshape(2, 10, 47)
        torch.testing.assert_close(before[:, :1].expand(-1, 10, -1), before)  # a reset fills every frame
        actions = torch.full((2, 12), 0.3)
        obs, *_ = gym_env.step(actions)
        after = obs["policy"].reshape(2, 10, 47)
        torch.testing.assert_close(after[:, :9], before[:, 1:])
        # the newest frame is this step's reading: its last action is the one just taken
        torch.testing.assert_close(after[:, 9, 33:45], actions)
        assert not torch.equal(after[:, 9], before[:, 9])
        assert env.observation_manager.group_obs_dim["policy"] == (470,)
