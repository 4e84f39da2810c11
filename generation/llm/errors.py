"""The one error the LLM layer raises; its message is shown to the author as is."""

from __future__ import annotations


class LLMError(Exception):
    """A model call failed in a way a person can act on (message says what and which step).

    Messages never contain the API key: every message built from a server's
    reply goes through :func:`generation.llm.openai_backend.redact` first."""
