"""A real OpenAI-compatible HTTP server for tests: the real `openai` client talks to it over a socket.

Scriptable: `fake.script(Reply(...), ...)` queues replies consumed in order
(content, fenced JSON, invalid JSON, HTTP errors with Retry-After, slow
answers, streamed chunks). With the queue empty it answers like the offline
demo model when the request carries `inkstone_task` / `inkstone_context`
(sent when settings.LLM_SEND_TASK_METADATA is on), so whole-book tests run
through the real client. Every request is recorded (without Authorization).

Fixtures: `fake_openai` (the server), `use_fake_openai` (settings point at it),
`llm_worker_env` (environment for a worker subprocess)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

TEST_KEY = "test-key"


@dataclass
class Reply:
    """One scripted answer. `path` is "chat" or "embeddings"."""

    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    # Seconds to wait before answering (past the client's timeout: a timeout).
    delay: float = 0.0
    # Streamed pieces; by default a streamed reply splits `content` into a few pieces.
    chunks: list[str] | None = None
    chunk_delay: float = 0.0
    # False: no usage field (nor usage chunk), so the client must estimate.
    usage: bool = True
    message: str = ""
    path: str = "chat"

    @classmethod
    def json(cls, value: Any, *, fenced: bool = False, prose: str = "") -> Reply:
        text = json.dumps(value, ensure_ascii=False)
        if fenced:
            text = f"```json\n{text}\n```"
        return cls(content=f"{prose}{text}")

    @classmethod
    def error(cls, status: int, *, retry_after: str | None = None, message: str = "", path: str = "chat") -> Reply:
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        return cls(status=status, headers=headers, message=message or f"scripted HTTP {status}", path=path)

    @classmethod
    def slow(cls, seconds: float, content: str = "{}") -> Reply:
        return cls(content=content, delay=seconds)


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    authorized: bool
    at: float


class FakeOpenAI:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._queue: list[Reply] = []
        self._task_overrides: dict[str, Callable[[dict[str, Any], str], str | None]] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def script(self, *replies: Reply, **one: Any) -> None:
        """Queue replies: `script(Reply(...), Reply.error(429, retry_after="1"))` or `script(content="...")`."""
        with self._lock:
            self._queue.extend(replies)
            if one:
                self._queue.append(Reply(**one))

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def on_task(self, task: str, respond: Callable[[dict[str, Any], str], str | None]) -> None:
        """Answer one task's requests with respond(context, default_answer); None keeps the default."""
        self._task_overrides[task] = respond

    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path == "chat"]

    def _record_and_pop(self, *, path: str, body: dict[str, Any], headers: dict[str, str]) -> Reply | None:
        with self._lock:
            lowered = {k.lower(): v for k, v in headers.items()}
            authorized = lowered.pop("authorization", "") == f"Bearer {TEST_KEY}"
            lowered.pop("api-key", None)
            self.requests.append(
                Recorded(path=path, body=body, headers=lowered, authorized=authorized, at=time.monotonic())
            )
            for i, reply in enumerate(self._queue):
                if reply.path == path:
                    return self._queue.pop(i)
        return None


def _estimate(text: str) -> int:
    from memory.core.budget import estimate_tokens

    return estimate_tokens(text)


def _default_content(body: dict[str, Any], overrides: dict[str, Any] | None = None) -> str:
    task = body.get("inkstone_task")
    if task:
        from generation.llm.demo import demo_respond

        context = dict(body.get("inkstone_context") or {})
        answer = demo_respond(str(task), context, str(body.get("inkstone_language") or "en"))
        override = (overrides or {}).get(str(task))
        if override is not None:
            replaced = override(context, answer)
            if replaced is not None:
                return str(replaced)
        return answer
    return "OK"


def _fake_vector(text: str, dims: int = 8) -> list[float]:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [(b - 128) / 128 for b in digest[:dims]]


def _handler_for(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def do_POST(self) -> None:
            # The client may have given up (timeout): nothing left to answer.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._serve()

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            if self.path.rstrip("/").endswith("/chat/completions"):
                path = "chat"
            elif self.path.rstrip("/").endswith("/embeddings"):
                path = "embeddings"
            else:
                self._json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
                return
            reply = fake._record_and_pop(path=path, body=body, headers=dict(self.headers.items())) or Reply(path=path)
            if reply.delay:
                time.sleep(reply.delay)
            if reply.status != 200:
                error = {"error": {"message": reply.message, "type": "scripted_error", "code": str(reply.status)}}
                self._json(reply.status, error, headers=reply.headers)
                return
            if path == "embeddings":
                self._embeddings(body, reply)
            elif body.get("stream"):
                self._stream(body, reply)
            else:
                self._chat(body, reply)

        def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _usage(self, body: dict[str, Any], content: str) -> dict[str, int]:
            prompt = sum(_estimate(str(m.get("content", ""))) for m in body.get("messages") or [])
            completion = _estimate(content)
            return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

        def _chat(self, body: dict[str, Any], reply: Reply) -> None:
            content = reply.content if reply.content is not None else _default_content(body, fake._task_overrides)
            payload: dict[str, Any] = {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", ""),
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
            }
            if reply.usage:
                payload["usage"] = self._usage(body, content)
            self._json(200, payload)

        def _stream(self, body: dict[str, Any], reply: Reply) -> None:
            content = reply.content if reply.content is not None else _default_content(body, fake._task_overrides)
            pieces = reply.chunks if reply.chunks is not None else _split(content)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()

            def event(payload: dict[str, Any] | str) -> None:
                data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
                self.wfile.write(f"data: {data}\n\n".encode())
                self.wfile.flush()

            base = {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": body.get("model", ""),
            }
            event(
                {
                    **base,
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
                }
            )
            for piece in pieces:
                if reply.chunk_delay:
                    time.sleep(reply.chunk_delay)
                event({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
            event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            include = bool((body.get("stream_options") or {}).get("include_usage"))
            if include and reply.usage:
                event({**base, "choices": [], "usage": self._usage(body, "".join(pieces))})
            event("[DONE]")

        def _embeddings(self, body: dict[str, Any], reply: Reply) -> None:
            raw = body.get("input")
            texts = [raw] if isinstance(raw, str) else list(raw or [])
            data = []
            for i, text in enumerate(texts):
                vec = _fake_vector(str(text), int(body.get("dimensions") or 8))
                if body.get("encoding_format") == "base64":
                    encoded: Any = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode("ascii")
                else:
                    encoded = vec
                data.append({"object": "embedding", "index": i, "embedding": encoded})
            tokens = sum(_estimate(str(t)) for t in texts)
            payload: dict[str, Any] = {"object": "list", "data": data, "model": body.get("model", "")}
            if reply.usage:
                payload["usage"] = {"prompt_tokens": tokens, "total_tokens": tokens}
            self._json(200, payload)

    return Handler


def _split(content: str, size: int = 40) -> list[str]:
    return [content[i : i + size] for i in range(0, len(content), size)] or [""]


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def use_fake_openai(fake_openai: FakeOpenAI, settings: Any) -> FakeOpenAI:
    """Point the LLM layer at the test server (and make retry backoff fast)."""
    settings.OPENAI_API_KEY = TEST_KEY
    settings.OPENAI_BASE_URL = f"{fake_openai.url}/v1"
    settings.LLM_SEND_TASK_METADATA = True
    settings.LLM_RETRY_BASE_SECONDS = 0.01
    return fake_openai


@pytest.fixture
def llm_worker_env(fake_openai: FakeOpenAI) -> dict[str, str]:
    """Environment for a worker subprocess to use the test server; see settings_llm_env in tests/conftest.py."""
    return {
        "OPENAI_API_KEY": TEST_KEY,
        "OPENAI_BASE_URL": f"{fake_openai.url}/v1",
        "INKSTONE_LLM_TASK_METADATA": "1",
        "INKSTONE_LLM_RETRY_BASE": "0.01",
    }


__all__ = ["TEST_KEY", "FakeOpenAI", "Recorded", "Reply", "fake_openai", "llm_worker_env", "use_fake_openai"]
