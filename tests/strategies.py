"""Hypothesis strategies shared by several test packages."""

from __future__ import annotations

from hypothesis import strategies as st

any_text = st.lists(
    st.one_of(
        st.characters(exclude_categories=()),
        st.characters(categories=["Cs"]),  # lone surrogates, which st.text() rarely draws
        st.sampled_from("\x1b\r\x00\x7f\x85\u202e\n"),
    ),
    max_size=40,
).map("".join)
"""Any string: lone surrogates, control characters and line separators drawn often."""


def replaced(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD: the rule for text leaving the process."""
    return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)
