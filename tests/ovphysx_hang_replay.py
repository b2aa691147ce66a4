"""Step a saved robot state that once hung OvPhysX's CPU step (tests/data/ovphysx_hang_state.json), in the evaluation's
terrain, and say how far it got: ``state written`` once the state is in, then ``step K done`` after each step.

Run as a script, in its own process (a hung step cannot be interrupted): ``python tests/ovphysx_hang_replay.py``
with the package's workaround (compat/ovphysx_cylinders.py), ``--convex-core`` without it (ovphysx's default
cylinders). The reproduction of docs/ovphysx_hang.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

STATE = Path(__file__).parent / "data" / "ovphysx_hang_state.json"
STEPS = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--convex-core", action="store_true", help="Leave ovphysx's convex-core cylinders in place.")
    parser.add_argument("--state", type=Path, default=STATE)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    import torch
    from isaac_env import make_env

    from go2_locomotion.assets.go2 import FIRST_GO2
    from go2_locomotion.compat import ovphysx_cylinders
    from go2_locomotion.tasks.terrain_cells import cells_generator, parse_cells

    if args.convex_core:
        ovphysx_cylinders.use_convex_mesh_cylinders = lambda sim: False
    saved = json.loads(args.state.read_text())
    cells = parse_cells(saved["cells"])

    def evaluation_terrain(cfg):
        cfg.scene.terrain.terrain_generator = cells_generator(cells)

    # the robot the state was recorded on: the first Go2 model (its actuators and joints decide the contact)
    overrides = ["physics=physx", f"presets={FIRST_GO2}"]
    with make_env(
        "Go2-Rough", num_envs=len(cells), overrides=overrides, play_mode=True, edit=evaluation_terrain
    ) as gym_env:
        gym_env.reset(seed=42)
        robot = gym_env.unwrapped.scene["robot"]
        pose, velocity = robot.data.root_pose_w.torch.clone(), robot.data.root_vel_w.torch.clone()
        joint_pos, joint_vel = robot.data.joint_pos.torch.clone(), robot.data.joint_vel.torch.clone()
        actions = torch.zeros(len(cells), 12)
        for tensor, key in ((pose, "root_pose_w"), (velocity, "root_vel_w"), (joint_pos, "joint_pos")):
            tensor[0] = torch.tensor(saved[key])
        joint_vel[0], actions[0] = torch.tensor(saved["joint_vel"]), torch.tensor(saved["actions"])
        robot.write_root_pose_to_sim_index(root_pose=pose)
        robot.write_root_velocity_to_sim_index(root_velocity=velocity)
        robot.write_joint_position_to_sim_index(position=joint_pos)
        robot.write_joint_velocity_to_sim_index(velocity=joint_vel)
        print("state written", flush=True)
        for step in range(STEPS):
            gym_env.step(actions)
            print(f"step {step} done", flush=True)
    sys.stdout.flush()
    os._exit(0)  # OvPhysX's teardown is not what is measured


if __name__ == "__main__":
    main()
