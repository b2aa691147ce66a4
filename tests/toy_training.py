"""A training process with the package's runner and RSL-RL's PPO on a toy environment (no simulator), for the
runner's fault and multi-rank tests. Run as a script, alone or under ``torchrun``:

    python tests/toy_training.py RUN_FOLDER --max_iterations 30 [--save_interval 1] [--slow_save_s 0.2]
        [--stall_timeout_s 1.0] [--hang_at_iteration 5]

Like ``scripts/train.py --resume auto``, it continues from the folder's newest loadable checkpoint at the next
iteration, in the same folder. Each rank appends ``<iteration>`` to ``iterations_rank<r>.txt`` after every
iteration and writes ``final_rank<r>.pt`` (its weights and normaliser) when it ends.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import torch
from tensordict import TensorDict

from go2_locomotion.training.checkpoints import newest_loadable_checkpoint
from go2_locomotion.training.runner import Go2OnPolicyRunner


class PointMassEnv:
    """``num_envs`` points on a line driven by their velocity action; reward for staying near the origin."""

    num_actions = 1
    max_episode_length = 50

    def __init__(self, num_envs: int, seed: int, hang_at_step: int | None = None):
        self.num_envs = num_envs
        self.hang_at_step = hang_at_step
        self.steps = 0
        self.device = "cpu"
        self.cfg = {"toy": True}
        self.generator = torch.Generator().manual_seed(seed)
        self.position = torch.rand(num_envs, 1, generator=self.generator) * 2 - 1
        self.episode_length_buf = torch.zeros(num_envs, dtype=torch.long)

    def get_observations(self) -> TensorDict:
        return TensorDict({"policy": self.position.clone()}, batch_size=[self.num_envs])

    def step(self, actions: torch.Tensor):
        self.steps += 1
        if self.steps == self.hang_at_step:
            # blocks inside a C call for good, as a simulator step that never returns
            read_end, _write_end = os.pipe()
            os.read(read_end, 1)
        self.position = self.position + 0.1 * actions.clamp(-1, 1)
        self.episode_length_buf += 1
        rewards = -self.position.abs().squeeze(1)
        dones = self.episode_length_buf >= self.max_episode_length
        if dones.any():
            self.position[dones] = torch.rand(int(dones.sum()), 1, generator=self.generator) * 2 - 1
            self.episode_length_buf[dones] = 0
        extras = {"time_outs": dones.clone(), "log": {}}
        return self.get_observations(), rewards, dones.long(), extras


def agent_cfg(save_interval: int, stall_timeout_s: float = 0.0, logger="tensorboard") -> dict:
    """A small PPO set-up in RSL-RL's dictionary form, with an observation normaliser."""
    mlp = {"class_name": "MLPModel", "hidden_dims": [16, 16], "activation": "elu", "obs_normalization": True}
    return {
        "seed": 1,
        "num_steps_per_env": 8,
        "save_interval": save_interval,
        "obs_groups": {"actor": ["policy"], "critic": ["policy"]},
        "actor": {**mlp, "distribution_cfg": {"class_name": "GaussianDistribution", "init_std": 1.0}},
        "critic": dict(mlp),
        "algorithm": {
            "class_name": "PPO",
            "num_learning_epochs": 2,
            "num_mini_batches": 2,
            "learning_rate": 1e-3,
            "schedule": "fixed",
            "gamma": 0.99,
            "lam": 0.95,
            "entropy_coef": 0.0,
            "desired_kl": 0.01,
            "max_grad_norm": 1.0,
            "value_loss_coef": 1.0,
            "use_clipped_value_loss": True,
            "clip_param": 0.2,
        },
        "logger": logger,
        "check_for_nan": True,
        "stall_timeout_s": stall_timeout_s,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--max_iterations", type=int, default=30)
    parser.add_argument("--save_interval", type=int, default=1)
    parser.add_argument("--slow_save_s", type=float, default=0.0, help="sleep inside each checkpoint write")
    parser.add_argument("--iteration_s", type=float, default=0.0, help="sleep after each iteration")
    parser.add_argument("--stall_timeout_s", type=float, default=0.0, help="the runner's stall watchdog (0: off)")
    parser.add_argument(
        "--logger_dict", action="store_true", help="the logger in RSL-RL's dict form {'class_name': 'tensorboard'}"
    )
    parser.add_argument("--hang_at_iteration", type=int, default=None, help="rank 0's step blocks for good in it")
    args = parser.parse_args()

    rank = int(os.getenv("RANK", "0"))
    args.folder.mkdir(parents=True, exist_ok=True)
    if args.slow_save_s:
        # Widen the window in which a kill lands inside a checkpoint write (the test's "slow disk").
        real_save = torch.save

        def slow_save(obj, f, *a, **k):
            real_save(obj, f, *a, **k)
            time.sleep(args.slow_save_s)

        torch.save = slow_save

    torch.manual_seed(1 + rank)
    found = newest_loadable_checkpoint(args.folder)
    start_at = 0 if found is None else found[1]["iter"] + 1
    hang_at_step = None
    if args.hang_at_iteration is not None and rank == 0:
        steps_per_iteration = agent_cfg(1)["num_steps_per_env"]
        hang_at_step = (args.hang_at_iteration - start_at) * steps_per_iteration + 1
    env = PointMassEnv(num_envs=16, seed=100 + rank, hang_at_step=hang_at_step)
    logger = {"class_name": "tensorboard"} if args.logger_dict else "tensorboard"
    cfg = agent_cfg(args.save_interval, args.stall_timeout_s, logger)
    runner = Go2OnPolicyRunner(env, cfg, log_dir=str(args.folder), device="cpu")
    start = 0
    if found is not None:
        start = runner.resume(found[0], found[1], same_folder=True)
        print(f"resumed from {found[0].name} at {start}", flush=True)
    if start >= args.max_iterations:
        return 0

    record = open(args.folder / f"iterations_rank{rank}.txt", "a")  # noqa: SIM115

    def on_iteration(_runner, it, _collect, _learn):
        record.write(f"{it}\n")
        record.flush()
        os.fsync(record.fileno())
        time.sleep(args.iteration_s)

    runner.add_iteration_callback(on_iteration)
    status = runner.learn(args.max_iterations - start)
    policy = runner.alg.get_policy()
    torch.save(
        {"actor": policy.state_dict(), "status": status, "iteration": runner.current_learning_iteration},
        args.folder / f"final_rank{rank}.pt",
    )
    runner.close_process_group()
    print(f"rank {rank} {status} at {runner.current_learning_iteration}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
