"""The A2A protocol, both ways, on the official ``a2a-sdk`` (``pip install 'llmist[a2a]'``).

- **Serve**: :func:`to_a2a` makes an agent an A2A server (an ASGI app): its card at
  ``/.well-known/agent-card.json``, JSON-RPC at ``/a2a``; :func:`serve_a2a` runs it
  (``llmist a2a serve``).
- **Call**: :class:`A2AGadget` makes a remote A2A agent a gadget.

See docs/a2a.md.
"""

from llmist.a2a.app import A2AApp, serve_a2a, to_a2a
from llmist.a2a.gadget import A2AGadget, RemoteAgentError

__all__ = ["A2AApp", "A2AGadget", "RemoteAgentError", "serve_a2a", "to_a2a"]
