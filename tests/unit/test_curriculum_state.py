"""The terrain curriculum's levels travel with the checkpoint (:mod:`go2_locomotion.training.curriculum_state`):
saved into ``infos`` by the package's runner and put back on resume, origins included."""

from __future__ import annotations

from types import SimpleNamespace

import torch
import toy_training as toy

from go2_locomotion.training.curriculum_state import curriculum_terrain, frontier_memory, restore_levels, saved_levels
from go2_locomotion.training.runner import Go2OnPolicyRunner


def _terrain(levels: list[int], types: list[int]):
    """Isaac Lab's TerrainImporter fields: origins[level, type] = (level, type, 0)."""
    origins = torch.tensor([[[float(r), float(c), 0.0] for c in range(2)] for r in range(6)])
    terrain = SimpleNamespace(
        terrain_levels=torch.tensor(levels),
        terrain_types=torch.tensor(types),
        terrain_origins=origins,
    )
    terrain.env_origins = origins[terrain.terrain_levels, terrain.terrain_types].clone()
    return terrain


def test_levels_and_origins_come_back_from_the_saved_infos():
    trained = _terrain([5, 0, 3, 4], [0, 0, 1, 1])
    fresh = _terrain([1, 2, 0, 1], [0, 0, 1, 1])  # a new environment's draw
    message = restore_levels(fresh, saved_levels(trained))
    assert fresh.terrain_levels.tolist() == [5, 0, 3, 4]
    assert fresh.env_origins.tolist() == [[5, 0, 0], [0, 0, 0], [3, 1, 0], [4, 1, 0]]
    assert message == "terrain curriculum restored from the checkpoint (mean level 3.00)"


def test_a_checkpoint_without_levels_or_for_another_crowd_keeps_the_fresh_draw():
    fresh = _terrain([1, 2], [0, 1])
    assert "holds no terrain levels" in restore_levels(fresh, None)
    assert "for 4 robots, this run has 2" in restore_levels(fresh, saved_levels(_terrain([5, 0, 3, 4], [0, 0, 1, 1])))
    assert fresh.terrain_levels.tolist() == [1, 2]


def test_levels_another_terrain_does_not_have_keep_the_fresh_draw():
    fresh = _terrain([1, 2], [0, 1])  # 6 levels, 0-5
    message = restore_levels(fresh, {"terrain_levels": torch.tensor([6, 0])})
    assert message.startswith("the checkpoint's terrain levels reach level 6, this terrain has 6:")
    assert fresh.terrain_levels.tolist() == [1, 2] and fresh.env_origins.tolist() == [[1, 0, 0], [2, 1, 0]]
    assert restore_levels(fresh, {"terrain_levels": torch.tensor([5, 0])}).startswith("terrain curriculum restored")


def test_only_a_terrain_with_levels_is_a_curriculum():
    def env(terrain):
        return SimpleNamespace(unwrapped=SimpleNamespace(scene=SimpleNamespace(terrain=terrain)))

    assert curriculum_terrain(env(SimpleNamespace(terrain_levels=None))) is None  # the flat plane
    with_levels = _terrain([0], [0])
    assert curriculum_terrain(env(with_levels)) is with_levels


def test_the_runner_saves_the_state_into_infos_and_gives_it_back_on_resume(tmp_path):
    def runner():
        return Go2OnPolicyRunner(toy.PointMassEnv(8, seed=1), toy.agent_cfg(1), log_dir=str(tmp_path), device="cpu")

    first, restored = runner(), []
    first.add_checkpoint_state(lambda: {"terrain_levels": torch.tensor([4, 2])}, restored.append)
    first.learn(1)
    checkpoint = torch.load(tmp_path / "model_0.pt", weights_only=True)
    assert checkpoint["infos"]["terrain_levels"].tolist() == [4, 2]
    second = runner()
    second.add_checkpoint_state(dict, restored.append)
    assert second.resume(tmp_path / "model_0.pt", checkpoint, same_folder=True) == 1
    assert [infos["terrain_levels"].tolist() for infos in restored] == [[4, 2]]


def test_the_frontier_memory_travels_with_the_levels_when_the_terrain_matches():
    trained = SimpleNamespace(success=torch.tensor([[0.5, 1.0], [0.25, 0.0]]), trials=torch.tensor([[4.0, 9], [2, 0]]))
    infos = saved_levels(_terrain([5, 0], [0, 1]), trained)
    fresh = SimpleNamespace(success=torch.zeros(2, 2), trials=torch.zeros(2, 2))
    message = restore_levels(_terrain([1, 2], [0, 1]), infos, fresh)
    assert fresh.success.tolist() == [[0.5, 1.0], [0.25, 0.0]] and fresh.trials.tolist() == [[4, 9], [2, 0]]
    assert message.endswith("; frontier memory of 15 episodes")
    other = SimpleNamespace(success=torch.zeros(3, 2), trials=torch.zeros(3, 2))  # another terrain's levels
    assert "the frontier memory starts empty" in restore_levels(_terrain([1, 2], [0, 1]), infos, other)
    assert other.trials.sum() == 0
    assert "frontier" not in restore_levels(_terrain([1, 2], [0, 1]), saved_levels(_terrain([5, 0], [0, 1])))


def test_only_a_frontier_curriculum_term_has_a_memory_to_save():
    def env(term):
        manager = SimpleNamespace(cfg=SimpleNamespace(terrain_levels=SimpleNamespace(func=term)))
        return SimpleNamespace(unwrapped=SimpleNamespace(curriculum_manager=manager))

    frontier = SimpleNamespace(success=torch.zeros(1), trials=torch.zeros(1))
    assert frontier_memory(env(frontier)) is frontier
    assert frontier_memory(env(lambda env, ids: None)) is None  # Isaac Lab's terrain_levels_vel
    assert frontier_memory(SimpleNamespace(unwrapped=SimpleNamespace())) is None  # no curriculum manager
