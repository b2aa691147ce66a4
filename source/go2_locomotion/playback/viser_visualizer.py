"""The package's viser visualizer: Isaac Lab's, selected through the config's ``class_type`` (no library method is
replaced), with the upstream viewer defect repaired (:mod:`go2_locomotion.compat.viser_viewer`), its viser server
public for the command panel, and recordings of every frame whether or not a browser is connected (Isaac Lab's
visualizer draws only for connected browsers). What it reads of Isaac Lab's visualizer beyond its public methods
goes through :mod:`go2_locomotion.compat.private_api`."""

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

    def initialize(self, scene_data_provider) -> None:
        """Isaac Lab's start (it creates the viewer; no browser is connected yet), then the viewer repaired."""
        super().initialize(scene_data_provider)
        viewer = private_api.viser_visualizer_viewer(self)
        if viewer is not None:
            viser_viewer.repair(viewer)

    @property
    def server(self):
        """The ``viser.ViserServer`` behind the page (its ``gui`` adds controls), or ``None`` once closed."""
        viewer = private_api.viser_visualizer_viewer(self)
        return None if viewer is None else private_api.viser_server(viewer)

    def has_clients(self) -> bool:
        server = self.server
        return server is not None and len(server.get_clients()) > 0

    def step(self, dt: float) -> None:
        """Isaac Lab's step (draws for connected browsers, recording what it draws); while recording with no
        browser connected, Isaac Lab's step draws nothing, so the frame is drawn here for the recording."""
        watched = self.has_clients()
        super().step(dt)
        running = private_api.viser_visualizer_viewer(self) is not None
        if self.cfg.record_to_viser and running and dt > 0.0 and not watched:
            self.draw_frame()

    def draw_frame(self) -> None:
        """Draw the current scene into the viewer (and so into the recording)."""
        private_api.draw_viser_frame(self)
