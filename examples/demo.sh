#!/usr/bin/env bash
# make demo: what llmist's streaming parsers see in the bundled model transcripts.
set -euo pipefail
BIN="${1:-.venv/bin}"
cd "$(dirname "$0")/.."
T=examples/transcripts
# Headings in bold on a terminal only: piped to a file (or with NO_COLOR set) they are plain text,
# as llmist's own output is.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then BOLD=$'\033[1m' PLAIN=$'\033[0m'; else BOLD='' PLAIN=''; fi
say() { printf '\n%s== %s%s\n' "$BOLD" "$*" "$PLAIN"; }

say "Block syntax: two parallel calls and a dependent one, text streamed around them"
"$BIN/llmist" parse "$T/block-weather.txt"

say "The same transcript fed 3 characters at a time (as a model streams it): same calls"
"$BIN/llmist" parse "$T/block-weather.txt" --chunk 3 --json | grep -c '"gadget_call"' | xargs echo "calls:"

say "What small models get wrong: a fenced block, a gap in an array, a duplicate argument, a cut-off stream"
"$BIN/llmist" parse "$T/block-malformed.txt" --chunk 7

say "CRLF line endings and trailing spaces after markers"
"$BIN/llmist" parse "$T/block-crlf.txt" --json

say "Emoji syntax"
"$BIN/llmist" parse "$T/emoji-files.txt" --syntax emoji --chunk 5

say "An agent run offline with the mock model: calls start while the answer streams, results go back"
"$BIN/python" examples/agent/streaming.py

say "An agent at work, offline: the built-in gadgets in a temporary directory"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cat <<MSG
The model below is SCRIPTED (examples/cli/demo-script.json): canned answers replayed by the
mock model, so this runs offline and the same every time. The gadgets are real: files are written
in $WORK and commands really run there.
To use a real model, change one flag:  -m mock:examples/cli/demo-script.json  ->  -m sonnet
after $BIN/pip install -e '.[anthropic]' and with ANTHROPIC_API_KEY set ('llmist models' lists
the others). Without --yes you approve each write.
MSG
"$BIN/llmist" agent "Write a script that counts the words of a poem, run it and save the report" \
    -m mock:examples/cli/demo-script.json --builtins --root "$WORK" --yes
say "Files the agent left in $WORK"
ls -l "$WORK"
