"""``python -m site_builder``: the ``site-builder`` command."""

import sys

from .launch import main

sys.exit(main())
