"""Spot authoring: hold'em spots (``holdem_spot``), ranges and bet-size syntax (``ranges``,
``bet_sizes``), spot files and their reference (``spot_file``, ``spot_format``), node locks by
line (``spot_locks``) and 13x13 class charts (``class_chart``), built on the range engine."""
