"""Static site generator for a competitive-programming problem archive."""

__version__ = "0.1.0"
