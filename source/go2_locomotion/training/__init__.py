"""Training, playback and export workflows behind ``scripts/train.py`` and ``scripts/play.py``.

They run on Isaac Lab 3.0's RL entrypoint helpers (``isaaclab_rl.entrypoints``) and RSL-RL's runner; what is
added here is what the scripts promise beyond them: a ``--resume`` flag, one-line errors for the mistakes users
make, checkpoint checks before anything is written, a Ctrl-C (or SIGTERM) that saves, and ``--num_steps``.
"""
