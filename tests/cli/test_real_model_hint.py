"""The README's "one flag switches the demo to a real model": without the provider's SDK, the
error says the exact command that installs it into the llmist being run."""

from __future__ import annotations

import subprocess
import sys

from .helpers import ROOT, clean_env

_WITHOUT_ANTHROPIC = (
    "import sys; sys.modules['anthropic'] = None; "
    "sys.argv = ['llmist', 'complete', 'hi', '-m', 'sonnet']; "
    "from llmist.cli.main import main; main()"
)


def test_a_missing_sdk_names_the_install_command_for_this_python_and_checkout() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_ANTHROPIC],
        capture_output=True,
        text=True,
        env=clean_env({"ANTHROPIC_API_KEY": "sk-test"}),
        timeout=60,
    )
    assert done.returncode != 0
    message = " ".join(done.stderr.split())
    assert "needs the 'anthropic' package, which is not installed" in message
    assert f"{sys.executable} -m pip install" in message
    # The tests run an editable install of this checkout, as `make demo` does.
    assert f"-e '{ROOT}[anthropic]'" in message
