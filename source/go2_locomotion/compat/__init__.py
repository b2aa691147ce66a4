"""Workarounds for bugs in the libraries this package runs on, one module each, each naming its upstream bug."""
