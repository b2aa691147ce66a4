"""The critic warm-up of :class:`go2_locomotion.training.ppo.Go2PPO`, in the package's runner on the toy point-mass
environment (``tests/toy_training.py``): held iterations change the critic only; the actor, its noise, its
observation normalizer and the learning rate move from the first iteration after them; a run resumed past the
warm-up does not warm up again."""

from __future__ import annotations

import pytest
import torch
import toy_training as toy

from go2_locomotion.training.checkpoints import newest_loadable_checkpoint
from go2_locomotion.training.ppo import Go2PPO
from go2_locomotion.training.preflight import validate
from go2_locomotion.training.runner import Go2OnPolicyRunner


def _runner(tmp_path, warmup: int) -> Go2OnPolicyRunner:
    cfg = toy.agent_cfg(1000)
    # the adaptive schedule, which a held actor (KL ~0) would otherwise push up every mini-batch
    cfg["algorithm"].update(
        class_name="go2_locomotion.training.ppo:Go2PPO", critic_warmup_iterations=warmup, schedule="adaptive"
    )
    torch.manual_seed(3)
    return Go2OnPolicyRunner(toy.PointMassEnv(16, seed=2), cfg, log_dir=str(tmp_path), device="cpu")


def _snapshot(runner) -> dict[str, dict[str, torch.Tensor]]:
    alg = runner.alg
    return {
        "actor": {k: v.clone() for k, v in alg.actor.state_dict().items()},  # weights, std, normalizer statistics
        "critic": {k: v.clone() for k, v in alg.critic.state_dict().items()},
        "learning_rate": {"lr": torch.tensor([alg.learning_rate] + [g["lr"] for g in alg.optimizer.param_groups])},
    }


def _changed(before: dict, after: dict) -> set[str]:
    return {
        part for part in before if any(not torch.equal(before[part][key], after[part][key]) for key in before[part])
    }


def _record_changes(runner) -> list[set[str]]:
    changes, last = [], [_snapshot(runner)]

    def on_iteration(_runner, _it, _collect, _learn):
        now = _snapshot(runner)
        changes.append(_changed(last[0], now))
        last[0] = now

    runner.add_iteration_callback(on_iteration)
    return changes


def test_held_iterations_train_the_critic_alone_and_then_the_actor_moves(tmp_path):
    runner = _runner(tmp_path, warmup=3)
    assert isinstance(runner.alg, Go2PPO)
    changes = _record_changes(runner)
    runner.learn(5)
    # iterations 0-2 held: the critic learns, actor (weights, noise std, normalizer) and learning rate stay
    assert changes[:3] == [{"critic"}] * 3
    # iteration 3 on: PPO as RSL-RL runs it (the adaptive schedule moves the rate as the actor moves)
    assert all({"actor", "critic"} <= change for change in changes[3:]), changes


def test_without_warmup_the_first_update_moves_the_actor(tmp_path):
    runner = _runner(tmp_path, warmup=0)
    changes = _record_changes(runner)
    runner.learn(1)
    assert {"actor", "critic"} <= changes[0]


def test_a_run_resumed_after_the_warmup_does_not_hold_the_actor_again(tmp_path):
    first = _runner(tmp_path, warmup=2)
    first.learn(3)  # iterations 0-2, the first two held
    saved, checkpoint = newest_loadable_checkpoint(tmp_path)
    second = _runner(tmp_path, warmup=2)
    assert second.resume(saved, checkpoint, same_folder=True) >= 2
    changes = _record_changes(second)
    second.learn(1)
    assert "actor" in changes[0]


@pytest.mark.parametrize("value", [-1, 2.5, float("nan")])
def test_preflight_names_a_bad_warmup(value):
    from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2RoughBlindPPORunnerCfg
    from go2_locomotion.tasks.blind_env_cfg import Go2RoughBlindEnvCfg

    agent = Go2RoughBlindPPORunnerCfg()
    agent.algorithm.critic_warmup_iterations = value
    problems = validate(Go2RoughBlindEnvCfg(), agent)
    assert [p for p in problems if "critic_warmup_iterations" in p] == [
        f"agent.algorithm.critic_warmup_iterations must be an integer >= 0 (0: no critic warm-up), got {value!r}"
    ]


def test_a_held_update_keeps_the_learning_rate_when_the_kl_reads_a_little_above_zero(tmp_path):
    """Old and new action means computed in other batch shapes can differ in the last bits; RSL-RL's adaptive
    schedule would then raise the rate by 1.5 per mini-batch (KL below desired_kl / 2) for an actor that did not
    move. Here the stored means are shifted by 1e-3 (KL ~5e-7) before a held update."""
    runner = _runner(tmp_path, warmup=1)
    alg, rates = runner.alg, []

    def drifted_update(update=alg.update):
        with torch.inference_mode():  # the storage's tensors are inference tensors
            alg.storage.distribution_params[0].add_(1e-3)
        rates.append(alg.learning_rate)
        result = update()
        rates.append(alg.learning_rate)
        return result

    alg.update = drifted_update  # this test's probe on its own instance
    runner.learn(2)
    held_before, held_after, free_before, free_after = rates
    assert held_before == held_after == 1e-3
    assert free_after != free_before, rates  # once the actor is free the schedule moves the rate (the probe works)
