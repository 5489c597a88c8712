"""Compiled (numba) kernels over tree arrays that both agents and evaluators call."""
