"""The ``llmist`` command line."""
