"""The frontier terrain curriculum (``presets=frontier``, :class:`go2_locomotion.tasks.mdp.FrontierTerrainLevels`):
Isaac Lab's outcome rule and step, a success memory per sub-terrain and level, and draws that favour the levels
robots clear half the time. On stairs20's layout (20 columns: 0-5 stairs down, 6-11 stairs up, 12-13 boxes, ...),
tiles 8 m, episodes 20 s."""

from __future__ import annotations

import math
from types import MethodType, SimpleNamespace

import pytest
import torch
from isaaclab.terrains import TerrainImporter

from go2_locomotion.tasks.mdp import FrontierTerrainLevels
from go2_locomotion.tasks.velocity_env_cfg import GO2_STAIRS20_TERRAINS

STAIRS_DOWN, STAIRS_UP, BOXES = 0, 6, 12
"""A column of each of three sub-terrains on stairs20."""


class _Scene(SimpleNamespace):
    """Isaac Lab's scene: entities by name."""

    def __getitem__(self, name):
        return getattr(self, name)


def _env(levels: list[int], columns: list[int], walked: list[float], command: float = 1.0, ran: bool = True):
    """Robots on (level, column) tiles whose origins are (level, column, 0) that walked ``walked`` metres along x
    under a ``command`` m/s forward command; ``ran`` False: the start-up reset (no step taken)."""
    origins = torch.tensor([[[float(r), float(c), 0.0] for c in range(20)] for r in range(10)])
    terrain = SimpleNamespace(
        cfg=SimpleNamespace(terrain_generator=GO2_STAIRS20_TERRAINS),
        terrain_origins=origins,
        terrain_levels=torch.tensor(levels),
        terrain_types=torch.tensor(columns),
        max_terrain_level=10,
    )
    terrain.env_origins = origins[terrain.terrain_levels, terrain.terrain_types].clone()
    terrain.update_env_origins = MethodType(TerrainImporter.update_env_origins, terrain)  # Isaac Lab's step
    position = terrain.env_origins.clone()
    position[:, 0] += torch.tensor(walked)
    robot = SimpleNamespace(data=SimpleNamespace(root_pos_w=SimpleNamespace(torch=position)))
    n = len(levels)
    commands = torch.tensor([[command, 0.0, 0.0]] * n)
    return SimpleNamespace(
        num_envs=n,
        device="cpu",
        scene=_Scene(terrain=terrain, env_origins=terrain.env_origins, robot=robot),
        command_manager=SimpleNamespace(get_command=lambda name: commands),
        max_episode_length_s=20.0,
        episode_length_buf=torch.full((n,), 1000 if ran else 0),
    )


def _term(env) -> FrontierTerrainLevels:
    return FrontierTerrainLevels(SimpleNamespace(params={}), env)


def _call(term, env, ids=None, **params):
    return term(env, torch.arange(env.num_envs) if ids is None else ids, **params)


def test_with_no_frontier_draws_it_steps_as_isaac_labs_rule():
    # 5 m > half a tile: up; 2 m < half of 20 s x 1 m/s: down; 6 m at 0.5 m/s asks 5 m: stays (neither)
    env = _env([3, 3, 0, 9], [STAIRS_UP, STAIRS_UP, BOXES, STAIRS_DOWN], [5.0, 2.0, 2.0, 5.0])
    term = _term(env)
    mean = _call(term, env, frontier_share=0.0)
    levels = env.scene.terrain.terrain_levels.tolist()
    assert levels[:3] == [4, 2, 0]  # up, down, down clipped at level 0
    assert 0 <= levels[3] < 10  # cleared the top with no memory of stairs down: Isaac Lab's random level
    assert float(mean) == pytest.approx(sum(levels) / 4)
    assert env.scene.terrain.env_origins[:3].tolist() == [[4, STAIRS_UP, 0], [2, STAIRS_UP, 0], [0, BOXES, 0]]
    slow = _env([3], [STAIRS_UP], [3.9], command=0.5)  # under 4 m and under 0.5 x 20 x 0.5 = 5 m: down
    term = _term(slow)
    _call(term, slow, frontier_share=0.0)
    assert slow.scene.terrain.terrain_levels.tolist() == [2]


def test_the_memory_pools_a_sub_terrains_columns_and_averages_the_last_episodes():
    # stairs up level 5 on columns 6, 7, 8, 9: promoted, demoted, promoted, promoted
    env = _env([5, 5, 5, 5], [6, 7, 8, 9], [5.0, 1.0, 5.0, 5.0])
    term = _term(env)
    _call(term, env, frontier_share=0.0, memory=2)
    up = term.kind_names.index("pyramid_stairs_inv")
    # by hand, memory 2: 1 -> 1; rate 1/2: 1 + (0 - 1) / 2 = 0.5; 0.5 + (1 - 0.5) / 2 = 0.75; 0.75 + 0.25 / 2 = 0.875
    assert term.trials[5, up] == 4
    assert term.success[5, up].item() == pytest.approx(0.875)
    assert term.trials.sum() == 4  # nothing else remembered


def test_neither_promoted_nor_demoted_and_the_start_up_reset_are_not_remembered():
    term_env = _env([5, 5], [6, 6], [5.0, 1.0], ran=False)
    term = _term(term_env)
    _call(term, term_env, frontier_share=0.0)
    assert term.trials.sum() == 0
    stayed = _env([5], [6], [3.0], command=0.25)  # asks 0.25 x 20 x 0.5 = 2.5 m, walked 3 m < 4 m: neither
    term = _term(stayed)
    _call(term, stayed, frontier_share=0.0)
    assert term.trials.sum() == 0 and stayed.scene.terrain.terrain_levels.tolist() == [5]


def test_draws_favour_the_level_cleared_half_the_time_and_leave_unknown_sub_terrains_to_the_step():
    n = 4000
    # every robot neither promoted nor demoted (3 m at 0.25 m/s): nothing remembered, the step keeps level 2
    env = _env([2] * n, [STAIRS_UP] * (n // 2) + [BOXES] * (n // 2), [3.0] * n, command=0.25)
    term = _term(env)
    up = term.kind_names.index("pyramid_stairs_inv")
    term.success[7, up], term.trials[7, up] = 0.5, 20  # weight 0.25 + 0.02
    term.success[3, up], term.trials[3, up] = 1.0, 20  # weight 0.02
    term.success[9, up], term.trials[9, up] = 0.5, 3  # under min_trials: not drawn
    torch.manual_seed(0)
    _call(term, env, frontier_share=1.0, min_trials=4, floor=0.02)
    levels = env.scene.terrain.terrain_levels
    stairs, boxes = levels[: n // 2], levels[n // 2 :]
    assert set(stairs.tolist()) <= {3, 7}
    # by hand: 0.27 / (0.27 + 0.02) = 0.931 at level 7; 2000 draws: sd 0.006
    assert (stairs == 7).float().mean().item() == pytest.approx(0.27 / 0.29, abs=0.02)
    assert boxes.unique().tolist() == [2]  # no memory of boxes: Isaac Lab's step


def test_a_robot_that_clears_the_top_goes_to_the_frontier_not_to_a_random_level():
    # one robot: its own episode leaves level 9 under min_trials, so level 8 is the only one known
    env = _env([9], [STAIRS_UP], [5.0])
    term = _term(env)
    up = term.kind_names.index("pyramid_stairs_inv")
    term.success[8, up], term.trials[8, up] = 0.4, 10
    for _ in range(20):  # only the top clearer draws (frontier_share 0); Isaac Lab would spread it over 0-9
        env.scene.terrain.terrain_levels[:] = 9
        term.trials[9, up] = 0
        _call(term, env, frontier_share=0.0)
        assert env.scene.terrain.terrain_levels.tolist() == [8]


def test_only_the_resetting_robots_move():
    env = _env([4, 4, 4], [STAIRS_UP] * 3, [5.0, 5.0, 5.0])
    term = _term(env)
    _call(term, env, ids=torch.tensor([1]), frontier_share=0.0)
    assert env.scene.terrain.terrain_levels.tolist() == [4, 5, 4]
    assert term.trials.sum() == 1


@pytest.mark.parametrize("task", ["Go2-Rough", "Go2-Rough-Blind"])
def test_presets_frontier_selects_it_on_the_terrain_tasks_and_isaac_labs_rule_stays_the_default(task):
    from isaaclab_tasks.core.velocity.mdp import terrain_levels_vel
    from isaaclab_tasks.utils import resolve_task_config

    def curriculum(*overrides):
        return resolve_task_config(task, None, overrides=list(overrides))[0].curriculum.terrain_levels

    assert curriculum().func is terrain_levels_vel
    assert curriculum("presets=cpu,stairs20,frontier").func is FrontierTerrainLevels
    with pytest.raises(ValueError, match="Unknown preset.*frontier"):  # Go2-Flat has no terrain curriculum
        resolve_task_config("Go2-Flat", None, overrides=["presets=frontier"])


@pytest.mark.parametrize(
    ("key", "value", "domain"),
    [
        ("frontier_share", 1.5, "a finite number in [0, 1]"),
        ("frontier_share", math.nan, "a finite number in [0, 1]"),
        ("floor", -0.1, "a finite number >= 0"),
        ("memory", 0, "a positive integer"),
        ("min_trials", 2.5, "a positive integer"),
    ],
)
def test_the_preflight_names_an_unusable_setting(key, value, domain):
    from isaaclab_tasks.utils import resolve_task_config

    from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2RoughPPORunnerCfg
    from go2_locomotion.training.preflight import validate

    env = resolve_task_config("Go2-Rough", None, overrides=["presets=cpu,stairs20,frontier"])[0]
    env.sim.device = "cpu"
    assert validate(env, Go2RoughPPORunnerCfg()) == []  # the preset's own settings
    env.curriculum.terrain_levels.params[key] = value
    path = f"env.curriculum.terrain_levels.params.{key}"
    assert validate(env, Go2RoughPPORunnerCfg()) == [f"{path} must be {domain}, got {value!r}"]
