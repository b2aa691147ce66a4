"""How a manager term config names its MDP term: by the function or class object, never by name."""

from __future__ import annotations


def term_is(func, term) -> bool:
    """Whether a term config's ``func`` is the MDP term ``term``: the function or class itself (a config), or an
    instance of the class (a live manager builds one from a class term)."""
    return func is term or (isinstance(term, type) and isinstance(func, term))
