"""hymem: a local, inspectable long-term memory bank written by a memory-writer LLM."""

import os as _os

__version__ = "0.1.0"

# Nothing leaves a trace outside hymem's own folders: libraries that record usage are told not to, before any of
# them loads (onnxruntime keeps an event store and a device id under ~/.cache/Microsoft unless this is set first).
for _name in ("ORT_DISABLE_TELEMETRY", "HF_HUB_DISABLE_TELEMETRY", "DO_NOT_TRACK"):
    _os.environ.setdefault(_name, "1")
