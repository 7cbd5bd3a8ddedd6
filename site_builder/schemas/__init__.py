"""JSON Schemas of ``problem.yaml`` (this archive's keys and ICPC package keys) and ``site.yaml``,
for editors' completion and checking (see the README); ``tests/test_schemas.py`` keeps them in step
with the parsers in ``source/``."""

from pathlib import Path

SCHEMAS = Path(__file__).resolve().parent
PROBLEM = SCHEMAS / "problem.schema.json"
SITE = SCHEMAS / "site.schema.json"
