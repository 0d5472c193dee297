"""Exceptions raised by llmist and by gadgets.

The hierarchy::

    LlmistError
    ├── GadgetError                 a gadget is badly defined or cannot be found
    ├── InvalidParametersError      a call's parameters do not fit the gadget's schema
    ├── GadgetSignal                raised *inside* a gadget to steer the run
    │   ├── ModelRetry              ask the model to call again with better arguments
    │   ├── TaskCompletionSignal    end the agent loop with a summary
    │   └── HumanInputRequired      ask the human a question and continue with the answer
    ├── GadgetAbortedError          ``ctx.signal.throw_if_aborted()`` after cancellation
    │   └── GadgetTimeoutError      the gadget ran past its timeout

    UserWarning
    └── UntypedParameterWarning     a ``@gadget`` function has parameters without type hints

:class:`LlmistError` itself lives in :mod:`llmist.errors` (re-exported here), whose docstring
draws the tree across every layer.
"""

from __future__ import annotations

from llmist.errors import LlmistError

__all__ = [
    "GadgetAbortedError",
    "GadgetError",
    "GadgetSignal",
    "GadgetTimeoutError",
    "HumanInputRequired",
    "InvalidParametersError",
    "LlmistError",
    "ModelRetry",
    "TaskCompletionSignal",
    "UntypedParameterWarning",
]


class GadgetError(LlmistError):
    """A gadget is badly defined (missing description, bad schema) or cannot be resolved."""


class InvalidParametersError(LlmistError):
    """A call's parameters do not fit the gadget's schema; the message is written for the model."""


class GadgetSignal(LlmistError):
    """Base of the exceptions a gadget raises to steer the run rather than to report a failure."""


class ModelRetry(GadgetSignal):
    """Raised by a gadget to ask the model to call it again with better arguments.

    The message goes back to the model as the call's error. Each gadget has a retry budget
    (``GadgetExecutor(max_retries=...)``); past it the call fails for good.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        """What the model should change."""


class TaskCompletionSignal(GadgetSignal):
    """Raised by a gadget to end the agent loop; ``summary`` becomes the call's result."""

    def __init__(self, summary: str = "Task completed") -> None:
        super().__init__(summary)
        self.summary = summary
        """The final word of the task, returned as the gadget's result."""


class HumanInputRequired(GadgetSignal):
    """Raised by a gadget that needs an answer from the human running the agent.

    The executor asks its ``on_human_input`` handler and uses the answer as the call's result.
    """

    def __init__(self, question: str) -> None:
        super().__init__(question)
        self.question = question
        """What to ask the human."""


class GadgetAbortedError(LlmistError):
    """The gadget's cancellation signal fired (timeout or run cancelled)."""

    def __init__(self, reason: object = None) -> None:
        super().__init__(str(reason) if reason is not None else "Gadget execution was aborted")
        self.reason = reason
        """Why it was aborted: usually a :class:`GadgetTimeoutError` or a text."""


class GadgetTimeoutError(GadgetAbortedError):
    """A gadget ran longer than its ``timeout_s``."""

    def __init__(self, gadget_name: str, timeout_s: float) -> None:
        super().__init__(f"Gadget {gadget_name!r} timed out after {timeout_s:g} s")
        self.gadget_name = gadget_name
        self.timeout_s = timeout_s


class UntypedParameterWarning(UserWarning):
    """A ``@gadget`` function has parameters without type hints: a model is told they take any
    value, and nothing checks what it sends. Issued where the function is defined; silence it
    with ``warnings.filterwarnings("ignore", category=UntypedParameterWarning)``."""

    def __init__(self, message: str, gadget_name: str = "", parameters: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.gadget_name = gadget_name
        """The gadget the function became."""
        self.parameters = parameters
        """The parameters without type hints, in the function's order."""
