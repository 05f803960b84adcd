"""Which project folders the user trusts, as git trusts a repository: what an untrusted `.hymem/` may set, and the records.

A cloned repository can ship `.hymem/config.toml` and `.hymem/bank.db`. Until the user trusts the project
(`hymem trust`, or `hymem init`, which makes it theirs), its config may only set what can neither move data nor
weaken a screen, and its bank is not used. A trust record holds a fingerprint of the project's config: when the
config changes (a `git pull`), the project is untrusted again for those settings.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

# What a project's config may set without trust: how results are ranked and shown, how text is chunked and embedded.
# Everything else (writer.*, screen.*, embed.model, bank.*, model.*) can send data elsewhere, run someone else's
# code or switch a screen off.
PROJECT_SAFE = frozenset({
    "search.limit", "search.fusion", "search.vector_weight", "search.text_weight", "search.newer_first",
    "search.sources_weight", "search.speaker_updates", "search.speaker_weight", "search.server", "search.min_score",
    "ingest.chunk_tokens", "embed.onnx", "embed.context", "embed.date",
    "hooks.briefing_tokens", "hooks.recall_tokens",  # how much context, within config.MAXIMUM: moves no data, weakens no screen
})

# embed.model from a project, even a trusted one, is one of the packaged models by name: never a path, which
# sentence-transformers would load (and, before version 6, run code from).
PROJECT_MODEL_NAMES = frozenset({
    "minilm", "mpnet", "all-minilm-l6-v2", "all-mpnet-base-v2",
    "sentence-transformers/all-minilm-l6-v2", "sentence-transformers/all-mpnet-base-v2",
})


def fingerprint(config_file: Path) -> str:
    """The project config's content as the trust record holds it: `b2:` + blake2b of its bytes; "" when there is none.

    Changing this changes every record: projects would have to be trusted again."""
    try:
        data = config_file.read_bytes()
    except FileNotFoundError:
        return ""
    return "b2:" + hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True)
class TrustRecord:
    """The user's word on one project: the config fingerprint they accepted and the bank file it may use."""

    config: str  # fingerprint() of .hymem/config.toml when trusted ("" : it had none)
    bank: str  # the bank's real path when trusted (a symlink is used only while it still points there)

    def as_table(self) -> dict[str, str]:
        return {"config": self.config, "bank": self.bank}


def record_for(project: Path) -> TrustRecord:
    """What trusting `project` (a `.hymem/` folder) records now."""
    return TrustRecord(fingerprint(project / "config.toml"), str((project / "bank.db").resolve()))


def root_key(project: Path) -> str:
    """A project's name in the records: the real path of the folder that holds `.hymem/`."""
    return str(project.parent.resolve())


def parse_records(table: object) -> dict[str, TrustRecord]:
    """The `[trust]` table of the user's config; entries that are not tables of text are left out (trusting nothing)."""
    records: dict[str, TrustRecord] = {}
    if not isinstance(table, dict):
        return records
    for root, entry in table.items():
        if isinstance(entry, dict) and all(isinstance(entry.get(k, ""), str) for k in ("config", "bank")):
            records[root] = TrustRecord(entry.get("config", ""), entry.get("bank", ""))
    return records


@dataclass(frozen=True)
class ProjectTrust:
    """How far one project is trusted now: its config's risky settings, and its bank."""

    project: Path
    record: TrustRecord | None

    @property
    def config_trusted(self) -> bool:
        return self.record is not None and self.record.config == fingerprint(self.project / "config.toml")

    def bank_refusal(self) -> str | None:
        """Why the project's bank may not be used, or None. Trust is the user's record; a symlink or a bank
        owned by another user needs it too, and a symlink only while it points where it did when trusted."""
        bank = self.project / "bank.db"
        if self.record is None:
            owner = "" if not bank.exists() else "" if _owned_by_me(bank) else " (its bank belongs to another user)"
            return f"{self.project.parent} is a hymem project you have not trusted{owner}"
        if self.record.bank and bank.is_symlink() and str(bank.resolve()) != self.record.bank:
            return f"{bank} is a link that points elsewhere than when you trusted the project"
        if bank.exists() and not _owned_by_me(bank):
            return f"{bank} belongs to another user"
        return None

    def allows(self, key: str, value: object) -> bool:
        """Whether the project's config may set `key` to `value`."""
        if key == "embed.model":
            return self.config_trusted and isinstance(value, str) and value.strip().lower() in PROJECT_MODEL_NAMES
        return key in PROJECT_SAFE or self.config_trusted


def _owned_by_me(path: Path) -> bool:
    getuid = getattr(os, "getuid", None)
    return getuid is None or path.lstat().st_uid == getuid()
