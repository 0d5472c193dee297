"""Whether a call needs a person's approval, and why: :func:`approval_reason`, the one reading of
:attr:`Gadget.requires_approval` that every approver shares (deferred approvals, the terminal's
prompt, the web page)."""

from __future__ import annotations

from typing import Any

from llmist.gadgets.base import Gadget

__all__ = ["approval_reason", "may_need_approval"]


def approval_reason(gadget: Gadget, parameters: dict[str, Any]) -> str | None:
    """Why a person must approve this call of ``gadget`` with ``parameters`` (its validated
    parameters), or ``None`` when it needs no approval. A rule that raises asks for approval:
    a broken check must not let a call through."""
    rule = gadget.requires_approval
    if rule is False or rule is None:
        return None
    if rule is True:
        return f"{gadget.name} needs a person's approval for each call"
    try:
        verdict = rule(parameters)
    except Exception as exc:
        return f"{gadget.name}'s approval rule failed ({type(exc).__name__}: {exc}), so a person must decide"
    if isinstance(verdict, str):
        return verdict or f"{gadget.name} needs a person's approval for this call"
    return f"{gadget.name} needs a person's approval for this call" if verdict else None


def may_need_approval(gadget: object) -> bool:
    """Whether some call of ``gadget`` may need approval (its rule is ``True`` or a function)."""
    return bool(getattr(gadget, "requires_approval", False))
