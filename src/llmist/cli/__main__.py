"""``python -m llmist.cli``: the same as the ``llmist`` command."""

from llmist.cli.main import main

main()
