"""The OpenAI-compatible provider: the real `openai` client, with our own retries.

The client's built-in retries are off (max_retries=0) so that every attempt is
counted on the usage row, Retry-After is capped (a server asking for ten
minutes would make a job look hung) and a 400/401/404 fails at once."""

from __future__ import annotations

import email.utils
import json
import logging
import re
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

import openai
from django.conf import settings

from generation.llm.base import CallMeta, Completion
from generation.llm.errors import LLMError
from memory.core.budget import estimate_tokens

logger = logging.getLogger(__name__)

T = TypeVar("T")

# 408/409 are what the openai client itself treats as transient.
_TRANSIENT_STATUS = frozenset({408, 409, 429})
_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{4})[A-Za-z0-9_\-]+")


def redact(text: str) -> str:
    """A server's message without the API key (some servers echo it back)."""
    key = settings.OPENAI_API_KEY
    if key:
        text = text.replace(key, "[redacted]")
    return _KEYLIKE.sub(r"\1…", text)


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    message = ""
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = str(inner.get("message", "")) if isinstance(inner, dict) else str(inner)
    return redact(" ".join((message or exc.message or "").split()))[:300]


def _retry_after(headers: Any) -> float | None:
    """Seconds the server asked us to wait, from retry-after-ms or Retry-After."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(raw) if raw else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


class _Transient(Exception):
    def __init__(self, reason: str, wait: float | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait


class OpenAIBackend:
    is_demo = False

    def writes_language(self, language: str) -> bool:
        return True

    def __init__(self) -> None:
        self.client = openai.OpenAI(
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.OPENAI_BASE_URL or None,
            timeout=settings.LLM_TIMEOUT_SECONDS,
            max_retries=0,
        )

    # --- calls ------------------------------------------------------------------

    def complete(self, *, model: str, messages: list[dict[str, str]], json_mode: bool, meta: CallMeta) -> Completion:
        kwargs: dict[str, Any] = {"model": model, "messages": messages, "extra_body": self._extra_body(meta)}
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        response, attempts = self._retrying(model=model, call=lambda: self.client.chat.completions.create(**kwargs))
        text = (response.choices[0].message.content or "") if response.choices else ""
        usage = response.usage
        return Completion(
            text=text,
            tokens_in=usage.prompt_tokens if usage else _estimate_in(messages),
            tokens_out=usage.completion_tokens if usage else estimate_tokens(text),
            attempts=attempts,
        )

    def stream(
        self, *, model: str, messages: list[dict[str, str]], meta: CallMeta, on_delta: Callable[[str], None]
    ) -> Completion:
        received: list[str] = []
        usage_seen: list[Any] = []

        def run() -> None:
            chunks = self.client.chat.completions.create(
                model=model,
                messages=cast(Any, messages),
                stream=True,
                stream_options={"include_usage": True},
                extra_body=self._extra_body(meta),
            )
            for chunk in chunks:
                if chunk.usage is not None:
                    usage_seen.append(chunk.usage)
                for choice in chunk.choices or []:
                    piece = choice.delta.content if choice.delta else None
                    if piece:
                        received.append(piece)
                        on_delta(piece)

        # Once text has been shown (and appended to the job) a retry would repeat it.
        _none, attempts = self._retrying(model=model, call=run, retryable=lambda: not received)
        text = "".join(received)
        usage = usage_seen[-1] if usage_seen else None
        return Completion(
            text=text,
            tokens_in=usage.prompt_tokens if usage else _estimate_in(messages),
            tokens_out=usage.completion_tokens if usage else estimate_tokens(text),
            attempts=attempts,
        )

    def embed(self, *, model: str, texts: list[str]) -> tuple[list[list[float]], Completion]:
        response, attempts = self._retrying(
            model=model,
            call=lambda: self.client.embeddings.create(model=model, input=texts, encoding_format="float"),
        )
        vectors = [list(d.embedding) for d in sorted(response.data, key=lambda d: d.index)]
        if len(vectors) != len(texts):
            raise LLMError(f"The embedding model '{model}' returned {len(vectors)} vectors for {len(texts)} texts.")
        tokens = response.usage.prompt_tokens if response.usage else sum(estimate_tokens(t) for t in texts)
        return vectors, Completion(text="", tokens_in=tokens, tokens_out=0, attempts=attempts)

    # --- plumbing -----------------------------------------------------------------

    def _extra_body(self, meta: CallMeta) -> dict[str, Any] | None:
        if not settings.LLM_SEND_TASK_METADATA:
            return None
        # Round-trip through JSON so a stray non-serialisable value cannot break the request.
        context = json.loads(json.dumps(meta.context, default=str, ensure_ascii=False))
        return {"inkstone_task": meta.task, "inkstone_context": context, "inkstone_language": meta.language}

    def _retrying(
        self, *, model: str, call: Callable[[], T], retryable: Callable[[], bool] = lambda: True
    ) -> tuple[T, int]:
        attempts = 0
        while True:
            attempts += 1
            try:
                return call(), attempts
            except openai.APIStatusError as exc:
                if exc.status_code not in _TRANSIENT_STATUS and exc.status_code < 500:
                    raise LLMError(self._refused(exc, model=model)) from None
                failure = _Transient(f"HTTP {exc.status_code}", _retry_after(exc.response.headers))
            except openai.APITimeoutError:
                failure = _Transient(f"no answer within {settings.LLM_TIMEOUT_SECONDS:g} s", None)
            except openai.APIConnectionError as exc:
                failure = _Transient(f"connection failed ({type(exc.__cause__ or exc).__name__})", None)
            except openai.APIError as exc:  # e.g. an error event in the middle of a stream
                failure = _Transient(f"server error ({redact(str(exc))[:200]})", None)
            if not retryable():
                raise LLMError(
                    f"The model server stopped in the middle of its answer ({failure.reason}); "
                    "what arrived so far is kept. Run the step again."
                )
            if attempts > settings.LLM_MAX_RETRIES:
                raise LLMError(
                    f"The model server failed {attempts} {'time' if attempts == 1 else 'times'} in a row "
                    f"(last: {failure.reason}) for model '{model}'. "
                    "It may be overloaded or unreachable: try again later, or check OPENAI_BASE_URL"
                    + (" and INKSTONE_LLM_TIMEOUT." if "within" in failure.reason else ".")
                )
            wait = self._wait(attempts=attempts, asked=failure.wait)
            logger.warning(
                "model call to %s failed (%s); retry %d of %d in %.2f s",
                model,
                failure.reason,
                attempts,
                settings.LLM_MAX_RETRIES,
                wait,
            )
            time.sleep(wait)

    @staticmethod
    def _wait(*, attempts: int, asked: float | None) -> float:
        cap = settings.LLM_RETRY_MAX_WAIT_SECONDS
        if asked is not None:
            return min(asked, cap)
        return min(settings.LLM_RETRY_BASE_SECONDS * 2 ** (attempts - 1), cap)

    @staticmethod
    def _refused(exc: openai.APIStatusError, *, model: str) -> str:
        status, detail = exc.status_code, _server_message(exc)
        said = f" The server said: {detail}" if detail else ""
        if status == 401:
            return f"The model server rejected the API key (HTTP 401). Check OPENAI_API_KEY.{said}"
        if status == 403:
            return f"The API key may not use model '{model}' (HTTP 403). Check the account's access.{said}"
        if status == 404:
            return (
                f"Model '{model}' or the API endpoint was not found (HTTP 404). "
                f"Check the model name in the novel's settings and OPENAI_BASE_URL.{said}"
            )
        if status == 400:
            return (
                f"The model server refused the request for model '{model}' as invalid (HTTP 400); "
                f"the prompt may be too long for the model or the model name wrong.{said}"
            )
        return f"The model server refused the request for model '{model}' (HTTP {status}).{said}"


def _estimate_in(messages: list[dict[str, str]]) -> int:
    return sum(estimate_tokens(m.get("content", "")) for m in messages)
