"""Textbook-sized versions of the algorithms, tested to agree with the package's engine."""
