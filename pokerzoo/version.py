"""pokerzoo's version, on the ground floor: a checkpoint's header records it, and reading it
here imports nothing else of the package (``import pokerzoo`` registers every env)."""

__version__ = "0.1.0"
"""The release, as ``pyproject.toml``'s ``[project] version`` states it."""
