"""The tasks' height scanner: Isaac Lab's ray caster (on OvPhysX in environment order, :mod:`..compat`), whose ground
heights come either from its ray cast or from a height grid of the terrain (:mod:`.height_grid`) built once when
the sensor starts, after the terrain exists.

Invariant: both sources fill the same outputs the same way (``pos_w``, ``quat_w``, ``ray_hits_w``, and on Newton
``ray_distances``), from the ray starts Isaac Lab's own kernel computes; so ``mdp.height_scan`` and
``base_height_l2`` read the same numbers: the grid equals the ray cast at every ray (interpolated off walls, cast on
them), checked on both engines by ``tests/sim/test_height_grid_sim.py``.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from typing import Literal

import warp as wp
from isaaclab.sensors import RayCasterCfg
from isaaclab.utils import configclass

from ..compat import private_api
from ..compat.ovphysx_ray_caster import height_scanner_class
from ..errors import UsageError
from . import height_grid

HEIGHT_SOURCES = ("height_grid", "ray_cast")
"""Where the scanner's heights come from (:attr:`HeightScannerCfg.height_source`)."""

FIELD = "env.scene.height_scanner"
"""The scanner's config path on the command line, as user errors name it."""

logger = logging.getLogger(__name__)


def make_height_scanner(cfg: HeightScannerCfg, *args, **kwargs):
    """The height scanner for ``cfg`` (its ``class_type``): the backend's ray caster in environment order, reading
    its heights from a height grid when ``cfg.height_source`` is ``"height_grid"``.

    Raises:
        UsageError: Naming the field, for a source or resolution out of its domain or rays the grid cannot read.
    """
    problems = config_problems(cfg)
    if problems:
        raise UsageError(*problems)
    ray_caster = height_scanner_class(cfg)
    if cfg.height_source == "ray_cast":
        return ray_caster(cfg, *args, **kwargs)
    return _height_grid_class(ray_caster)(cfg, *args, **kwargs)


@configclass
class HeightScannerCfg(RayCasterCfg):
    """Isaac Lab's ray-caster config, and where the heights come from."""

    class_type: type | str = make_height_scanner

    height_source: Literal["height_grid", "ray_cast"] = "height_grid"
    """``"height_grid"`` (default): heights interpolated from a grid of the terrain built once at start-up, the rays
    that land in a cell a step's riser touches cast; equal to the ray cast within 7 um at every ray on both engines
    (tests/sim/test_height_grid_sim.py), a third of its cost per scan (512 envs: 45 against 140 ms) and a policy step
    1.12x faster (docs/performance.md). ``"ray_cast"``: every ray cast at the terrain mesh at each update, as Isaac
    Lab does."""

    grid_resolution: float = 0.05
    """Height-grid node spacing [m]: half the terrain generator's horizontal scale (0.1 m), so every height-field
    vertex is a node and the height-field terrains are reproduced exactly; a riser on a node line costs a band of
    2 x 5 cm of cast rays (7.4 % of Go2-Rough's cells, ~6 % of its rays). Go2-Rough's 120 m x 200 m terrain:
    2,401 x 4,001 nodes, 38 MB of heights + 10 MB of wall flags, built in ~8 s on one core (at 0.1 m: 12 MB, 2.5 s,
    but twice the wall cells)."""


def config_problems(cfg, path: str = FIELD) -> list[str]:
    """One message per field of a height-scanner config out of its domain (empty when usable)."""
    source = getattr(cfg, "height_source", "ray_cast")
    if source not in HEIGHT_SOURCES:
        return [f"{path}.height_source must be one of {list(HEIGHT_SOURCES)}, got {source!r}"]
    if source == "ray_cast":
        return []
    problems = []
    resolution = cfg.grid_resolution
    if isinstance(resolution, bool) or not isinstance(resolution, int | float) or not 0 < resolution < math.inf:
        problems.append(f"{path}.grid_resolution must be a finite number > 0 [m], got {resolution!r}")
    if cfg.ray_alignment not in ("yaw", "world") or tuple(cfg.offset.rot) != (0.0, 0.0, 0.0, 1.0):
        problems.append(
            f"{path}.height_source 'height_grid' reads the ground below each ray start and needs rays that stay "
            f"vertical (ray_alignment 'yaw' or 'world', offset.rot identity), got ray_alignment "
            f"{cfg.ray_alignment!r} and offset.rot {tuple(cfg.offset.rot)}; use height_source=ray_cast"
        )
    direction = tuple(getattr(cfg.pattern_cfg, "direction", (0.0, 0.0, -1.0)))
    if direction != (0.0, 0.0, -1.0):
        problems.append(
            f"{path}.height_source 'height_grid' needs rays cast straight down, got pattern_cfg.direction "
            f"{direction}; use height_source=ray_cast"
        )
    return problems


@functools.cache
def _height_grid_class(ray_caster: type) -> type:
    """``ray_caster`` with its heights read from a height grid of the terrain."""
    private_api.check_height_grid_scanner(ray_caster)

    class HeightGridScanner(ray_caster):
        """The ray caster, its heights read from a height grid built when it starts; rays in wall cells cast."""

        def _initialize_impl(self) -> None:
            super()._initialize_impl()
            mesh, start = private_api.ray_cast_mesh(self), time.perf_counter()
            try:
                self.height_grid = height_grid.rasterise(mesh, self.cfg.grid_resolution)
                """The terrain's height grid."""
            except height_grid.GridTooLarge as error:
                raise UsageError(
                    f"{FIELD}.height_source 'height_grid' on {self.cfg.mesh_prim_paths[0]}: {error}; use "
                    f"{FIELD}.height_source=ray_cast (or a coarser {FIELD}.grid_resolution)"
                ) from None
            grid = self.height_grid
            logger.info(
                "height grid of %s: %d x %d nodes at %g m (%.0f MB), %.1f %% wall cells, built in %.1f s",
                self.cfg.mesh_prim_paths[0],
                *grid.heights.shape,
                grid.resolution,
                grid.nbytes / 1e6,
                100 * float(grid.walls.float().mean()),
                time.perf_counter() - start,
            )
            self._go2_mesh_id = mesh.id
            distances = getattr(self._data, "ray_distances", None)  # Newton's data
            unused = (wp.empty((1, 1), dtype=wp.float32, device=self._device), 0)
            self._go2_distances = (distances.warp, 1) if distances is not None else unused
            normals = getattr(self._data, "ray_normals_w", None)
            if normals is not None:  # Newton's data: the grid gives no normals
                normals.torch.fill_(math.nan)

        def _update_buffers_impl(self, env_mask) -> None:
            self.get_world_poses()  # Newton: brings its model's poses up to date, as its ray cast does first
            self._update_ray_infos(env_mask)  # Isaac Lab's kernel: sensor poses, world ray starts
            wp.launch(
                height_grid.scan_kernel,
                dim=(self._num_envs, self.num_rays),
                inputs=[
                    self.height_grid.arrays,
                    self._go2_mesh_id,
                    env_mask,
                    self._ray_starts_w,
                    self._ray_directions_w,
                    float(self.cfg.max_distance),
                    self.ray_cast_drift.warp,
                    self._data.ray_hits_w.warp,
                    *self._go2_distances,
                ],
                device=self._device,
            )

    HeightGridScanner.__name__ = HeightGridScanner.__qualname__ = f"HeightGrid{ray_caster.__name__}"
    return HeightGridScanner
