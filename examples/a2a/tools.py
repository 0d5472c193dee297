"""Gadgets for `llmist a2a serve -g examples/a2a/tools.py` (docs/a2a.md)."""

from llmist import gadget


@gadget
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


@gadget(requires_approval=True)
def send_email(to: str, subject: str) -> str:
    """Send an email (a person approves each one)."""
    return f"Sent {subject!r} to {to}."
