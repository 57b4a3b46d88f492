"""Textbook functions: each algorithm of the book as a short function over the game protocol, tested to agree with the engine."""
