"""Observation widths from the configuration alone (no simulator): each group's terms, as the observation
vocabulary sizes them and Isaac Lab's ray pattern functions count their rays."""

from __future__ import annotations

from ...robot.observations import OBSERVATION_TERMS

# Imported inside functions: the deploy manifest (it imports the task configs: Isaac Lab, heavy), Isaac Lab's preset
# class (heavy).


def observation_groups(env_cfg) -> dict:
    """The observation groups of an environment config, by name. A group still an unresolved preset (the ``critic``
    of ``presets=privileged_critic`` before a command line selects) counts as its ``default``, what no selector
    gives."""
    from isaaclab_tasks.utils import PresetCfg

    groups = {}
    for name, group in vars(env_cfg.observations).items():
        if isinstance(group, PresetCfg):
            group = getattr(group, "default", None)
        if group is not None and not name.startswith("_"):
            groups[name] = group
    return groups


def config_observation_term_widths(env_cfg) -> dict[str, dict[str, int | None]]:
    """Width of each observation term, per group, from the config alone (no simulator): the width the observation
    vocabulary gives the term's function (recognised by identity,
    :func:`~go2_locomotion.export.manifest.observation_format_name`; widths from
    :data:`~go2_locomotion.robot.observations.OBSERVATION_TERMS`), and for a term of one value per ray the number of
    rays Isaac Lab's own pattern function casts for its sensor's pattern.

    A term still an unresolved preset counts as its ``default``. A term whose function the deploy side does not know
    gets ``None``; ``tests/sim/test_tasks_sim.py`` compares
    these widths with the ones the live observation manager reports.
    """
    from isaaclab_tasks.utils import PresetCfg  # Isaac Lab task configs: heavy

    from ...export.manifest import observation_format_name
    from ...tasks.mdp.history import group_length

    widths: dict[str, dict[str, int | None]] = {}
    for group_name, group in observation_groups(env_cfg).items():
        terms: dict[str, int | None] = {}
        group_steps = group_length(group)  # the group's length overrides its terms'
        for term_name, term in vars(group).items():
            if isinstance(term, PresetCfg):  # a term a preset may take out (presets=no_lin_vel): its default
                term = term.default
            func = getattr(term, "func", None)
            if func is None:
                continue
            name = observation_format_name(func)
            width = OBSERVATION_TERMS[name].width if name is not None else None
            if name is not None and width is None:  # one value per ray of the term's scanner
                pattern = getattr(env_cfg.scene, term.params["sensor_cfg"].name).pattern_cfg
                ray_starts, _ = pattern.func(pattern, "cpu")
                width = int(ray_starts.shape[0])
            # a history of H steps, flattened: H x the step's width
            steps = group_steps if group_steps is not None else term.history_length
            terms[term_name] = width * max(steps, 1) if width is not None else None
        widths[group_name] = terms
    return widths


def config_observation_widths(env_cfg) -> dict[str, int | None]:
    """Observation width of each group from the config alone (:func:`config_observation_term_widths` added up);
    ``None`` for a group with a term of unknown width, whose live width is read once the environment exists."""
    return {
        group: None if None in terms.values() else sum(terms.values())
        for group, terms in config_observation_term_widths(env_cfg).items()
    }
