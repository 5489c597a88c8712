"""pokerzoo's version, on the ground floor: a checkpoint's header records it, and the modules
that write one read it here rather than from the front door (``pokerzoo/__init__.py`` stands
above every floor: a module importing its names would depend on all of them)."""

__version__ = "0.2.0"
"""The release: the one place it is written (``pyproject.toml`` reads it, ``dynamic``)."""
