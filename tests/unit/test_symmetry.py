"""The Go2's left-right mirror (tasks/mdp/symmetry.py) on the tasks' own observation layout, without a simulator:
mirroring twice is the identity, hand-worked mirrors of each term, and the trot clock's half-cycle shift. The
simulator tier checks a mirrored robot state against Isaac Lab's observation (tests/sim/test_symmetry_sim.py)."""

from __future__ import annotations

import math

import pytest
import torch
from mirror_fixtures import mirror_context as _context
from mirror_fixtures import scan_points as _scan_points
from tensordict import TensorDict

from go2_locomotion.assets.go2_description import FOOT_BODIES, JOINT_NAMES
from go2_locomotion.tasks.mdp import symmetry
from go2_locomotion.tasks.velocity_env_cfg import GAIT_PERIOD, SWING_OFFSETS, TROT_PAIRS, Go2RoughEnvCfg

FL_HIP, FR_HIP, RL_CALF, RR_CALF = (
    JOINT_NAMES.index(n) for n in ("FL_hip_joint", "FR_hip_joint", "RL_calf_joint", "RR_calf_joint")
)


def _policy_terms(widths: dict[str, int] | None = None) -> list[tuple[str, object, dict, int]]:
    """Go2-Rough's policy group as (name, func, params, width), widths as the observation manager computes them."""
    group = Go2RoughEnvCfg().observations.policy
    width = {"base_lin_vel": 3, "base_ang_vel": 3, "projected_gravity": 3, "velocity_commands": 3, "joint_pos": 12,
             "joint_vel": 12, "actions": 12, "gait_phase": 2, "height_scan": 187} | (widths or {})  # fmt: skip
    names = [name for name in group.to_dict() if isinstance(getattr(group, name), type(group.base_lin_vel))]
    return [(name, getattr(group, name).func, getattr(group, name).params, width[name]) for name in names]


def test_joint_mirror_swaps_sides_and_turns_hips():
    mirror = symmetry.joint_mirror(JOINT_NAMES)
    # FL_hip reads FR_hip's angle, negated (abduction about x); a calf keeps its sign
    assert (mirror.index[FL_HIP], mirror.sign[FL_HIP]) == (FR_HIP, -1.0)
    assert (mirror.index[RL_CALF], mirror.sign[RL_CALF]) == (RR_CALF, 1.0)
    q = torch.arange(1.0, 13.0)  # FL 1 2 3, FR 4 5 6, RL 7 8 9, RR 10 11 12
    assert mirror.apply(q).tolist() == [-4, 5, 6, -1, 2, 3, -10, 11, 12, -7, 8, 9]


def test_the_standing_pose_is_its_own_mirror():
    from go2_locomotion.assets.go2 import GO2_CFG

    pose = torch.tensor([GO2_CFG.init_state.joint_pos[k] for k in _standing_keys()])
    assert torch.equal(symmetry.joint_mirror(JOINT_NAMES).apply(pose), pose)


def _standing_keys() -> list[str]:
    import re

    from go2_locomotion.assets.go2 import STANDING_JOINT_POS

    return [next(k for k in STANDING_JOINT_POS if re.fullmatch(k, name)) for name in JOINT_NAMES]


def test_height_scan_mirror_reverses_the_grid_rows():
    # the 17 x 11 grid is x-fastest (Isaac Lab's "xy" ordering): ray k sits at x_(k % 17), y_(k // 17), y from -0.5 m;
    # its mirror is the ray in the same column and row 10 - k // 17
    mirror = symmetry.grid_mirror(_scan_points())
    assert mirror.width == 187
    assert list(mirror.index) == [(10 - k // 17) * 17 + k % 17 for k in range(187)]
    assert set(mirror.sign) == {1.0}


def test_a_scan_off_the_centre_line_has_no_mirror():
    with pytest.raises(ValueError, match="not symmetric"):
        symmetry.grid_mirror(_scan_points() + torch.tensor([0.0, 0.05, 0.0]))


def test_policy_observation_mirrored_by_hand():
    mirror = symmetry.group_mirror(_policy_terms(), _context())
    assert mirror.width == 237
    x = torch.zeros(237)
    x[0:3] = torch.tensor([1.0, 2.0, 3.0])  # trunk velocity
    x[3:6] = torch.tensor([0.1, 0.2, 0.3])  # angular velocity
    x[6:9] = torch.tensor([0.0, 0.6, -0.8])  # gravity, rolled to the left
    x[9:12] = torch.tensor([0.5, 0.2, 0.4])  # command: forward, left, turning left
    x[12 + FL_HIP] = 0.3  # joint position: the front-left hip abducted
    x[48:50] = torch.tensor([0.6, 0.8])  # clock
    x[50] = -0.2  # the scan's first ray, rear right corner (x -0.8, y -0.5)
    y = mirror.apply(x)
    assert y[0:3].tolist() == [1.0, -2.0, 3.0]
    assert torch.allclose(y[3:6], torch.tensor([-0.1, 0.2, -0.3]))
    assert torch.allclose(y[6:9], torch.tensor([0.0, -0.6, -0.8]))
    assert torch.allclose(y[9:12], torch.tensor([0.5, -0.2, -0.4]))
    assert y[12 + FR_HIP].item() == pytest.approx(-0.3) and y[12 + FL_HIP].item() == 0.0
    assert torch.allclose(y[48:50], torch.tensor([-0.6, -0.8]))
    assert y[50 + 10 * 17].item() == pytest.approx(-0.2) and y[50].item() == 0.0  # rear left corner (y +0.5)


@pytest.mark.parametrize("history", [1, 3])
def test_mirroring_twice_is_the_identity(history):
    terms = [(n, f, p, w * history) for n, f, p, w in _policy_terms()]
    mirror = symmetry.group_mirror(terms, _context())
    x = torch.randn(5, 237 * history, generator=torch.Generator().manual_seed(0))
    assert torch.equal(mirror.apply(mirror.apply(x)), x)
    assert not torch.equal(mirror.apply(x), x)


def test_a_term_without_a_rule_is_named():
    terms = [*_policy_terms(), ("foot_forces", torch.norm, {}, 4)]
    with pytest.raises(ValueError, match="'foot_forces'.*no left-right mirror"):
        symmetry.group_mirror(terms, _context())


def test_a_term_of_the_wrong_width_is_named():
    with pytest.raises(ValueError, match="'joint_pos' is 13 wide"):
        symmetry.group_mirror(_policy_terms({"joint_pos": 13}), _context())


def _due_in_air(fraction: float) -> set[str]:
    """Feet the clock at ``fraction`` of the cycle asks to be in the air (the trot reward's rule)."""
    return {foot for foot, offset in zip(FOOT_BODIES, SWING_OFFSETS, strict=True) if (fraction + offset) % 1.0 < 0.5}


def _mirror_foot(foot: str) -> str:
    return symmetry.mirror_joint_name(foot)


@pytest.mark.parametrize("step", range(25))
def test_the_mirrored_clock_swings_the_mirrored_diagonal(step):
    # a quarter step off the lattice, so no foot sits on the swing/stance boundary
    fraction = (step + 0.25) / round(GAIT_PERIOD / 0.02)
    clock = torch.tensor([math.sin(2 * math.pi * fraction), math.cos(2 * math.pi * fraction)])
    mirrored = symmetry.MIRROR_RULES[symmetry.gait_phase](_context(), {}).apply(clock)
    mirrored_fraction = math.atan2(mirrored[0], mirrored[1]) / (2 * math.pi) % 1.0
    swinging = _due_in_air(fraction)
    assert swinging in ({*TROT_PAIRS[0]}, {*TROT_PAIRS[1]})  # one diagonal pair at a time
    assert _due_in_air(mirrored_fraction) == {_mirror_foot(f) for f in swinging} != swinging


def test_standing_clock_stays_standing():
    rule = symmetry.MIRROR_RULES[symmetry.gait_phase](_context(), {})
    assert rule.apply(torch.zeros(2)).abs().sum().item() == 0.0


def test_augmentation_doubles_the_batch_with_mirrors():
    mirror = symmetry.Go2Mirror(
        groups={"policy": symmetry.group_mirror(_policy_terms(), _context())},
        actions=symmetry.joint_mirror(JOINT_NAMES),
    )
    obs = TensorDict({"policy": torch.randn(4, 237)}, batch_size=[4])
    actions = torch.randn(4, 12)
    obs_aug, actions_aug = symmetry.augment(mirror, obs, actions)
    assert obs_aug.batch_size[0] == 8 and actions_aug.shape == (8, 12)
    assert torch.equal(obs_aug["policy"][:4], obs["policy"])
    assert torch.equal(obs_aug["policy"][4:], mirror.groups["policy"].apply(obs["policy"]))
    assert torch.equal(actions_aug[4:, FR_HIP], -actions[:, FL_HIP])
    assert symmetry.augment(mirror, None, None) == (None, None)


@pytest.mark.parametrize(
    "switches, passed",
    [((False, False), False), ((True, False), True), ((False, True), True), ((True, True), True)],
)
def test_the_runner_gets_the_mirror_only_when_it_learns_from_it(switches, passed):
    from go2_locomotion.agents.rsl_rl_ppo_cfg import Go2RoughPPORunnerCfg
    from go2_locomotion.training.session import without_idle_symmetry

    cfg = Go2RoughPPORunnerCfg()
    cfg.algorithm.symmetry_cfg.use_data_augmentation, cfg.algorithm.symmetry_cfg.use_mirror_loss = switches
    train_cfg = cfg.to_dict()
    given = without_idle_symmetry(train_cfg)
    assert (given["algorithm"]["symmetry_cfg"] is not None) is passed
    assert given["algorithm"]["learning_rate"] == train_cfg["algorithm"]["learning_rate"]
    assert train_cfg["algorithm"]["symmetry_cfg"] is not None  # the caller's config is left as it was


def test_go2_flat_trains_on_mirrored_batches_by_default_and_go2_rough_does_not():
    """Go2-Flat's runner is handed the mirror with augmentation on; Go2-Rough's and Go2-Rough-Blind's, built after it
    from the same shared symmetry config, are handed none (Flat's switch must not leak into its parent's instance)."""
    from go2_locomotion.agents import rsl_rl_ppo_cfg as agents
    from go2_locomotion.training.session import without_idle_symmetry

    flat = without_idle_symmetry(agents.Go2FlatPPORunnerCfg().to_dict())["algorithm"]["symmetry_cfg"]
    rough = without_idle_symmetry(agents.Go2RoughPPORunnerCfg().to_dict())["algorithm"]["symmetry_cfg"]
    blind = without_idle_symmetry(agents.Go2RoughBlindPPORunnerCfg().to_dict())["algorithm"]["symmetry_cfg"]
    assert flat["use_data_augmentation"] is True and flat["use_mirror_loss"] is False
    assert rough is None and blind is None
    assert agents.GO2_SYMMETRY.use_data_augmentation is False
