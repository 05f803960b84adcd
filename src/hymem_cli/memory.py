"""One memory bank in use, as a Python API: what one command, MCP session or hook owns, and the operations every face calls.

A `Memory` holds the settings (checked once), the bank chosen by the same rules everywhere (and refused when an
untrusted project offers it), a screen with its own memory of the secrets it redacted, the embedder, and the open
bank. The CLI, `hymem mcp`, `hymem serve` and `hymem eval` parse their input, call these operations and render what
comes back; a new ranking setting or ingest step is a change here, not in each face. It knows nothing of the
terminal: what a person should be told goes through `say`, and a bank upgrade reports through `upgrade_progress`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hymem_cli import config

if TYPE_CHECKING:
    from collections.abc import Iterator

    from hymem_cli.bank import Bank
    from hymem_cli.bank.memory_text import MemoryText
    from hymem_cli.bank.revert import RevertPlan
    from hymem_cli.bank.search import SearchFilter
    from hymem_cli.bank.store import RevisionDraft
    from hymem_cli.bank.transfer import ExportFile
    from hymem_cli.domain import Operation, Rejection
    from hymem_cli.ingest.pipeline import ChunkProcessor, IngestReport
    from hymem_cli.ingest.sources import Source
    from hymem_cli.ingest.writing import WriteReport
    from hymem_cli.screen import Screen


@dataclass
class AddResult:
    """What `Memory.add` did: the ingest's report (for an add through the queue: the messages stored and the chunks
    queued), which writer proposed (None: raw ingest, or none configured), and what the writer then wrote (None when
    it did not run)."""

    report: IngestReport
    writer: dict | None
    written: WriteReport | None = None
    queued: int = 0  # chunks of these sources still queued for a writer after the add


@dataclass
class TakenIn:
    """What `Memory.take_in` did with one instruction file: the operations applied (or, dry, that would be), the items
    refused and why, the kinds of secrets redacted, and the revision (None when nothing changed)."""

    source: str
    yours: bool
    operations: list[Operation]
    refused: list[Rejection]
    redacted: list[str]
    revision: int | None = None


@dataclass
class Change:
    """A revision an operation made (apply, revert, forget) and its net diff; what was redacted before storing."""

    revision: RevisionDraft
    entries: list[dict]
    plan: RevertPlan | None = None
    redacted: list[str] | None = None


@dataclass
class Imported:
    """What `Memory.import_` stored: records by kind, the secrets it redacted, the embedder the vectors came from."""

    counts: dict[str, int]
    redacted: list[str]
    embed_model: str | None


class Memory:
    """The settings, screen, embedder and bank of one use of hymem, and its operations; see the module's docstring."""

    def __init__(self, settings: config.Settings, *, bank: str | None = None, say: Callable[[str], None] | None = None,
                 upgrade_progress: Callable[[], Any] | None = None, embedder=None, writers: dict[bool, ChunkProcessor] | None = None):
        self.settings = settings
        self.bank_opt = bank  # --bank (Typer fills it from HYMEM_BANK too)
        self.say = say or (lambda text: None)
        self._upgrade_progress = upgrade_progress
        self._screen: Screen | None = None
        self._embedder = embedder  # given: a caller that holds one already (an evaluation, a test's fake)
        self._bank: Bank | None = None
        # By raw: built, and a model loaded, once, and closed with this memory; given ones belong to whoever gave them.
        self._writers: dict[bool, ChunkProcessor] = dict(writers or {})
        self._built: set[bool] = set()

    def on_bank(self, path: Path) -> Memory:
        """The same settings, embedder and writers on another bank file, with a screen of its own (an evaluation's
        fresh bank per conversation). Closing it closes that bank only."""
        return Memory(self.settings, bank=str(path), say=self.say, upgrade_progress=self._upgrade_progress, embedder=self.embedder(),
                      writers=self._writers)
    @classmethod
    def start(cls, overrides: dict[str, object] | None = None, **options: Any) -> Memory:
        """Settings from `overrides` (dotted keys: flags), HYMEM_*, the project's and the user's config, and defaults."""
        return cls(config.load(overrides), **options)

    # -- what it holds ------------------------------------------------------------------------

    @property
    def bank_choice(self) -> config.BankChoice:
        """The bank and why: --bank, HYMEM_BANK, the nearest .hymem/, bank.path, or the default. An untrusted
        project's bank is refused here (ConfigError with the way to trust it)."""
        choice = config.locate_bank(self.bank_opt, self.settings)
        choice.usable()
        return choice

    @property
    def bank_path(self) -> Path:
        return self.bank_choice.path

    @property
    def screen(self) -> Screen:
        """The screen.* settings, and a memory of the secrets redacted in this use (one command, hook or MCP call)."""
        if self._screen is None:
            from hymem_cli.screen import Screen

            self._screen = Screen.from_settings(self.settings)
        return self._screen

    @property
    def embed_model(self) -> str:
        """The model this memory's bank embeds with. A bank knows its embedder: one whose vectors came from a packaged
        model (a name, never a path: a bank from elsewhere chooses no code to run) is searched and written with it
        whatever embed.model says, so `hymem reembed --model mpnet` needs no config change; embed.model chooses the
        model of a new bank and the target of `hymem reembed`. A bank made with a model folder needs embed.model to
        name that folder (Bank.check_embedder says so)."""
        from hymem_cli.embed import PACKAGED, canonical_model

        configured = canonical_model(self.settings.embed.model)
        if self._bank is not None:
            stored = self._bank.embed_model
        else:
            from hymem_cli.bank.verify import stored_embed_model

            stored = stored_embed_model(self.bank_path)
        return stored if stored in PACKAGED else configured

    def embedder(self):
        """The bank's embedder (`embed_model`), loaded once."""
        if self._embedder is None:
            self._embedder = self.load_embedder(self.embed_model)
        return self._embedder

    def load_embedder(self, model: str):
        """`model`'s embedder. Its torch-free copies are made on first need, whatever the operation: without them every
        later search would import torch (seconds each)."""
        from hymem_cli.embed import ALIASES, canonical_model, fast_copy_missing, get_embedder

        model, fast = canonical_model(model), self.settings.embed.onnx
        # Announced only for a model that is there to copy: a bad path stays one error line.
        if fast_copy_missing(model, fast) and (model in ALIASES.values() or Path(model).exists()):
            self.say(f"preparing a torch-free copy of {model} (once for this cache, about 20 s; "
                     "afterwards searches start without torch, in under a second)")
        return get_embedder(model, prepare_fast=True, fast=fast)

    def memory_text(self) -> MemoryText:
        """What new memories embed besides their text (embed.context, embed.date)."""
        from hymem_cli.bank.memory_text import MemoryText

        return MemoryText(context=self.settings.embed.context, date=self.settings.embed.date)

    def bind_embedder(self, bank: Bank) -> None:
        bank.check_embedder(self.embed_model)  # before seconds of model loading
        bank.bind_embedder(self.embedder(), self.memory_text())

    def open_bank(self, *, embed: bool = False, create: bool = False, path: Path | None = None) -> Bank:
        """A new connection to the bank (or to `path`); `embed` binds the configured embedder. A bank written into a
        project folder gets its .gitignore first."""
        from hymem_cli.bank import open_bank
        from hymem_cli.bank.db import writable

        path = path or self.bank_path
        if create and path.parent.name == config.PROJECT_DIR:
            config.ensure_gitignore(path.parent)

        def upgrading(names: list[str]) -> None:
            self.say(f"upgrading bank {path} to this version of hymem ({', '.join(names)}); once; about a minute for a million memories")

        progress = self._upgrade_progress() if self._upgrade_progress else None
        try:
            bank = open_bank(path, self.settings.bank.busy_timeout, create=create, on_upgrade=upgrading, progress=progress)
        finally:
            if progress is not None:
                progress.close()
        if not writable(path):
            self.say(f"note: {path} is on read-only storage: opened for reading only")
        if embed:
            self.bind_embedder(bank)
        return bank

    def bank(self, *, embed: bool = False, create: bool = False) -> Bank:
        """The bank, opened on first use and kept open; `embed` binds the embedder, as does a bank that has vectors
        once a search needs them."""
        if self._bank is None:
            if embed and create and not self.bank_path.exists():
                self.embedder()  # a model that fails to load leaves no new, empty bank behind
            self._bank = self.open_bank(create=create)
        if self._bank.embedder is None and embed:
            self.bind_embedder(self._bank)
        return self._bank

    def writer(self, raw: bool = False, screen: Screen | None = None) -> ChunkProcessor:
        """The chunk processor: raw ingest, or the configured writer (WriterError when none is), built and its model
        loaded on first use and kept; it screens with `screen` (default: this memory's) until asked with another."""
        from hymem_cli.ingest.processors import build_processor

        if raw not in self._writers:
            self._writers[raw] = build_processor(self.settings, raw=raw, screen=screen or self.screen)
            self._built.add(raw)
        processor = self._writers[raw]
        processor.screen = screen or self.screen
        return processor

    @property
    def writer_loaded(self) -> bool:
        return False in self._writers

    def reopen(self) -> None:
        """Let go of the open bank, so the next operation opens the file the path names now (one moved over it)."""
        if self._bank is not None:
            self._bank.close()
            self._bank = None

    def close(self) -> None:
        for raw in self._built:
            self._writers.pop(raw).close()
        self._built.clear()
        if self._bank is not None:
            self._bank.close()
            self._bank = None

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ------------------------------------------------------------------------------

    def search(self, query: str, limit: int | None = None, flt: SearchFilter | None = None, *, ask_server: bool | None = None,
               min_score: float | None = None, ranking: dict | None = None, recalled: bool = False) -> list[dict]:
        """Memories best matching `query` by words and by meaning, ranked as search.* says (changed by `ranking`, a
        client's as `hymem serve` receives it), none scoring below the floor (search.min_score, or `min_score`). A
        running `hymem serve` for the bank answers first when search.server (or `ask_server`) allows; else the search
        runs here. `recalled`: the current hits are handed to an agent, and counted as recalled (Bank.count_recalls)
        where the search runs."""
        from hymem_cli.bank.search import Ranking, SearchFilter
        from hymem_cli.bank.search import search as search_bank

        bank = self.bank()
        bank.check_embedder(self.embed_model)  # refused here whether a server answers or not
        flt = flt or SearchFilter()
        n = limit or self.settings.search.limit
        how = Ranking.of(self.settings.search).changed(ranking or {})
        if min_score is not None:
            how = how.changed({"min_score": min_score})
        if self.settings.search.server if ask_server is None else ask_server:
            from dataclasses import asdict

            from hymem_cli import server

            hits = server.ask(bank.path, {"query": query, "limit": n, "filter": asdict(flt), **how.asdict(), "recalled": recalled})
            if hits is not None:
                return hits
        if bank.embedder is None and bank.embed_model is not None:
            self.bind_embedder(bank)
        hits = search_bank(bank, query, n, flt, how)
        if recalled and flt.as_of is None:
            bank.count_recalls({h["chain"] for h in hits if h.get("status", "current") == "current"})
        return hits

    def check_revision(self, rev: int) -> int:
        return self.bank().check_revision(rev)

    def show(self, memory: str) -> dict:
        """One memory version with its provenance and what the guards refused in its chunk."""
        from hymem_cli.bank.history import chunk_rejections

        version = self.bank().version(memory)
        version["rejections"] = chunk_rejections(self.bank(), version["id"])
        return version

    def history(self, memory: str) -> list[dict]:
        """Every version of the fact `memory` belongs to, oldest first."""
        from hymem_cli.bank.history import chain

        return chain(self.bank(), memory)

    def log(self, limit: int | None = None) -> list[dict]:
        """Revisions, newest first, with their counts and rejections."""
        from hymem_cli.bank.history import revisions

        return revisions(self.bank(), limit)

    def diff(self, rev_a: int | None = None, rev_b: int | None = None) -> tuple[int, int, list[dict]]:
        """The net change from `rev_a` (default: the one before `rev_b`) to `rev_b` (default: the latest)."""
        from hymem_cli.bank.history import diff

        bank = self.bank()
        b = bank.check_revision(bank.latest_revision() if rev_b is None else rev_b)
        a = bank.check_revision(max(b - 1, 0) if rev_a is None else rev_a)
        return a, b, diff(bank, a, b)

    def stats(self, top: int = 10) -> dict:
        return self.bank().stats(top)

    # -- writing ------------------------------------------------------------------------------

    def add(self, sources: list[Source], *, raw: bool = False, dry_run: bool = False, again: bool = False, jobs: int = 1,
            queue: bool = False, attributed: bool = False, screen: Screen | None = None, processor: ChunkProcessor | None = None,
            on_ready: Callable[[], None] | None = None,
            on_chunk: Callable[[IngestReport], None] | None = None, on_write: Callable[[WriteReport], None] | None = None) -> AddResult:
        """Ingest `sources`. Their messages are stored at once (the message layer), each chunk queued for a writer; then
        the configured writer writes the chunks of these sources (`on_write` after each), unless `queue` asks only to
        queue them, or no writer is configured. `raw`: the messages alone, nothing queued. `dry_run` and `again` go
        straight through the writer (or `processor`, one of `writer()`'s as a face wraps it), as before the queue.
        `attributed`: words of no person are an agent's (ingest.attribution), as they are stored and as they are written;
        `screen`: the messages are stored through it (default: this memory's).

        The writer loads before the bank is touched (`on_ready` is called once both are ready); a dry run on a bank
        that does not exist yet leaves none behind, and neither does an add that fails before it stored anything.
        A writer that fails on a chunk leaves it and the rest queued, its error on record (`written.errors`)."""
        if raw or dry_run or again or processor is not None:
            return self._ingest(sources, processor or self.writer(raw), dry_run=dry_run, again=again, jobs=jobs, on_ready=on_ready,
                                on_chunk=on_chunk)
        from hymem_cli.bank.store import RevisionDraft
        from hymem_cli.ingest.writing import write_queue

        writer = None if queue or not (self.settings.writer.kind or False in self._writers) else self.writer(False)
        storing = self.writer(True, screen=screen)
        if attributed:
            from hymem_cli.ingest.attribution import Attributed

            storing = Attributed(storing)
        label = self.screen.label("add" if writer is not None else "add --queue")
        draft = RevisionDraft(command=label, source=", ".join(s.name for s in sources), writer=writer.writer_info() if writer else None)
        stored = self._ingest(sources, storing, jobs=1, on_ready=on_ready, on_chunk=on_chunk, queue=True, draft=draft)
        bank, names = self.bank(), {s.name for s in sources}
        written, ended = None, "interrupted"
        try:
            if writer is not None:
                written = write_queue(bank, writer, sources=names, jobs=jobs, draft=draft, on_chunk=on_write)
            ended = "interrupted" if written is not None and written.errors else "done"
        finally:
            if draft.id is not None:
                bank.finish(draft, ended)
        stored.report.revision = draft.id
        stored.report.counts = draft.counts
        waiting = sum(s["chunks"] for s in self.queue()["sources"] if s["source"] in names)
        return AddResult(stored.report, writer.writer_info() if writer else None, written, waiting)

    def _ingest(self, sources: list[Source], processor: ChunkProcessor, *, dry_run: bool = False, again: bool = False, jobs: int = 1,
                on_ready: Callable[[], None] | None = None, on_chunk: Callable[[IngestReport], None] | None = None,
                queue: bool = False, draft: RevisionDraft | None = None) -> AddResult:
        from hymem_cli.ingest.pipeline import ingest

        new = not self.bank_path.exists()
        scratch = tempfile.TemporaryDirectory() if dry_run and new else None
        try:
            bank = self.open_bank(embed=True, create=True, path=Path(scratch.name) / "bank.db") if scratch else self.bank(embed=True, create=True)
            if on_ready is not None:
                on_ready()
            try:
                report = ingest(bank, sources, processor, chunk_tokens=self.settings.ingest.chunk_tokens, dry_run=dry_run, again=again,
                                jobs=jobs, on_chunk=on_chunk, queue=queue, draft=draft)
            except BaseException:
                if new and scratch is None:
                    self._remove_if_empty()
                raise
            finally:
                if scratch is not None:
                    bank.close()
            return AddResult(report, processor.writer_info())
        finally:
            if scratch is not None:
                scratch.cleanup()

    def write(self, *, limit: int | None = None, follow: bool = False, stop=None, jobs: int = 1,
              on_chunk: Callable[[WriteReport], None] | None = None) -> WriteReport:
        """Write the queued chunks with the configured writer (WriterError when none is, or its model fails to load)
        until none is left (`follow`: until `stop` is set), or `limit` were written; see ingest.writing."""
        from hymem_cli.ingest.writing import WriteReport, write_queue

        processor = self.writer(False)
        if not self.bank_path.exists():
            return WriteReport()
        return write_queue(self.bank(embed=True), processor, limit=limit, follow=follow, stop=stop, jobs=jobs, on_chunk=on_chunk)

    def queue(self) -> dict:
        """The writer's queue (bank/queue.status); an empty one when there is no bank yet."""
        from hymem_cli.bank import queue as chunk_queue

        if not self.bank_path.exists():
            return chunk_queue.EMPTY
        return chunk_queue.status(self.bank().conn)

    def status(self) -> dict:
        """Which bank and why, what it holds in each layer, the writer's queue, the writer configured, and whether a
        `hymem serve --write` is writing for it."""
        from hymem_cli import server

        choice = config.locate_bank(self.bank_opt, self.settings)
        counts = {"messages": 0, "pending_messages": 0, "facts": 0}
        if choice.refusal is None and choice.path.exists():
            counts = dict(zip(counts, self.bank().conn.execute(
                "SELECT count(*) FILTER (WHERE v.layer = 'message'), "
                "count(*) FILTER (WHERE v.layer = 'message' AND q.state = 'queued'), count(*) FILTER (WHERE v.layer IS NULL) "
                "FROM versions v LEFT JOIN queued_messages qm ON qm.version = v.id LEFT JOIN queue q ON q.id = qm.queue "
                "WHERE NOT EXISTS (SELECT 1 FROM retirements r WHERE r.version = v.id)").fetchone()))
        w = self.settings.writer
        return {
            "bank": str(choice.path),
            "bank_source": choice.source,
            "why": choice.refusal or choice.detail,
            "exists": choice.path.exists(),
            **counts,
            **(self.queue() if choice.refusal is None else {}),
            "writer": {"backend": w.kind or None, "model": w.model or None, "base_url": w.base_url or None} if w.kind else None,
            "serve_write": server.writing(choice.path),
        }

    def _remove_if_empty(self) -> None:
        """Take back a bank this memory created that holds no revision: the failed command leaves no file behind."""
        bank, path = self._bank, self.bank_path
        if bank is None or bank.latest_revision():
            return
        self.close()
        for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            leftover.unlink(missing_ok=True)

    def open_sources(self, names: Iterable[str], input_format: str | None = None) -> list[Source]:
        """Transcripts by file name (- or none: stdin), read and screened with this use's screen."""
        from hymem_cli.ingest.sources import open_sources

        return open_sources(list(names), input_format, screen=self.screen)

    def apply(self, ops: list[Operation], name: str) -> Change:
        """Apply operations in the public format as one revision, through the same screens and guards as a writer's:
        secrets redacted, an instruction to the agent refuses them all (naming it). Only adds may create the bank."""
        from hymem_cli._errors import InputError
        from hymem_cli.bank.history import diff

        clean, kinds = [], []
        for i, op in enumerate(ops, 1):
            kept, found, why = self.screen.screen_operation(op)
            if why:
                raise InputError(f"{name} operation {i}: {why}", hint="nothing was applied; a memory is a fact, not an order for the "
                                 "agent (screen.instructions = false applies it, on record)")
            clean.append(kept)
            kinds += found
        # Only adds can apply to a bank that does not exist yet; anything else would leave an empty bank behind.
        bank = self.bank(embed=True, create=all(op.op == "add" for op in clean))
        draft = bank.apply_operations(clean, self.screen.label("apply"), name)
        return Change(draft, diff(bank, draft.id - 1, draft.id), redacted=kinds)

    def take_in(self, path: Path, dry_run: bool = False) -> TakenIn:
        """Store the items of an agent's instruction or memory file (ingest/instruction_files.py) as memories of origin
        `document` whose source is the file, as one revision: an edit supersedes, a removal deletes, the rest stays.
        Secrets are redacted. Only the user's own files are taken in: such a file is instructions for the agent by
        design, so one in a folder the user has not trusted (a cloned repository's AGENTS.md) is someone else's
        instructions, and each of its items is refused and recorded with why. `dry_run`: what would change, nothing
        written. The same file again, unchanged, changes nothing."""
        import hashlib

        from hymem_cli._errors import InputError
        from hymem_cli.bank.store import RevisionDraft
        from hymem_cli.domain import ChunkRecord, Operation, Proposal, Rejection
        from hymem_cli.ingest import instruction_files as files

        source = str(path.resolve())
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})", hint="save it as UTF-8 and add it again") from None
        yours = files.yours(path, set(config.trust_records()))
        kept, refused, kinds = [], [], []
        why = (f"{path.name} is in a folder you have not trusted: its items are someone else's instructions for the agent "
               "(`hymem trust` its project, or `hymem init` one there, to take its files as your own words)")
        for item in files.items(text):
            clean, found = self.screen.redact(item.text)
            kinds += found
            if yours:
                kept.append(files.Item(clean, item.section))
            else:
                refused.append(Rejection(Operation("add", text=clean, origin="document"), why))
        old = self.bank().documents_of(source) if self.bank_path.exists() else []
        ops = files.plan(old, kept, path.name) if yours else []  # what an earlier, trusted, add stored stays
        done = TakenIn(source, yours, ops, refused, kinds)
        if dry_run or not (ops or refused):
            return done
        bank = self.bank(embed=True, create=True)
        # The same file in the same state, over the same memories, is one chunk: adding it again is skipped.
        state = hashlib.sha256("\0".join(["instructions", source, text, *(str(vid) for vid, _ in old)]).encode("utf-8")).hexdigest()
        draft = RevisionDraft(command=self.screen.label("add"), source=source)
        record = ChunkRecord(hash=state, source=source, message_ids=[], text="\n\n".join(i.text for i in kept))
        if bank.commit_chunk(draft, record, Proposal(ops, refused)):
            bank.finish(draft)
            done.revision = draft.id
        return done

    def export(self, current: bool = False) -> Iterator[dict]:
        """Every record of the bank (`current`: current memories only), in the format `import_` reads."""
        from hymem_cli.bank.transfer import export_records

        return export_records(self.bank(), current=current)

    def import_(self, parsed: ExportFile, name: str, *, trusted: bool = False,
                on_progress: Callable[[int, int], None] | None = None) -> Imported:
        """Store an export in an empty bank, all or nothing. An export may come from anywhere: unless `trusted` (one's own
        backup), secrets are redacted from every text and a fact that orders the agent about refuses the whole file."""
        from hymem_cli.bank.transfer import import_export, redact_records, refuse_instructions, require_empty

        redacted: list[str] = []
        if self.screen.secrets and not trusted:

            def redact(text: str) -> str:
                clean, kinds = self.screen.redact(text)
                redacted.extend(kinds)
                return clean

            redact_records(parsed, redact)
        if not trusted:
            refuse_instructions(parsed, self.screen.refusal, name)
        bank = self.bank(create=True)
        require_empty(bank)  # before the embedder loads or meta is written
        self.bind_embedder(bank)
        counts = import_export(bank, parsed, on_progress=on_progress)
        return Imported(counts, redacted, bank.embed_model)

    def reembed(self, force: bool = False, progress: Callable[[str, str, int, int | None], None] | None = None):
        """Move the bank to embed.model's vectors (a `bank.reembed.Reembedded`), or None when it holds them already and
        not `force`. The model loads before anything is written: one that fails leaves the bank as it was."""
        from hymem_cli.bank import open_bank
        from hymem_cli.bank.verify import stored_embed_model
        from hymem_cli.embed import canonical_model

        target, path = canonical_model(self.settings.embed.model), self.bank_path
        if stored_embed_model(path) == target and not force:  # read-only: nothing is written before the model has loaded
            return None
        if not path.exists():
            open_bank(path, create=False)  # the one "no bank" error
        embedder = self.load_embedder(target)
        bank = self.bank()
        done = bank.reembed(embedder, self.memory_text(), lambda phase, n, total: progress and progress(target, phase, n, total))
        self._embedder = embedder  # the bank's model from now on
        return done

    def revert(self, rev: int, force: bool = False) -> Change:
        """Undo revision `rev` as a new revision; `force` skips facts a later revision changed again."""
        from hymem_cli.bank.history import diff
        from hymem_cli.bank.revert import revert

        bank = self.bank()
        draft, plan = revert(bank, rev, force)
        return Change(draft, diff(bank, draft.id - 1, draft.id), plan)

    def forget(self, memory: str, reason: str) -> Change:
        """Retire the current version of `memory`, with `reason`, as a new revision."""
        from hymem_cli.bank.history import diff
        from hymem_cli.bank.revert import forget

        bank = self.bank()
        draft = forget(bank, memory, reason)
        return Change(draft, diff(bank, draft.id - 1, draft.id))

    # -- for agents, unasked (hooks) ---------------------------------------------------------

    def briefing(self, budget: int, *, pool: int = 500) -> tuple[str, list[dict]]:
        """What an agent is told when its session starts: the bank's current memories, the user's profile and a person's
        own words first (their standing preferences), then the rest, each group by how often it was recalled (`recall`,
        MCP search) and then newest first, none of a tool's output,
        framed as data within `budget` tokens. The text and the memories it holds; ("", []) when there is no bank or
        nothing fits."""
        from hymem_cli.framing import framed, own_words

        if budget <= 0 or not self.bank_path.exists():
            return "", []
        bank = self.bank()
        current = [m for m in bank.current(pool) if m["origin"] != "tool"]
        recalled = bank.recall_counts({m["chain"] for m in current})
        # stable: newest first among equals
        ranked = sorted(current, key=lambda m: (m.get("kind") != "profile", not own_words(m), -recalled.get(m["chain"], 0)))
        return framed("Memories hymem holds for this project (current versions only; the user's profile and own words, "
                      "then the most often recalled, then the newest first):", ranked, budget)

    def recall(self, prompt: str, budget: int) -> tuple[str, list[dict]]:
        """The current memories relevant to `prompt` (search, its relevance floor search.min_score applied), best first,
        framed as data within `budget` tokens, each counted as recalled; ("", []) for a prompt nothing relevant answers,
        or no bank."""
        from hymem_cli.framing import framed

        if budget <= 0 or not prompt.strip() or not self.bank_path.exists():
            return "", []
        hits = [m for m in self.search(prompt, recalled=True) if m.get("status", "current") == "current"]
        return framed("Memories hymem holds that may bear on this prompt (best match first):", hits, budget)

    def current(self, limit: int | None = None, as_of: int | None = None) -> list[dict]:
        """The bank's current memories, the latest revision's first (all of them unless `limit`); `as_of`: those current
        just after that revision (NotFoundError for a revision the bank does not have)."""
        bank = self.bank()
        return bank.current(limit if limit is not None else -1, None if as_of is None else bank.check_revision(as_of))

    def markdown(self, as_of: int | None = None) -> str:
        """The current memories (`as_of`: just after that revision) as Markdown, grouped by kind and source, each with
        its id and last change."""
        from hymem_cli.markdown_view import render

        memories = self.current(as_of=as_of)
        return render(memories, bank=str(self.bank_path), revision=as_of if as_of is not None else self.bank().latest_revision())

    def capture(self, transcript: str, input_format: str | None = None) -> AddResult:
        """Store an agent's session log's messages at once and queue them for a writer (`hymem write`, `hymem serve
        --write`); nothing waits for one. A log that grew since it was last stored adds only its new messages."""
        return self.add(self.open_sources([transcript], input_format), queue=True)
