"""The default theme, shipped inside the package: ``templates/`` and ``static/`` (in a checkout,
links to the project's own folders, which are the theme's source) and the Node packages its math
and SVG workers need (``package.json``, ``package-lock.json``). See ``source/theme.py``."""

from pathlib import Path

PACKAGED = Path(__file__).resolve().parent
