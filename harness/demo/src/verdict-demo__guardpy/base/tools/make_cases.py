"""Writes tests/generated/cases.json, the table the tests check `clamp` against. Run after
install (the project's own recipe does, like OmniGIRL's dateutil recipe writing pytest.ini)."""

import json
from pathlib import Path

CASES = [
    {"value": 5, "range": "1..10", "clamped": 5},
    {"value": -4, "range": "-3..3", "clamped": -3},
    {"value": 42, "range": "0..7", "clamped": 7},
]

out = Path(__file__).resolve().parent.parent / "tests" / "generated" / "cases.json"
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text(json.dumps(CASES, indent=2) + "\n")
print(f"wrote {out}")
