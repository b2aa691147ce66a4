"""Properties of every registered task's configuration (mjlab's style): what must hold whatever the tuning, so a
change of a weight or a gain passes and a change that breaks the MDP's promises fails.

- timing: the policy step is whole physics steps, rendering follows it, episodes are whole policy steps;
- play mode (the -Play ids, and ``play_mode()`` on every training config): no observation noise, no pushes, few
  robots, command arrows; the training configs keep their noise and pushes;
- Go2-Flat differs from Go2-Rough only in the fields ``flat_env_cfg.py`` documents;
- every reward term's weight sign matches its kind: penalties negative, rewards positive;
- the policy observation is one the deploy controller rebuilds, term by term at the widths the config implies;
- the merged task + agent configs pass preflight, and the rollout drops no transition;
- nothing the scene loads needs a download; the physics presets keep the MDP.
"""

import math
from dataclasses import fields

import gymnasium as gym
import numpy as np
import pytest
from deploy_fixtures import make_bundle
from isaaclab_tasks.utils import PresetCfg

import go2_locomotion.tasks  # noqa: F401  (registers the tasks)
from go2_locomotion.assets import go2_description, go2_usd
from go2_locomotion.assets.go2 import FIRST_GO2, REAL_GO2
from go2_locomotion.export.manifest import OBSERVATION_FORMAT, observation_format_name, term_is
from go2_locomotion.robot.bundle import OBSERVATION_INPUTS
from go2_locomotion.robot.controller import ReferenceController, RobotState
from go2_locomotion.tasks import TASKS, mdp, play_env_cfg
from go2_locomotion.tasks.flat_env_cfg import Go2FlatEnvCfg
from go2_locomotion.tasks.mdp.history import history_frames
from go2_locomotion.tasks.velocity_env_cfg import (
    CPU_RECIPE_NUM_ENVS,
    PRIVILEGED_CRITIC,
    VELOCITY_COMMAND,
    Go2RoughEnvCfg,
)
from go2_locomotion.training.preflight import (
    RolloutGeometry,
    config_observation_term_widths,
    config_observation_widths,
    validate,
)

TRAINING_TASKS = [task for task in TASKS if not task.endswith("-Play")]
PLAY_TASKS = [task for task in TASKS if task.endswith("-Play")]

PUSHES = {"push_by_setting_velocity", "apply_external_force_torque"}
"""Event functions that push the robot: playback runs without them."""

PENALTY_FUNCTIONS = {"is_terminated", "undesired_contacts", "joint_pos_limits", "joint_vel_limits", "feet_stumble"}
"""Penalty terms whose function name does not end in ``_l1`` / ``_l2``."""

REWARD_FUNCTIONS = {
    "feet_air_time",
    "trot_swing",
    "feet_down_standing",
    "is_alive",
    "cycle_yaw_rate_exp",
    "cycle_lin_vel_xy_exp",
}
"""Rewarded terms whose function name does not start with ``track_``."""

FLAT_CHANGES = (
    # flat_env_cfg.py, Go2FlatEnvCfg.__post_init__, in its order
    "sim.physics.newton_mjwarp.solver_cfg.njmax",
    "sim.physics.newton_mjwarp.solver_cfg.nconmax",
    "sim.physics.default.solver_cfg.njmax",
    "sim.physics.default.solver_cfg.nconmax",
    "scene.terrain.terrain_type",
    "scene.terrain.usd_path",
    "scene.terrain.terrain_generator",
    "scene.terrain.visual_material",
    "scene.height_scanner",
    "observations.policy.height_scan",
    "observations.policy.base_lin_vel",
    "observations.critic.privileged_critic.height_scan",
    "curriculum.terrain_levels",
    "rewards.base_height_l2.params.sensor_cfg",
    "rewards.flat_orientation_l2",
)
"""What Go2-Flat changes in Go2-Rough (the README's task table and ``flat_env_cfg.py`` say why)."""

FLAT_AGENT_CHANGES = (
    "max_iterations",
    "experiment_name",
    "actor.hidden_dims",
    "critic.hidden_dims",
    "algorithm.symmetry_cfg.use_data_augmentation",
)
"""What the Go2-Flat agent changes in the Go2-Rough agent."""


def _env_cfg(task: str):
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    return load_cfg_from_registry(task, "env_cfg_entry_point")


def _agent_cfg(task: str):
    from isaaclab_tasks.utils.parse_cfg import load_cfg_from_registry

    return load_cfg_from_registry(task, "rsl_rl_cfg_entry_point")


def _terms(manager_cfg) -> dict:
    """The active terms of a manager config (or an observation group), by name: the fields holding a term (a preset
    no command line has resolved yet counts as its default)."""
    fields = {
        name: getattr(term, "default", term) if isinstance(term, PresetCfg) else term
        for name, term in vars(manager_cfg).items()
    }
    return {name: term for name, term in fields.items() if hasattr(term, "func")}


def _groups(cfg) -> dict:
    """The observation groups, by name."""
    return {name: group for name, group in vars(cfg.observations).items() if hasattr(group, "enable_corruption")}


def _leaves(node, path=""):
    """Every (dotted path, value) of a config dict, down to the leaves."""
    if isinstance(node, dict) and node:
        for key, value in node.items():
            yield from _leaves(value, f"{path}.{key}" if path else key)
    else:
        yield path, node


def _differences(a, b) -> set[str]:
    left, right = dict(_leaves(a.to_dict())), dict(_leaves(b.to_dict()))
    return {path for path in left.keys() | right.keys() if left.get(path, "<absent>") != right.get(path, "<absent>")}


def _within(path: str, documented) -> bool:
    return any(path == field or path.startswith(f"{field}.") for field in documented)


def test_every_task_is_registered_with_both_entry_points():
    for task in TASKS:
        assert {"env_cfg_entry_point", "rsl_rl_cfg_entry_point"} <= set(gym.spec(task).kwargs), task
    assert {f"{task}-Play" for task in TRAINING_TASKS} == set(PLAY_TASKS)


@pytest.mark.parametrize("task", TASKS)
def test_timing(task):
    cfg = _env_cfg(task)
    assert isinstance(cfg.decimation, int) and cfg.decimation >= 1
    assert cfg.sim.render_interval == cfg.decimation  # one frame per policy step (docs/design.md)
    policy_dt = cfg.sim.dt * cfg.decimation
    steps = cfg.episode_length_s / policy_dt
    assert steps == pytest.approx(round(steps)) and steps >= 1, "an episode is not a whole number of policy steps"
    for term in _terms(cfg.commands).values():
        low, high = term.resampling_time_range
        assert 0 < low <= high


@pytest.mark.parametrize("task", TRAINING_TASKS)
def test_play_mode_disables_noise_and_pushes_and_leaves_training_alone(task):
    training = _env_cfg(task)
    for cfg in (_env_cfg(f"{task}-Play"), play_env_cfg(type(training))):
        assert cfg.scene.num_envs <= 50
        assert not any(group.enable_corruption for group in _groups(cfg).values())
        pushes = [name for name, term in _terms(cfg.events).items() if term.func.__name__ in PUSHES]
        assert pushes == [], f"play mode keeps pushes {pushes}"
        assert all(term.debug_vis for term in _terms(cfg.commands).values())
        # play mode changes playback settings only: rewards, actions (but the targets' delay: none), terminations and
        # observations are training's
        assert cfg.actions.joint_pos.max_delay == 0
        for section in ("rewards", "actions", "terminations"):
            played, trained = getattr(cfg, section).to_dict(), getattr(training, section).to_dict()
            if section == "actions":
                played["joint_pos"].pop("max_delay"), trained["joint_pos"].pop("max_delay")
            assert played == trained, section
        for name, group in _groups(cfg).items():
            assert _terms(group).keys() == _terms(getattr(training.observations, name)).keys()
    # the training config keeps the actor's noise and pushes (play mode does not leak into it); a privileged
    # critic group (Go2-Rough-Blind's, or the one presets=privileged_critic selects) is never corrupted
    assert training.observations.policy.enable_corruption
    critic = training.observations.critic
    critics = [critic.default, getattr(critic, PRIVILEGED_CRITIC)] if isinstance(critic, PresetCfg) else [critic]
    assert all(group is None or not group.enable_corruption for group in critics)
    assert any(term.func.__name__ in PUSHES for term in _terms(training.events).values())
    assert training.scene.num_envs > 50


def test_flat_differs_from_rough_only_where_documented():
    undocumented = sorted(p for p in _differences(Go2RoughEnvCfg(), Go2FlatEnvCfg()) if not _within(p, FLAT_CHANGES))
    assert undocumented == [], "Go2-Flat changes fields flat_env_cfg.py does not document"
    agents = _differences(_agent_cfg("Go2-Rough"), _agent_cfg("Go2-Flat"))
    assert sorted(p for p in agents if not _within(p, FLAT_AGENT_CHANGES)) == []
    # and each documented change is one (a stale entry in the list would hide nothing, but would mislead)
    changed = _differences(Go2RoughEnvCfg(), Go2FlatEnvCfg())
    assert [f for f in FLAT_CHANGES if not any(_within(p, (f,)) for p in changed)] == []


def _kind(function_name: str) -> str:
    if function_name.endswith(("_l1", "_l2")) or function_name in PENALTY_FUNCTIONS:
        return "penalty"
    if function_name.startswith("track_") or function_name in REWARD_FUNCTIONS:
        return "reward"
    raise AssertionError(f"reward function {function_name} is neither a known penalty nor a known reward: classify it")


@pytest.mark.parametrize("task", TASKS)
def test_reward_weight_signs_match_their_kind(task):
    """Every term of every robot: each alternative of a preset counts."""
    for name, term in vars(_env_cfg(task).rewards).items():
        alternatives = [getattr(term, f.name) for f in fields(term)] if isinstance(term, PresetCfg) else [term]
        for term in (t for t in alternatives if hasattr(t, "func")):
            kind = _kind(term.func.__name__)
            assert (term.weight < 0) if kind == "penalty" else (term.weight > 0), f"{name}: a {kind} with {term.weight}"


@pytest.mark.parametrize("task", TRAINING_TASKS)
def test_policy_observation_is_what_the_deploy_controller_rebuilds(task, tmp_path):
    """Every policy term's function is one the reference controller rebuilds, and a controller given a bundle of
    this config's terms rebuilds each at the width the config implies (it refuses any other), over the group's
    history."""
    cfg = _env_cfg(task)
    frames = history_frames(cfg.observations.policy)
    widths = {name: width // frames for name, width in config_observation_term_widths(cfg)["policy"].items()}
    terms, start, state = [], 0, {}
    for name, term in _terms(cfg.observations.policy).items():
        function = observation_format_name(term.func)
        assert function in OBSERVATION_INPUTS, f"{name}: the deploy controller cannot rebuild {term.func.__name__}"
        params = {}
        if function == "gait_phase":
            params = {key: term.params[key] for key in ("period", "standing_command")}
        if function == "height_scan":
            params = {"offset": 0.5, "sensor_offset_z": 0.0, "points_xy": [[0.0, 0.0]] * widths[name]}
            state["height_scan"] = np.zeros(widths[name])
        terms.append({"name": name, "function": function, "start": start, "width": widths[name], "params": params})
        start += widths[name]
    assert start * frames == config_observation_widths(cfg)["policy"]

    def edit(manifest):
        manifest["observation"].update(width=start * frames, terms=terms)
        if frames > 1:
            manifest["observation"]["history"] = {"length": frames}

    controller = ReferenceController(make_bundle(tmp_path, edit=edit, weight=np.zeros((12, start * frames))))
    joints = len(go2_description.JOINT_NAMES)
    robot = RobotState(np.zeros(joints), np.zeros(joints), np.zeros(3), np.array([0.0, 0.0, -1.0]), **state)
    robot.base_lin_vel = np.zeros(3)
    assert controller.observation(robot).shape == (start * frames,)
    assert controller.act(robot).joint_pos_target.shape == (joints,)


def test_export_recognises_observation_terms_by_their_function_object():
    """The bundle format names every function the exporter recognises, and a function is recognised by identity:
    another function of the same name is not."""
    assert sorted(OBSERVATION_FORMAT.values()) == sorted(OBSERVATION_INPUTS)

    def height_scan(env):  # same name, not Isaac Lab's function
        return env

    assert observation_format_name(mdp.height_scan) == "height_scan" and observation_format_name(height_scan) is None
    # a live manager holds an instance of a class term: still that term
    event = mdp.warn_on_solver_overflow.__new__(mdp.warn_on_solver_overflow)
    assert term_is(mdp.warn_on_solver_overflow, mdp.warn_on_solver_overflow) and term_is(event, type(event))
    assert not term_is(event, mdp.randomize_rigid_body_material)


@pytest.mark.parametrize("task", TASKS)
def test_the_velocity_command_is_named_once(task):
    """Every term that reads a command reads the one :data:`VELOCITY_COMMAND` names, and the task has it."""
    cfg = _env_cfg(task)
    assert isinstance(getattr(cfg.commands, VELOCITY_COMMAND), mdp.SteerableVelocityCommandCfg)
    sections = (cfg.rewards, cfg.observations.policy)
    names = {
        term.params["command_name"] for s in sections for term in _terms(s).values() if "command_name" in term.params
    }
    assert names == {VELOCITY_COMMAND}


@pytest.mark.parametrize("task", TRAINING_TASKS)
@pytest.mark.parametrize("num_envs", [None, CPU_RECIPE_NUM_ENVS])
def test_task_and_agent_pass_preflight_and_drop_no_transition(task, num_envs):
    env, agent = _env_cfg(task), _agent_cfg(task)
    env.sim.device = "cpu"
    if num_envs is not None:
        env.scene.num_envs = num_envs
    assert validate(env, agent) == []
    geometry = RolloutGeometry(
        env.scene.num_envs,
        agent.num_steps_per_env,
        agent.algorithm.num_mini_batches,
        agent.algorithm.num_learning_epochs,
        config_observation_widths(env),
        len(go2_description.JOINT_NAMES),
    )
    assert geometry.warnings() == []
    # preflight's storage figure assumes RSL-RL's Gaussian policy
    assert agent.actor.distribution_cfg.class_name == "GaussianDistribution"


@pytest.mark.parametrize("task", TASKS)
def test_joint_order_is_the_description_order(task):
    robot = _env_cfg(task).scene.robot
    assert list(robot.joint_ordering) == list(go2_description.JOINT_NAMES)
    assert robot.init_state.pos[2] > 0


def _file_fields(node, path=""):
    """Every (path, value) of a field naming a file to load (USD, MDL, texture) in a config dict."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key.endswith("visualizer_cfg"):
                continue  # debug markers, loaded only when debug visualisation is on (the sim tests cover play)
            if key in ("usd_path", "mdl_path", "texture_file") and isinstance(value, str):
                yield f"{path}.{key}", value
            else:
                yield from _file_fields(value, f"{path}.{key}")


@pytest.mark.parametrize("task", TASKS)
def test_scene_loads_only_local_files(task):
    files = dict(_file_fields(_env_cfg(task).scene.to_dict(), "scene"))
    assert files["scene.robot.spawn.usd_path"] == go2_usd.OFFLINE_USD  # resolved in the cache at spawn time
    for field, value in files.items():
        assert "://" not in value, f"{field} = {value} needs a download"


@pytest.mark.parametrize("task", TASKS)
def test_physics_presets_resolve_like_isaac_lab_and_keep_the_mdp(task):
    from isaaclab.physics import PhysxAutoCfg
    from isaaclab_newton.physics import NewtonCfg
    from isaaclab_tasks.utils import resolve_task_config

    default, _ = resolve_task_config(task, None, overrides=[])
    assert isinstance(default.sim.physics, NewtonCfg)
    assert default.sim.physics.solver_cfg.njmax >= 1 and default.sim.physics.solver_cfg.nconmax >= 1
    for selector in (["physics=physx"], ["presets=cpu"]):
        physx, _ = resolve_task_config(task, None, overrides=selector)
        assert isinstance(physx.sim.physics, PhysxAutoCfg)
        # the PhysX path keeps the same MDP
        for section in ("rewards", "observations", "actions", "events", "terminations", "commands"):
            assert getattr(physx, section).to_dict() == getattr(default, section).to_dict(), (selector, section)
        assert physx.scene.robot.spawn.usd_path == default.scene.robot.spawn.usd_path
    assert math.isclose(default.sim.dt * default.decimation, physx.sim.dt * physx.decimation)


def _resolved(task: str, play_mode: bool = False, presets: str | None = None):
    from isaaclab_tasks.utils import resolve_task_config

    overrides = [f"presets={presets}"] if presets else []
    return resolve_task_config(task, None, play_mode=play_mode, overrides=overrides)[0]


@pytest.mark.parametrize("task", TRAINING_TASKS)
def test_real_go2_preset_trains_on_the_real_robot_and_plays_the_nominal_one(task):
    """presets=real_go2: the actuator of assets/go2.py, 0-20 ms of target delay at 5 ms physics steps, a payload,
    gain and joint randomisation, straight commands and the small-bias yaw term; its play mode is the nominal robot.
    presets=first_go2: the package's first Go2; without a robot preset, DEFAULT_ROBOT's."""
    from go2_locomotion.assets import go2

    trained, played = _resolved(task, presets=REAL_GO2), _resolved(task, play_mode=True, presets=REAL_GO2)
    legs = trained.scene.robot.actuators["legs"]
    assert legs.armature == go2.ARMATURE and legs.friction == legs.dynamic_friction == 0.2
    assert legs.viscous_friction == 0.1 and legs.actuator_velocity_limit[".*_calf_joint"] == pytest.approx(
        15.65, abs=0.01
    )
    # Unitree's knee point: 20.2 N m at 13.5 rad/s on the DC-motor line, zero at 30 rad/s
    stall = legs.saturation_effort[".*_hip_joint"]
    assert stall * (1 - 13.5 / 30.0) == pytest.approx(20.2) and not trained.sim.use_newton_actuators
    assert (trained.actions.joint_pos.min_delay, trained.actions.joint_pos.max_delay) == (0, 8)  # 40 ms / 5 ms
    events = trained.events
    assert events.add_base_mass.params["mass_distribution_params"] == (-1.0, 7.0)
    assert events.actuator_gains.params["stiffness_distribution_params"] == (0.8, 1.2)
    assert events.joint_parameters.params.get("armature_distribution_params") is None  # drawn per robot instead
    assert events.rotor_inertia.params["robot_range"] == (0.5, 1.5)
    assert events.physics_material.params["static_friction_range"] == (0.2, 1.25)
    assert events.push_robot.params["velocity_range"]["x"] == (-1.0, 1.0)
    assert trained.commands.base_velocity.rel_straight_envs == 0.3
    cycle = trained.rewards.track_yaw_rate_cycle.params
    assert cycle["std"] == 0.05 and round(cycle["period"] / trained.sim.dt / trained.decimation) == 25
    assert played.actions.joint_pos.max_delay == 0 and played.events.push_robot is None
    assert played.events.add_base_mass is played.events.actuator_gains is played.events.joint_parameters is None
    assert played.events.rotor_inertia is None
    friction = played.events.physics_material.params
    assert (friction["static_friction_range"], friction["dynamic_friction_range"]) == ((0.8, 0.8), (0.6, 0.6))
    assert played.scene.robot.actuators["legs"].armature == go2.ARMATURE  # the robot keeps its actuator
    # presets=first_go2: the package's first Go2, on which the shipped policies were trained
    first = _resolved(task, presets=FIRST_GO2)
    legs = first.scene.robot.actuators["legs"]
    assert legs.armature is None and legs.friction == 0.0 and legs.actuator_velocity_limit == 30.0
    assert legs.saturation_effort == legs.actuator_effort_limit and first.sim.use_newton_actuators
    assert first.actions.joint_pos.max_delay == 0 and first.events.actuator_gains is None
    assert first.events.add_base_mass.params["mass_distribution_params"] == (0.8, 1.25)
    assert first.commands.base_velocity.rel_straight_envs == 0.0 and first.rewards.track_yaw_rate_cycle is None
    # no robot preset: DEFAULT_ROBOT's, in training and in play
    named = {FIRST_GO2: (first, _resolved(task, play_mode=True, presets=FIRST_GO2)), REAL_GO2: (trained, played)}
    default, default_played = named[go2.DEFAULT_ROBOT]
    assert _resolved(task).to_dict() == default.to_dict()
    assert _resolved(task, play_mode=True).to_dict() == default_played.to_dict()
    assert trained.rewards.track_lin_vel_cycle.params["period"] == cycle["period"]
    assert first.rewards.track_lin_vel_cycle is None


@pytest.mark.parametrize("task", TRAINING_TASKS)
def test_climbable_narrows_the_real_go2s_randomisation_and_plays_the_same_robot(task):
    """presets=climbable: 0-20 ms of target delay (4 physics steps of 5 ms), at most 3 kg of payload, the feet's
    friction from 0.4, Kp and Kd x0.9-1.1; everything else the real Go2's; its play robot the nominal one, as
    without it (a training command's presets play too); its bundle records the narrower ranges."""
    from go2_locomotion.export.manifest import training_conditions

    full = _resolved(task, presets=REAL_GO2)
    narrow = _resolved(task, presets=f"{REAL_GO2},climbable")
    assert (narrow.actions.joint_pos.min_delay, narrow.actions.joint_pos.max_delay) == (0, 4)
    events = narrow.events
    assert events.add_base_mass.params["mass_distribution_params"] == (-1.0, 3.0)
    assert events.physics_material.params["static_friction_range"] == (0.4, 1.25)
    assert events.physics_material.params["dynamic_friction_range"] == (0.4, 1.25)
    assert events.actuator_gains.params["stiffness_distribution_params"] == (0.9, 1.1)
    assert events.actuator_gains.params["damping_distribution_params"] == (0.9, 1.1)
    changed = {
        "actions.joint_pos.max_delay",
        "events.add_base_mass.params.mass_distribution_params",
        "events.physics_material.params.static_friction_range",
        "events.physics_material.params.dynamic_friction_range",
        "events.actuator_gains.params.stiffness_distribution_params",
        "events.actuator_gains.params.damping_distribution_params",
    }
    assert _differences(full, narrow) == changed
    played = _resolved(task, play_mode=True, presets=f"{REAL_GO2},climbable")
    assert played.to_dict() == _resolved(task, play_mode=True, presets=REAL_GO2).to_dict()
    recorded = training_conditions(narrow)
    assert recorded["action_delay_s"] == [0.0, 0.02]
    assert recorded["events"]["add_base_mass"]["mass_distribution_params"] == [-1.0, 3.0]


def test_bundle_records_what_training_randomised():
    from go2_locomotion.export.manifest import training_conditions

    real = training_conditions(_resolved("Go2-Flat", presets=REAL_GO2))
    assert real["action_delay_s"] == [0.0, 0.04]  # 8 physics steps of 5 ms
    events = real["events"]
    assert events["actuator_gains"]["function"] == "randomize_actuator_gains"
    assert events["actuator_gains"]["stiffness_distribution_params"] == [0.8, 1.2]
    assert events["add_base_mass"]["mass_distribution_params"] == [-1.0, 7.0]
    assert events["push_robot"]["velocity_range"] == {"x": [-1.0, 1.0], "y": [-1.0, 1.0]}
    assert events["push_robot"]["mode"] == "interval" and events["push_robot"]["interval_range_s"] == [10.0, 15.0]
    assert "asset_cfg" not in events["physics_material"]  # a selection, not a range
    # the first Go2's training: no delay, no gain or joint randomisation, the trunk mass scaled
    default = training_conditions(_resolved("Go2-Flat", presets=FIRST_GO2))
    assert default["action_delay_s"] == [0.0, 0.0] and "actuator_gains" not in default["events"]
    assert default["events"]["add_base_mass"]["mass_distribution_params"] == [0.8, 1.25]


def test_a_bundle_records_the_ranges_its_run_trained_against_not_the_exports(tmp_path):
    """A run trained with presets=climbable (or the same ranges as Hydra overrides) and exported without it: the
    bundle's training entry is read from the run's params/env.yaml, Isaac Lab's dump of what it trained on."""
    from isaaclab.utils.io import dump_yaml

    from go2_locomotion import run_params
    from go2_locomotion.export.manifest import training_conditions, training_conditions_of_run

    narrow = _resolved("Go2-Rough", presets=f"{REAL_GO2},climbable")
    dump_yaml(str(tmp_path / run_params.PARAMS_ENV), narrow)
    recorded = training_conditions_of_run(run_params.load(tmp_path / run_params.PARAMS_ENV))
    from_config = training_conditions(narrow)
    assert recorded["events"] == from_config["events"]  # the dump and the config agree, term by term
    assert recorded["action_delay_s"] == [0.0, 0.02]  # 4 physics steps of 5 ms
    assert recorded["events"]["physics_material"]["static_friction_range"] == [0.4, 1.25]
    assert "asset_cfg" not in recorded["events"]["actuator_gains"]  # a selection, not a range
    assert recorded["source"] == "the run's resolved training configuration (params/env.yaml)"
    exported = training_conditions(_resolved("Go2-Rough", presets=REAL_GO2))  # the export's own presets
    assert exported["events"]["physics_material"]["static_friction_range"] == [0.2, 1.25]
