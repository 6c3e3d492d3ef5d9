"""Self-play datasets (docs/selfplay.md)."""
