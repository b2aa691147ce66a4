"""The Isaac Lab workflows behind ``scripts/train.py``, ``export.py``, ``evaluate.py`` and ``curves.py``: training,
export and evaluation of a checkpoint (playback, which shares their session and command line, is
:mod:`go2_locomotion.playback`).

They run on Isaac Lab 3.0's RL entrypoint helpers (``isaaclab_rl.entrypoints``) and RSL-RL's runner; what is
added here is what the scripts promise beyond them: a ``--resume`` flag, one-line errors for the mistakes users
make, checkpoint checks before anything is written, a Ctrl-C (or SIGTERM) that saves, and ``--num_steps``.
"""
