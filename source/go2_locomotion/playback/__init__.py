"""Playback people can watch and steer: the play workflow (:mod:`.play`, ``scripts/play.py``), its viewers
(:mod:`.viewer`), live velocity commands (:mod:`.steering`, the viser page panel :mod:`.page`) and recordings
(:mod:`.recording`)."""
