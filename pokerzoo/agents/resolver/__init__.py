"""Continual re-solving agents with depth-limited leaf values (issue 30)."""
