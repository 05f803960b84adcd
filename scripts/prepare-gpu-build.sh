#!/usr/bin/env bash
# Prepares, on a machine with PyPI, everything scripts/gpu-check.sh needs on an offline CUDA machine.
#
# The GPU machine has nvcc, cmake and Python 3.12 but no package index, and takes at most 64 MiB of
# files beside the repository. So this fetches the llama-cpp-python sdist, drops what a CUDA build
# never reads (other backends, docs, tests, models, examples, tools but mtmd), and downloads the
# wheels the offline install needs: the build backend (scikit-build-core and friends) and what
# llama_cpp, the synthetic GGUF writer and the benchmark import, all for CPython 3.12 on x86-64 Linux.
#
#   scripts/prepare-gpu-build.sh            # -> gpu-build/ (git-ignored)
#   scripts/prepare-gpu-build.sh DIR
#   WITH_CMAKE=0 scripts/prepare-gpu-build.sh   # without the cmake wheel (used only where the machine's cmake is < 3.21)
set -euo pipefail

VERSION=0.3.36
SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e  # PyPI's sdist of $VERSION
LIMIT=$((64 * 1024 * 1024))
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/gpu-build}
PIP=${PIP:-$ROOT/.venv/bin/python -m pip}
NAME=llama_cpp_python-$VERSION

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$OUT"
mkdir -p "$OUT/wheels"

echo "== the sdist" >&2
$PIP download --quiet --no-deps --no-binary :all: "llama-cpp-python==$VERSION" -d "$work"
echo "$SHA256  $work/$NAME.tar.gz" | sha256sum -c --quiet -
tar -xzf "$work/$NAME.tar.gz" -C "$work"
src=$work/$NAME
before=$(du -sb "$src" | cut -f1)

echo "== trimming it to what a CUDA build reads" >&2
# llama-cpp-python's own: its git history (39 MB), docs, examples, tests, docker files and scripts are not
# part of a build (the version comes from llama_cpp/__init__.py).
rm -rf "$src"/{.git,.github,.dockerignore,.readthedocs.yaml,docs,examples,tests,docker,scripts,mkdocs.yml,CHANGELOG.md,CONTRIBUTING.md,Makefile}
lc=$src/vendor/llama.cpp
# llama.cpp as a subproject builds ggml, src, common and vendor (tests, tools, examples are off);
# llama-cpp-python adds tools/mtmd itself. Keep those, the CMake helpers, headers and licenses.
keep=" CMakeLists.txt cmake ggml src include common vendor tools licenses LICENSE "
for entry in "$lc"/* "$lc"/.[!.]*; do
    [ -e "$entry" ] || continue
    case "$keep" in *" $(basename "$entry") "*) ;; *) rm -rf "$entry" ;; esac
done
for entry in "$lc"/tools/*; do
    [ "$(basename "$entry")" = mtmd ] || rm -rf "$entry"
done
# ggml adds a backend's directory only when that backend is on: a CUDA build reads ggml-cuda and
# ggml-cpu (the CPU always runs some ops), never the others.
for entry in "$lc"/ggml/src/ggml-*/; do
    case "$(basename "$entry")" in ggml-cuda | ggml-cpu) ;; *) rm -rf "$entry" ;; esac
done
after=$(du -sb "$src" | cut -f1)
(cd "$work" && tar --sort=name --owner=0 --group=0 --numeric-owner -cf - "$NAME" | gzip -9 > "$OUT/$NAME.tar.gz")

echo "== wheels for CPython 3.12 (x86-64 Linux)" >&2
wheels() {
    $PIP download --quiet --only-binary :all: --python-version 3.12 --implementation cp --abi cp312 --abi abi3 --abi none \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
        -d "$OUT/wheels" "$@"
}
# The build backend and what it needs; ninja so the build does not fall back to make.
wheels "scikit-build-core[pyproject]>=0.9.2" ninja
[ "${WITH_CMAKE:-1}" = 1 ] && wheels "cmake>=3.21,<4"
# What llama_cpp imports at run time.
wheels "typing-extensions>=4.5.0" "numpy>=1.20.0" "diskcache>=5.6.1" "jinja2>=2.11.3"
# The synthetic GGUF writer (tests/hy_v3_gguf.py): gguf imports yaml; requests and tqdm are never reached.
wheels --no-deps "gguf==0.19.0" pyyaml

cat > "$OUT/MANIFEST" <<EOF
llama-cpp-python $VERSION sdist (PyPI sha256 $SHA256), trimmed for a CUDA build:
  unpacked $before bytes -> $after bytes; $NAME.tar.gz $(stat -c %s "$OUT/$NAME.tar.gz") bytes
wheels:
$(cd "$OUT/wheels" && ls -1 | sed 's/^/  /')
EOF
total=$(du -sb "$OUT" | cut -f1)
echo "total: $total bytes" >> "$OUT/MANIFEST"
cat "$OUT/MANIFEST" >&2
if [ "$total" -ge "$LIMIT" ]; then
    echo "prepare-gpu-build: $OUT is $total bytes, over the 64 MiB the GPU machine takes" >&2
    exit 1
fi
printf '%s\n' "$OUT"
