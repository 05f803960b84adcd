#!/usr/bin/env bash
# On an offline CUDA machine: build llama-cpp-python for its GPU from gpu-build/ (made by
# scripts/prepare-gpu-build.sh, carried beside the repository), then measure the writer's placements
# (bench/gpu_placement.py) into gpu-placement.json.
#
#   scripts/gpu-check.sh            # build (unless built) and measure
#   scripts/gpu-check.sh build      # only the build: a venv in build/gpu-venv (git-ignored, kept while the machine is)
#   scripts/gpu-check.sh measure    # only the measurement, with the venv a build left
#
# Results go to $OUT (the folder the machine sends back) when it is set, else to the repository root:
# gpu-placement.json, gpu-build.log (the build's last lines), gpu-check.log (what this script did, timed).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PREPARED=${GPU_BUILD:-$ROOT/gpu-build}
VENV=${GPU_VENV:-$ROOT/build/gpu-venv}
RESULTS=${OUT:-$ROOT}
STAGE=${1:-all}
VERSION=0.3.36
mkdir -p "$RESULTS" "$ROOT/build"
exec 3>>"$RESULTS/gpu-check.log"
note() { echo "[$(date +%T)] $*" | tee /dev/fd/3 >&2; }

find_cublas() {
    # llama.cpp's CUDA backend links cuBLAS. It may come with the toolkit or as a pip wheel (nvidia-cublas) in the
    # image's Python, which lacks the unversioned libcublas.so that CMake looks for: link both names from a shim.
    local shim=$ROOT/build/cuda-extra roots=("$(dirname "$CUDACXX")/.." /usr/local/cuda /usr/lib/x86_64-linux-gnu) site lib header driver
    if site=$("$python" -c 'import nvidia, os; print(list(nvidia.__path__)[0])' 2>/dev/null); then roots+=("$site"); fi
    lib=$(find -L "${roots[@]}" -name 'libcublas.so*' 2>/dev/null | head -n 1 || true)  # a missing folder is no error
    header=$(find -L "${roots[@]}" -name cublas_v2.h 2>/dev/null | head -n 1 || true)  # a missing folder is no error
    if [ -z "$lib" ] || [ -z "$header" ]; then note "no cuBLAS (libcublas.so* and cublas_v2.h) under ${roots[*]}"; exit 2; fi
    rm -rf "$shim" && mkdir -p "$shim"
    for f in "$(dirname "$lib")"/libcublas*.so*; do
        ln -sf "$f" "$shim/$(basename "$f")"
        ln -sf "$f" "$shim/$(basename "$f" | sed 's/[.]so[.].*$/.so/')"
    done
    CUBLAS_ARGS="-DCMAKE_LIBRARY_PATH=$shim -DCMAKE_CUDA_FLAGS=-I$(dirname "$header") -DCMAKE_CXX_FLAGS=-I$(dirname "$header")"
    # The driver library (for llama.cpp's virtual-memory pool); without one it builds with the plain pool.
    driver=$(find -L "${roots[@]}" /usr/local/nvidia/lib64 /usr/lib64 -name 'libcuda.so*' 2>/dev/null | head -n 1 || true)  # a missing folder is no error
    if [ -n "$driver" ]; then ln -sf "$driver" "$shim/libcuda.so"; else CUBLAS_ARGS+=" -DGGML_CUDA_NO_VMM=ON"; fi
    # What the built libraries load at run time: cuBLAS and the toolkit's runtime (their RPATH is their own folder).
    printf 'export LD_LIBRARY_PATH=%s:%s:%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n' "$shim" "$(dirname "$lib")" \
        "$(cd "$(dirname "$CUDACXX")/.." && pwd)/lib64" > "$ROOT/build/gpu-env.sh"
    note "cuBLAS: $lib; $header; driver library: ${driver:-none (GGML_CUDA_NO_VMM)}"
}

build() {
    [ -f "$PREPARED/llama_cpp_python-$VERSION.tar.gz" ] || { note "no $PREPARED: run scripts/prepare-gpu-build.sh where PyPI is reachable, and carry gpu-build"; exit 2; }
    for dir in /usr/local/cuda/bin /usr/local/cuda-13*/bin; do [ -x "$dir/nvcc" ] && PATH=$dir:$PATH; done
    export PATH CUDACXX=${CUDACXX:-$(command -v nvcc || true)}
    [ -n "$CUDACXX" ] || { note "no nvcc on PATH or in /usr/local/cuda*/bin"; exit 2; }
    python=
    for candidate in python3.12 python3; do  # a name on PATH may be a shim that does not run
        if "$candidate" -c 'import sys; assert sys.version_info >= (3, 10)' 2>/dev/null; then python=$candidate; break; fi
    done
    [ -n "$python" ] || { note "no python3.12 or python3 >= 3.10"; exit 2; }
    note "build: $($python --version), $("$CUDACXX" --version | tail -n 2 | head -n 1), cmake $(cmake --version | head -n 1 | cut -d' ' -f3), $(nproc) cores"
    nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader >&3 2>&1 || true
    find_cublas
    rm -rf "$VENV"
    "$python" -m venv --system-site-packages "$VENV"  # the image's numpy, jinja2... where it has them
    pip=("$VENV/bin/python" -m pip install --no-index --find-links "$PREPARED/wheels" --disable-pip-version-check)
    "${pip[@]}" --quiet numpy typing-extensions diskcache jinja2 pyyaml
    "${pip[@]}" --quiet --no-deps gguf
    start=$(date +%s)
    # mtmd (multimodal) is not used by hymem: LLAVA_BUILD=OFF saves its compile.
    if ! CMAKE_ARGS="-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=native -DLLAVA_BUILD=OFF $CUBLAS_ARGS" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
        "${pip[@]}" -v "$PREPARED/llama_cpp_python-$VERSION.tar.gz" > "$ROOT/build/gpu-build.log" 2>&1; then
        tail -n 300 "$ROOT/build/gpu-build.log" > "$RESULTS/gpu-build.log"
        note "build failed after $(( $(date +%s) - start )) s: see gpu-build.log"
        exit 1
    fi
    tail -n 60 "$ROOT/build/gpu-build.log" > "$RESULTS/gpu-build.log"
    note "build: llama-cpp-python $VERSION for CUDA in $(( $(date +%s) - start )) s"
    # shellcheck disable=SC1091
    . "$ROOT/build/gpu-env.sh"
    (cd "$ROOT" && "$VENV/bin/python" -c 'import sys; sys.path.insert(0, "src")
from hymem_cli.writer import llama_binding as b
print("gpu offload:", b.supports_gpu_offload())
for d in b.devices(): print(f"device {d.name} ({d.description}) {d.kind}: {d.free / 2**30:.1f} of {d.total / 2**30:.1f} GiB free")') 2>&1 | tee /dev/fd/3 >&2
}

measure() {
    [ -x "$VENV/bin/python" ] || { note "no build in $VENV: run scripts/gpu-check.sh build first"; exit 2; }
    # shellcheck disable=SC1091
    [ -f "$ROOT/build/gpu-env.sh" ] && . "$ROOT/build/gpu-env.sh"
    start=$(date +%s)
    (cd "$ROOT" && PYTHONUNBUFFERED=1 "$VENV/bin/python" bench/gpu_placement.py --out "$RESULTS/gpu-placement.json" --models-dir "$ROOT/build/gpu-models" "${@}") 2>&1 | tee /dev/fd/3 >&2
    note "measure: $(( $(date +%s) - start )) s -> $RESULTS/gpu-placement.json"
}

case "$STAGE" in
    build) build ;;
    measure) shift; measure "$@" ;;
    all) [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import llama_cpp' 2>/dev/null || build; measure ;;
    *) echo "usage: scripts/gpu-check.sh [build|measure|all]" >&2; exit 2 ;;
esac
