"""`hymem model list|info|rm|pull`: local GGUFs, packaged models, and downloads through a fake hub (no network)."""

from __future__ import annotations

import hashlib
import socket
import struct
from pathlib import Path

import pytest
from conftest import one_error_line
from fakes import find_test_gguf

from hymem_cli._errors import UsageError
from hymem_cli.writer import models

# -- synthetic GGUFs (the helper of tests/test_backends.py) ------------------------------------


def _gguf_string(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def build_gguf(kvs: list[tuple[str, int, object]], *, version: int = 3) -> bytes:
    """A GGUF file of metadata only, from (key, type, value) triples (4: uint32, 8: string)."""
    out = b"GGUF" + struct.pack("<IQQ", version, 0, len(kvs))
    for key, vtype, v in kvs:
        out += _gguf_string(key) + struct.pack("<I", vtype)
        out += struct.pack("<I", v) if vtype == 4 else _gguf_string(v)
    return out


def toy_gguf(arch: str = "qwen3moe", file_type: int = 15, extra: list | None = None) -> bytes:
    return build_gguf([
        ("general.architecture", 8, arch),
        ("general.name", 8, "toy"),
        ("general.file_type", 4, file_type),
        (f"{arch}.context_length", 4, 32768),
        (f"{arch}.block_count", 4, 2),
        (f"{arch}.expert_count", 4, 128),
        (f"{arch}.expert_used_count", 4, 8),
        *(extra or []),
    ])


@pytest.fixture
def models_dir(home) -> Path:
    d = home / "models"
    d.mkdir(parents=True)
    return d


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test: the hub is always faked here."""

    def refuse(*args, **kwargs):
        raise AssertionError("a test tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.delenv(models.REPO_ENV, raising=False)


# -- list and info ------------------------------------------------------------------------------


def test_list_shows_local_packaged_and_broken_models(cli, models_dir):
    (models_dir / "toy-Q4_K_M.gguf").write_bytes(toy_gguf())
    (models_dir / "broken.gguf").write_bytes(b"<html>rate limited</html>")
    repo = models_dir / "Big-GGUF"
    repo.mkdir()
    for i in (1, 2):
        (repo / f"big-Q8_0-0000{i}-of-00002.gguf").write_bytes(toy_gguf(file_type=7))
    done = cli("model", "list", "-f", "jsonl")
    assert done.exit_code == 0, done.stderr
    rows = {r["name"]: r for r in done.jsonl()}
    assert rows["toy-Q4_K_M.gguf"]["architecture"] == "qwen3moe" and rows["toy-Q4_K_M.gguf"]["quantization"] == "Q4_K_M"
    assert rows["toy-Q4_K_M.gguf"]["source"] == "local" and rows["toy-Q4_K_M.gguf"]["error"] is None
    assert "GGUF magic" in rows["broken.gguf"]["error"] and rows["broken.gguf"]["architecture"] is None
    split = rows["Big-GGUF/big-Q8_0-00001-of-00002.gguf"]
    assert split["parts"] == 2 and split["quantization"] == "Q8_0"
    assert split["size_bytes"] == 2 * len(toy_gguf(file_type=7))
    assert not any("00002-of" in name for name in rows)  # one row per model
    if find_test_gguf():
        assert rows["smollm2"]["source"] == "packaged" and rows["smollm2"]["architecture"] == "llama"


def test_list_of_an_empty_models_dir_says_so(cli, home, monkeypatch):
    monkeypatch.setattr(models, "PACKAGED_MODELS", {})
    done = cli("model", "list", "-f", "jsonl")
    assert done.exit_code == 0 and done.stdout == ""
    assert "hymem model pull" in done.stderr


def test_info_describes_experts_and_refuses_an_unknown_architecture(cli, models_dir):
    (models_dir / "fake.gguf").write_bytes(toy_gguf(arch="notarealarch"))
    done = cli("model", "info", "fake", "-f", "json")
    assert done.exit_code == 0, done.stderr
    info = done.json()
    assert info["architecture"] == "notarealarch"
    assert info["expert_count"] == 128 and info["expert_used_count"] == 8 and info["context_length"] == 32768
    assert info["quantization"] == "Q4_K_M" and info["has_chat_template"] is False
    assert info["loadable"] is False and "notarealarch" in info["load_detail"]


def test_info_skips_the_load_check_when_asked(cli, models_dir):
    (models_dir / "toy.gguf").write_bytes(toy_gguf())
    info = cli("model", "info", str(models_dir / "toy.gguf"), "--no-check", "-f", "json").json()
    assert info["loadable"] is None and info["load_detail"] == "not checked"


def test_info_on_the_packaged_smollm2_says_it_loads(cli, home, packaged_gguf):
    done = cli("model", "info", packaged_gguf, "-f", "json")
    assert done.exit_code == 0, done.stderr
    info = done.json()
    assert info["architecture"] == "llama" and info["quantization"] == "Q4_1" and info["has_chat_template"] is True
    assert info["loadable"] is True
    assert done.stderr == ""  # llama.cpp's log stays off the terminal


def test_info_of_an_unknown_model_is_an_input_error(cli, models_dir):
    one_error_line(cli("model", "info", "nothing-here"), 3, "no model", "nothing-here")  # 4 is for memory ids and revisions


def test_info_of_a_truncated_file_is_a_writer_error(cli, models_dir):
    (models_dir / "cut.gguf").write_bytes(toy_gguf()[:40])
    one_error_line(cli("model", "info", "cut.gguf"), 6, "truncated")


# -- rm ---------------------------------------------------------------------------------------------


def test_rm_deletes_every_part_of_a_split_model_after_confirming(cli, models_dir):
    folder = models_dir / "Big-GGUF"
    (folder / ".cache" / "huggingface" / "download").mkdir(parents=True)
    (folder / ".cache" / "huggingface" / ".gitignore").write_text("*\n")
    parts = [folder / f"big-Q8_0-0000{i}-of-00003.gguf" for i in (1, 2, 3)]
    for p in parts:
        p.write_bytes(toy_gguf())
        (folder / ".cache" / "huggingface" / "download" / f"{p.name}.metadata").write_text("x")
    declined = cli("model", "rm", "Big-GGUF/big-Q8_0-00001-of-00003.gguf", input="n\n")
    assert declined.exit_code == 1 and "not confirmed" in declined.stderr
    assert all(p.exists() for p in parts)

    done = cli("model", "rm", "big-Q8_0-00002-of-00003.gguf", input="y\n")  # any part names the model
    assert done.exit_code == 0, done.stderr
    assert "deleted 3 file(s)" in done.stderr and "Delete 3 file(s)" in done.stderr  # the prompt is on stderr
    assert done.stdout.strip() in ("", "y")  # CliRunner echoes typed input to stdout, as a terminal would
    assert not any(p.exists() for p in parts)
    assert not folder.exists()  # the folder held nothing else, so it went too
    assert models_dir.exists()


def test_rm_keeps_other_models_in_the_folder(cli, models_dir):
    folder = models_dir / "Repo-GGUF"
    folder.mkdir()
    (folder / "a-Q4_K_M.gguf").write_bytes(toy_gguf())
    (folder / "a-Q8_0.gguf").write_bytes(toy_gguf(file_type=7))
    assert cli("model", "rm", "Repo-GGUF/a-Q4_K_M.gguf", "--yes").exit_code == 0
    assert not (folder / "a-Q4_K_M.gguf").exists() and (folder / "a-Q8_0.gguf").exists()


def test_rm_refuses_packaged_models_and_files_outside_the_models_dir(cli, models_dir, tmp_path):
    if find_test_gguf():
        one_error_line(cli("model", "rm", "smollm2", "--yes"), 2, "packaged")
        assert Path(find_test_gguf()).exists()
    outside = tmp_path / "mine.gguf"
    outside.write_bytes(toy_gguf())
    one_error_line(cli("model", "rm", str(outside), "--yes"), 2, "not in the models directory")
    assert outside.exists()
    one_error_line(cli("model", "rm", "absent.gguf", "--yes"), 3, "no model")


# -- pull through a fake hub --------------------------------------------------------------------------


class FakeHub:
    """Stands in for the three hub functions of hymem_cli.models; records what was asked."""

    def __init__(self, files: dict[str, bytes], sha256: dict[str, str] | None = None):
        self.files = files
        self.sha256 = sha256 if sha256 is not None else {n: hashlib.sha256(b).hexdigest() for n, b in files.items()}
        self.downloads: list[tuple[str, str, str | None]] = []
        self.repos: list[str] = []

    def install(self, monkeypatch) -> FakeHub:
        monkeypatch.setattr(models, "hub_list_files", self.list_files)
        monkeypatch.setattr(models, "hub_sha256", self.checksums)
        monkeypatch.setattr(models, "hub_download", self.download)
        return self

    def list_files(self, repo, revision):
        self.repos.append(repo)
        return [*self.files, "README.md", ".gitattributes"]

    def checksums(self, repo, names, revision):
        return {n: self.sha256.get(n) for n in names}

    def download(self, repo, filename, revision, local_dir):
        self.downloads.append((repo, filename, revision))
        target = Path(local_dir) / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(self.files[filename])
        return target


QUANTS = {
    "Hy-Q4_K_M.gguf": toy_gguf(file_type=15),
    "Hy-Q4_K_S.gguf": toy_gguf(file_type=14),
    "Hy-IQ4_XS.gguf": toy_gguf(file_type=30),
    "Q8_0/Hy-Q8_0-00001-of-00003.gguf": toy_gguf(file_type=7),
    "Q8_0/Hy-Q8_0-00002-of-00003.gguf": toy_gguf(file_type=7),
    "Q8_0/Hy-Q8_0-00003-of-00003.gguf": toy_gguf(file_type=7),
    "mmproj-F16.gguf": toy_gguf(file_type=1),
}


def test_pull_by_quant_downloads_into_the_repo_folder_and_verifies(cli, models_dir, monkeypatch):
    hub = FakeHub(QUANTS).install(monkeypatch)
    done = cli("model", "pull", "--quant", "q4_k_m", "--revision", "v1", "-f", "json")
    assert done.exit_code == 0, done.stderr
    record = done.json()
    assert hub.repos == [models.DEFAULT_REPO]
    assert hub.downloads == [(models.DEFAULT_REPO, "Hy-Q4_K_M.gguf", "v1")]
    target = models_dir / "Hy-Memory-30B-A3B-GGUF" / "Hy-Q4_K_M.gguf"
    assert target.read_bytes() == QUANTS["Hy-Q4_K_M.gguf"]
    assert record["path"] == str(target) and record["quantization"] == "Q4_K_M" and record["checksum"] == "verified"
    assert record["name"] == "Hy-Memory-30B-A3B-GGUF/Hy-Q4_K_M.gguf"
    assert "Hy-Q4_K_M.gguf" in done.stderr  # what was chosen is said on stderr
    # The pulled model is usable by name right away.
    listed = {r["name"] for r in cli("model", "list", "-f", "jsonl").jsonl()}
    assert "Hy-Memory-30B-A3B-GGUF/Hy-Q4_K_M.gguf" in listed


def test_pull_of_a_split_model_fetches_every_part_in_order(cli, models_dir, monkeypatch):
    hub = FakeHub(QUANTS).install(monkeypatch)
    done = cli("model", "pull", "owner/Other-GGUF", "--quant", "Q8_0", "-f", "json")
    assert done.exit_code == 0, done.stderr
    assert [f for _, f, _ in hub.downloads] == [f"Q8_0/Hy-Q8_0-0000{i}-of-00003.gguf" for i in (1, 2, 3)]
    record = done.json()
    assert len(record["files"]) == 3 and record["quantization"] == "Q8_0"
    assert record["size_bytes"] == 3 * len(QUANTS["Q8_0/Hy-Q8_0-00001-of-00003.gguf"])
    assert all(Path(f).exists() for f in record["files"])


def test_pull_by_file_glob_and_from_the_repo_env(cli, models_dir, monkeypatch):
    hub = FakeHub(QUANTS).install(monkeypatch)
    monkeypatch.setenv(models.REPO_ENV, "someone/Mirror-GGUF")
    done = cli("model", "pull", "--file", "*IQ4_XS*", "-f", "json")
    assert done.exit_code == 0, done.stderr
    assert hub.repos == ["someone/Mirror-GGUF"] and [f for _, f, _ in hub.downloads] == ["Hy-IQ4_XS.gguf"]
    assert (models_dir / "Mirror-GGUF" / "Hy-IQ4_XS.gguf").exists()


def test_pull_with_an_ambiguous_or_unknown_quant_lists_the_candidates(cli, models_dir, monkeypatch):
    hub = FakeHub(QUANTS).install(monkeypatch)
    ambiguous = cli("model", "pull", "--quant", "Q4_K")
    one_error_line(ambiguous, 2, "matches 2 models", "Hy-Q4_K_M.gguf", "Hy-Q4_K_S.gguf")
    unknown = cli("model", "pull", "--quant", "Q3_K_L")
    one_error_line(unknown, 2, "no model matches --quant Q3_K_L", "Hy-Q4_K_M.gguf", "Hy-Q8_0-00001-of-00003.gguf (3 parts)")
    assert "mmproj" not in unknown.stderr
    assert hub.downloads == []


def test_pull_without_a_choice_takes_the_default_quant(cli, models_dir, monkeypatch):
    hub = FakeHub(QUANTS).install(monkeypatch)
    assert cli("model", "pull", "-f", "json").exit_code == 0
    assert [f for _, f, _ in hub.downloads] == [f"Hy-{models.DEFAULT_QUANT}.gguf"]


def test_checksum_mismatch_removes_the_file(cli, models_dir, monkeypatch):
    hub = FakeHub(QUANTS, sha256={"Hy-Q4_K_M.gguf": "0" * 64}).install(monkeypatch)
    done = cli("model", "pull", "--quant", "Q4_K_M", "--quiet")
    one_error_line(done, 6, "sha256", "does not match", "removed")
    assert hub.downloads and not (models_dir / "Hy-Memory-30B-A3B-GGUF" / "Hy-Q4_K_M.gguf").exists()


def test_a_download_that_is_not_gguf_is_removed(cli, models_dir, monkeypatch):
    FakeHub({"Bad-Q4_K_M.gguf": b"<html>404</html>"}, sha256={}).install(monkeypatch)
    done = cli("model", "pull", "--quant", "Q4_K_M")
    assert done.stderr.splitlines()[0].startswith("tencent/Hy-Memory-30B-A3B-GGUF: 1 file(s) chosen by --quant Q4_K_M")
    assert done.exit_code == 6 and done.stderr.splitlines()[-1].startswith("hymem: error: Bad-Q4_K_M.gguf is not a GGUF file")
    assert not (models_dir / "Hy-Memory-30B-A3B-GGUF" / "Bad-Q4_K_M.gguf").exists()


def test_no_checksum_on_the_hub_is_reported(cli, models_dir, monkeypatch):
    FakeHub({"Only-Q4_K_M.gguf": toy_gguf()}, sha256={}).install(monkeypatch)
    done = cli("model", "pull", "-f", "json")
    assert done.exit_code == 0, done.stderr
    assert done.json()["checksum"] == "not available from the hub"


def test_pull_list_shows_the_repository_without_downloading(cli, models_dir, monkeypatch):
    hub = FakeHub(QUANTS).install(monkeypatch)
    done = cli("model", "pull", "--list", "-f", "plain")
    assert done.exit_code == 0
    assert done.stdout.splitlines() == ["Hy-IQ4_XS.gguf", "Hy-Q4_K_M.gguf", "Hy-Q4_K_S.gguf", "Q8_0/Hy-Q8_0-00001-of-00003.gguf"]
    assert hub.downloads == []


def test_network_errors_are_one_line_with_a_hint(cli, models_dir, monkeypatch):
    import huggingface_hub

    def unreachable(self, repo_id, **kwargs):
        raise OSError("[Errno -2] Name or service not known")

    monkeypatch.setattr(huggingface_hub.HfApi, "list_repo_files", unreachable)
    done = cli("model", "pull", "--quant", "Q4_K_M")
    one_error_line(done, 6, "cannot reach the Hugging Face Hub", "HF_ENDPOINT", "--model PATH")


def test_hub_errors_name_the_problem():
    from huggingface_hub import errors

    def make(cls):
        exc = cls.__new__(cls)
        Exception.__init__(exc, "404")
        return exc

    assert "no repository" in models._hub_error(make(errors.RepositoryNotFoundError), "x/y", None).message
    assert "no revision" in models._hub_error(make(errors.RevisionNotFoundError), "x/y", "v9").message


def test_file_choice_rules():
    files = list(QUANTS)
    assert models.choose_files(files, quant="IQ4_XS")[0] == ["Hy-IQ4_XS.gguf"]
    assert models.choose_files(files, file_glob="Q8_0/*00002*")[0] == [f"Q8_0/Hy-Q8_0-0000{i}-of-00003.gguf" for i in (1, 2, 3)]
    assert models.choose_files(["only.gguf", "README.md"])[0] == ["only.gguf"]
    with pytest.raises(UsageError):
        models.choose_files(["a-Q5_K_M.gguf", "b-Q6_K.gguf"])  # several models, no default quant among them
    missing_part = ["M-Q8_0-00001-of-00003.gguf", "M-Q8_0-00003-of-00003.gguf"]
    with pytest.raises(Exception, match="lacks parts"):
        models.choose_files(missing_part, quant="Q8_0")
    with pytest.raises(Exception, match="no .gguf files"):
        models.choose_files(["README.md"])


def test_pull_rejects_a_bad_repo_id_and_conflicting_flags(cli, models_dir, monkeypatch):
    FakeHub(QUANTS).install(monkeypatch)
    one_error_line(cli("model", "pull", "not-a-repo"), 2, "not a repository id")
    one_error_line(cli("model", "pull", "--quant", "Q4_K_M", "--file", "*.gguf"), 2, "--file and --quant")


def test_the_hub_seam_reads_lfs_checksums_and_downloads_into_local_dir(models_dir, monkeypatch, tmp_path):
    """The real seam functions, with huggingface_hub's own calls replaced (still no network)."""
    import huggingface_hub
    from huggingface_hub.hf_api import RepoFile

    data = toy_gguf()
    digest = hashlib.sha256(data).hexdigest()
    asked = {}

    def get_paths_info(self, repo_id, paths, revision=None, **kwargs):
        asked["paths"] = (repo_id, list(paths), revision)
        return [RepoFile(path="Hy-Q4_K_M.gguf", size=len(data), oid="abc", lfs={"size": len(data), "oid": digest, "pointerSize": 130}),
                RepoFile(path="small.gguf", size=10, oid="def")]

    def hf_hub_download(repo_id, filename, revision=None, local_dir=None, **kwargs):
        asked["download"] = (repo_id, filename, revision, Path(local_dir))
        target = Path(local_dir) / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return str(target)

    monkeypatch.setattr(huggingface_hub.HfApi, "get_paths_info", get_paths_info)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", hf_hub_download)
    assert models.hub_sha256("o/r", ["Hy-Q4_K_M.gguf", "small.gguf", "gone.gguf"], "main") == {
        "Hy-Q4_K_M.gguf": digest, "small.gguf": None, "gone.gguf": None}
    assert asked["paths"] == ("o/r", ["Hy-Q4_K_M.gguf", "small.gguf", "gone.gguf"], "main")
    path = models.hub_download("o/r", "Hy-Q4_K_M.gguf", None, models_dir / "r")
    assert path == models_dir / "r" / "Hy-Q4_K_M.gguf" and models.verify_download(path, digest) == "verified"
