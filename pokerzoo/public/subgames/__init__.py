"""Subgames of a solved or played game: cutting a subgame out of a tree (``subgame``),
depth-limited solving and its leaf values (``depth_limit``, ``leaf_values``,
``multi_valued``), and safe re-solving (``resolve``), built on the range engine."""
