"""Playback people can watch and steer: viewers (:mod:`.viewer`), live velocity commands (:mod:`.steering`, the
viser page panel :mod:`.page`) and recordings (:mod:`.recording`). ``scripts/play.py`` puts them together."""
