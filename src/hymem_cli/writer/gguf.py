"""A small pure-Python reader for GGUF headers (no llama.cpp needed).

It reads the key/value metadata and the tensor table of a GGUF v2/v3 little-endian file
so that hymem can validate a model file and describe it (`architecture`, context length,
experts, quantization, chat template) before handing it to llama.cpp, and give a clear
error for files that are not GGUF at all or were cut short by an interrupted download.
"""

from __future__ import annotations

import os
import struct
from typing import Any, BinaryIO

from hymem_cli._errors import WriterError

GGUF_MAGIC = b"GGUF"
GGUF_DEFAULT_ALIGNMENT = 32

# GGUF metadata value types.
_T_UINT8, _T_INT8, _T_UINT16, _T_INT16, _T_UINT32, _T_INT32, _T_FLOAT32 = range(7)
_T_BOOL, _T_STRING, _T_ARRAY, _T_UINT64, _T_INT64, _T_FLOAT64 = range(7, 13)

_SCALAR_FORMATS = {
    _T_UINT8: "<B",
    _T_INT8: "<b",
    _T_UINT16: "<H",
    _T_INT16: "<h",
    _T_UINT32: "<I",
    _T_INT32: "<i",
    _T_FLOAT32: "<f",
    _T_BOOL: "<?",
    _T_UINT64: "<Q",
    _T_INT64: "<q",
    _T_FLOAT64: "<d",
}

# llama.cpp's `llama_ftype` (general.file_type): the model's predominant quantization.
FILE_TYPES = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    7: "Q8_0",
    8: "Q5_0",
    9: "Q5_1",
    10: "Q2_K",
    11: "Q3_K_S",
    12: "Q3_K_M",
    13: "Q3_K_L",
    14: "Q4_K_S",
    15: "Q4_K_M",
    16: "Q5_K_S",
    17: "Q5_K_M",
    18: "Q6_K",
    19: "IQ2_XXS",
    20: "IQ2_XS",
    21: "Q2_K_S",
    22: "IQ3_XS",
    23: "IQ3_XXS",
    24: "IQ1_S",
    25: "IQ4_NL",
    26: "IQ3_S",
    27: "IQ3_M",
    28: "IQ2_S",
    29: "IQ2_M",
    30: "IQ4_XS",
    31: "IQ1_M",
    32: "BF16",
    36: "TQ1_0",
    37: "TQ2_0",
    38: "MXFP4_MOE",
    39: "NVFP4",
    40: "Q1_0",
    41: "Q2_0",
}

# Arrays we skip instead of materialising (tokenizer vocabularies run to 100k+ entries).
_KEEP_ARRAY_MAX = 64


class _Truncated(Exception):
    pass


class _Reader:
    def __init__(self, fh: BinaryIO, size: int):
        self.fh = fh
        self.size = size

    def read(self, n: int) -> bytes:
        if n < 0 or self.fh.tell() + n > self.size:
            raise _Truncated
        data = self.fh.read(n)
        if len(data) != n:
            raise _Truncated
        return data

    def skip(self, n: int) -> None:
        if n < 0 or self.fh.tell() + n > self.size:
            raise _Truncated
        self.fh.seek(n, os.SEEK_CUR)

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        n = self.unpack("<Q")
        return self.read(n).decode("utf-8", errors="replace")

    def skip_string(self) -> None:
        self.skip(self.unpack("<Q"))

    def value(self, vtype: int) -> Any:
        if vtype in _SCALAR_FORMATS:
            return self.unpack(_SCALAR_FORMATS[vtype])
        if vtype == _T_STRING:
            return self.string()
        if vtype == _T_ARRAY:
            etype = self.unpack("<I")
            count = self.unpack("<Q")
            if count <= _KEEP_ARRAY_MAX:
                return [self.value(etype) for _ in range(count)]
            self.skip_array(etype, count)
            return _SkippedArray(etype, count)
        raise ValueError(f"unknown metadata value type {vtype}")

    def skip_array(self, etype: int, count: int) -> None:
        if etype in _SCALAR_FORMATS:
            self.skip(struct.calcsize(_SCALAR_FORMATS[etype]) * count)
        elif etype == _T_STRING:
            for _ in range(count):
                self.skip_string()
        elif etype == _T_ARRAY:
            for _ in range(count):
                inner = self.unpack("<I")
                self.skip_array(inner, self.unpack("<Q"))
        else:
            raise ValueError(f"unknown metadata value type {etype}")


class _SkippedArray:
    """Stand-in for a long array that was skipped, not read."""

    def __init__(self, etype: int, count: int):
        self.etype = etype
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __repr__(self) -> str:
        return f"<array of {self.count}>"


def read_gguf_metadata(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read a GGUF header: returns (header facts, metadata key/values).

    Long arrays (vocabularies, merges) are skipped and appear as objects with a `count`.
    Raises WriterError for a missing, non-GGUF, unsupported or truncated file.
    """
    path = os.fspath(path)
    name = os.path.basename(path)
    try:
        size = os.path.getsize(path)
        fh = open(path, "rb")
    except FileNotFoundError:
        raise WriterError(
            f"model file not found: {path}", hint="check the path given to --model"
        ) from None
    except IsADirectoryError:
        raise WriterError(
            f"model path is a directory, not a GGUF file: {path}",
            hint="point --model at the .gguf file itself",
        ) from None
    except OSError as exc:
        raise WriterError(f"cannot read model file {path}: {exc.strerror or exc}") from None

    with fh:
        magic = fh.read(4)
        if magic != GGUF_MAGIC:
            raise WriterError(
                f"{name} is not a GGUF model file (it does not start with the GGUF magic)",
                hint="download a .gguf build of the model (llama.cpp format)",
            )
        r = _Reader(fh, size)
        try:
            version = r.unpack("<I")
            if version not in (2, 3):
                if version > 0xFFFF:
                    detail = "big-endian GGUF files are not supported"
                else:
                    detail = f"GGUF version {version} is not supported (expected 2 or 3)"
                raise WriterError(
                    f"{name}: {detail}",
                    hint="convert or download the model again with a current llama.cpp",
                )
            tensor_count = r.unpack("<Q")
            kv_count = r.unpack("<Q")
            meta: dict[str, Any] = {}
            for _ in range(kv_count):
                key = r.string()
                vtype = r.unpack("<I")
                meta[key] = r.value(vtype)
            # Tensor table: only the largest data offset is kept, to detect cut-off files.
            max_offset = 0
            for _ in range(tensor_count):
                r.skip_string()
                n_dims = r.unpack("<I")
                r.skip(8 * n_dims)
                r.skip(4)  # ggml type
                max_offset = max(max_offset, r.unpack("<Q"))
            header_end = fh.tell()
        except _Truncated:
            raise WriterError(
                f"{name} is truncated: its GGUF header ends early ({size} bytes on disk)",
                hint="the download was probably interrupted; download the model again",
            ) from None
        except (ValueError, struct.error) as exc:
            raise WriterError(
                f"{name} has a corrupt GGUF header: {exc}",
                hint="download the model again",
            ) from None

    alignment = meta.get("general.alignment", GGUF_DEFAULT_ALIGNMENT)
    if not isinstance(alignment, int) or alignment <= 0:
        alignment = GGUF_DEFAULT_ALIGNMENT
    data_start = -(-header_end // alignment) * alignment
    if tensor_count and data_start + max_offset >= size:
        raise WriterError(
            f"{name} is truncated: its tensor data needs more than {data_start + max_offset} "
            f"bytes but the file has {size}",
            hint="the download was probably interrupted; download the model again",
        )
    facts = {
        "version": version,
        "tensor_count": tensor_count,
        "kv_count": kv_count,
        "size_bytes": size,
        "data_offset": data_start,
    }
    return facts, meta


def inspect_gguf(path: str | os.PathLike) -> dict[str, Any]:
    """Describe a GGUF model file without loading it.

    Returns a dict with: path, file (name), size_bytes, version, tensor_count,
    architecture, name, context_length, block_count, expert_count, expert_used_count,
    file_type (int or None), quantization (e.g. "Q4_K_M" or None), has_chat_template.
    Raises WriterError on a missing, non-GGUF or truncated file.
    """
    facts, meta = read_gguf_metadata(path)
    arch = meta.get("general.architecture")
    arch = arch if isinstance(arch, str) else None

    def arch_key(suffix: str) -> Any:
        value = meta.get(f"{arch}.{suffix}") if arch else None
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    file_type = meta.get("general.file_type")
    file_type = file_type if isinstance(file_type, int) else None
    template = meta.get("tokenizer.chat_template")
    return {
        "path": os.fspath(path),
        "file": os.path.basename(os.fspath(path)),
        "size_bytes": facts["size_bytes"],
        "version": facts["version"],
        "tensor_count": facts["tensor_count"],
        "architecture": arch,
        "name": meta.get("general.name") if isinstance(meta.get("general.name"), str) else None,
        "context_length": arch_key("context_length"),
        "block_count": arch_key("block_count"),
        "expert_count": arch_key("expert_count"),
        "expert_used_count": arch_key("expert_used_count"),
        "file_type": file_type,
        "quantization": FILE_TYPES.get(file_type) if file_type is not None else None,
        "has_chat_template": isinstance(template, str) and bool(template.strip()),
    }
