"""Textbook-sized versions of the algorithms, on the game protocol, tested against the engine."""
