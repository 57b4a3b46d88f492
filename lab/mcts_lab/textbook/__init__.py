"""Textbook functions: each algorithm as a short function over the game protocol."""
