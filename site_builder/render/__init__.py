"""Rendering an entry: LaTeX and Markdown to HTML, math, highlighting, and the worker processes."""
