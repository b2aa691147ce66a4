"""Deploy bundle: ``policy.onnx`` and ``deploy.yaml`` for running a trained Go2 policy outside Isaac Lab.

- robot side, importing nothing of the package but its base modules: :mod:`.bundle` reads and checks a bundle
  (numpy, onnxruntime, PyYAML; no Isaac Lab); :mod:`.controller` is the deploy-side reference controller (same
  imports);
- MuJoCo: :mod:`.sim2sim` runs a bundle in plain MuJoCo on this package's Go2 description, scripted or over the
  evaluation's grids; :mod:`.offscreen` picks its off-screen renderer;
- Isaac side: :mod:`.manifest` writes the bundle from a live Isaac Lab environment (the export workflows call it).

None of them imports the training or playback workflows (docs/design.md, "Layers").
"""
