"""``SQLAlchemySession``'s first home, kept so that imports from here keep working: the sessions
are one package now, and it lives in :mod:`llmist.agent.sessions.sqlalchemy_session`.
``from llmist import SQLAlchemySession`` is the short way."""

from __future__ import annotations

from llmist.agent.sessions.sqlalchemy_session import SessionRetry, SQLAlchemySession

__all__ = ["SQLAlchemySession", "SessionRetry"]
