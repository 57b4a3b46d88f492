"""Reference solutions of the exercises (same file and function names as ``exercises/``).

The grader compares a student's functions with these.  A submission that imports this package
gets no points for the exercise set that does so.
"""
