"""The package's viser visualizer: Isaac Lab's, selected through the config's ``class_type`` (no library method is
replaced), with the upstream viewer defect repaired (:mod:`go2_locomotion.compat.viser_viewer`), its viser server
public for the command panel, and recordings of every frame whether or not a browser is connected (Isaac Lab's
visualizer draws only for connected browsers)."""

from __future__ import annotations

from isaaclab.utils import configclass
from isaaclab_visualizers.viser import ViserVisualizer, ViserVisualizerCfg

from ..compat import private_api, viser_viewer


@configclass
class Go2ViserVisualizerCfg(ViserVisualizerCfg):
    """Isaac Lab's viser visualizer config, creating :class:`Go2ViserVisualizer`."""

    class_type: type | str = "go2_locomotion.playback.viser_visualizer:Go2ViserVisualizer"


class Go2ViserVisualizer(ViserVisualizer):
    """Isaac Lab's viser visualizer with the upstream viewer defect repaired, its server public, and recordings of
    every frame."""

    cfg: Go2ViserVisualizerCfg

    def _create_viewer(self, record_to_viser: str | None, metadata: dict | None = None) -> None:
        super()._create_viewer(record_to_viser, metadata)
        viser_viewer.repair(self._viewer)

    @property
    def server(self):
        """The ``viser.ViserServer`` behind the page (its ``gui`` adds controls), or ``None`` once closed."""
        return None if self._viewer is None else private_api.viser_server(self._viewer)

    def has_clients(self) -> bool:
        server = self.server
        return server is not None and len(server.get_clients()) > 0

    def step(self, dt: float) -> None:
        """Isaac Lab's step (draws for connected browsers, recording what it draws); while recording with no
        browser connected, Isaac Lab's step draws nothing, so the frame is drawn here for the recording."""
        watched = self.has_clients()
        super().step(dt)
        if self.cfg.record_to_viser and self._viewer is not None and dt > 0.0 and not watched:
            self.draw_frame()

    def draw_frame(self) -> None:
        """Draw the current scene into the viewer (and so into the recording)."""
        from isaaclab.scene_data import SceneDataFormat

        backend, provider = self.backend, self._scene_data_provider
        self._viewer.begin_frame(self._sim_time)
        try:
            poses = SceneDataFormat.Transform()
            if provider.get_transforms(poses, mapping=self._transform_mapping, count=backend.model.body_count):
                backend.state_0.body_q = poses.transforms
            self._viewer.log_state(backend.state_0)
            if self.cfg.enable_markers:
                self._render_markers(backend.model.num_envs)
        finally:
            self._viewer.end_frame()
