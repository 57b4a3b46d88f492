"""Textbook-sized versions of the book's algorithms: short functions a reader takes in at one
look, each written line by line after a numbered pseudocode block of a chapter and tested to
agree with the package's engine on the same positions.  One module per family of algorithms."""
