"""JSON schemas the writer's answers must match; llama.cpp turns them into a decoding grammar."""

from __future__ import annotations

MAX_OPERATIONS = 12  # per chunk: more is a runaway, not a conversation's worth of facts
MAX_FACT_CHARS = 400
MAX_EVIDENCE_CHARS = 200  # "a short exact quote": the grammar stops a runaway quote here

_OPERATION = {
    "type": "object",
    "properties": {
        "op": {"type": "string", "enum": ["add", "update", "supersede", "delete"]},
        "target": {"type": "integer"},
        "text": {"type": "string", "maxLength": MAX_FACT_CHARS},
        "reason": {"type": "string", "maxLength": MAX_FACT_CHARS},
        "evidence": {"type": "string", "maxLength": MAX_EVIDENCE_CHARS},
    },
    "required": ["op", "evidence"],
    "additionalProperties": False,
}

OPERATIONS_SCHEMA = {
    "type": "object",
    "properties": {"operations": {"type": "array", "items": _OPERATION, "maxItems": MAX_OPERATIONS}},
    "required": ["operations"],
    "additionalProperties": False,
}

# First pass of the two-pass pipeline: facts only, no knowledge of the bank.
FACTS_SCHEMA = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "maxItems": MAX_OPERATIONS,
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "maxLength": MAX_FACT_CHARS},
                    "evidence": {"type": "string", "maxLength": MAX_EVIDENCE_CHARS},
                },
                "required": ["text", "evidence"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}
