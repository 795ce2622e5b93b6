"""Every model call fits its model's context window, or says in one line that it cannot.

The model here is a local stand-in for a small OpenAI-compatible server (the embedded
model's llama.cpp has 2,048 tokens): it reports its window at ``/props`` as llama.cpp
does, counts a request's prompt (characters / 4 of its messages and tools) and refuses,
with the HTTP 400 and error code such servers send, any request whose prompt plus
``max_tokens`` do not fit. memdir must never see that refusal.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from background.helpers import chat
from memdir.agents.consolidate.run import preview_consolidation
from memdir.agents.extract import MemoryExtractor
from memdir.api import Memdir
from memdir.llm import Message, ModelTooSmall, OpenAICompatProvider, Request
from memdir.llm.context import MIN_ANSWER_TOKENS, fit_request, prompt_tokens
from memutil import save_ledger_notes

pytest.importorskip("openai")


@dataclass(kw_only=True)
class SmallModel:
    """The stand-in's state: its window, what it says of it, the requests it got."""

    n_ctx: int = 2048
    says: int | None = 2048  # what /props reports (None: no /props, as many servers)
    replies: list[str] = field(default_factory=list)
    chats: list[dict[str, Any]] = field(default_factory=list)
    refused: int = 0
    url: str = ""
    tokenizes: bool = False  # answers /tokenize as llama.cpp does (one token a word)
    tokenized: int = 0

    def prompt(self, body: dict[str, Any]) -> int:
        return len(json.dumps(body.get("messages", [])) + json.dumps(body.get("tools", []))) // 4


def _handler(model: SmallModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path == "/props" and model.says is not None:
                self._json(200, {"default_generation_settings": {"n_ctx": model.says}})
            elif self.path == "/v1/models":
                self._json(200, {"object": "list", "data": [{"id": "small", "object": "model"}]})
            else:
                self._json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            if not self.path.endswith("/chat/completions"):
                if self.path != "/tokenize" or not model.tokenizes:
                    self._json(404, {"error": {"message": "not found"}})
                    return
                model.tokenized += 1
                self._json(200, {"tokens": list(range(len(str(body["content"]).split())))})
                return
            model.chats.append(body)
            asked = model.prompt(body) + int(body.get("max_tokens") or 0)
            if asked > model.n_ctx:
                model.refused += 1
                error = {
                    "message": f"requested {asked} tokens, the context is {model.n_ctx}",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
                self._json(400, {"error": error})
                return
            text = model.replies.pop(0) if model.replies else "Nothing to change."
            self._json(200, _reply(text, model.prompt(body)))

        def _json(self, status: int, data: dict[str, Any]) -> None:
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def _reply(text: str, prompt: int) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "small",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": 3, "total_tokens": prompt + 3},
    }


@contextmanager
def small_model(**state: Any) -> Iterator[SmallModel]:
    model = SmallModel(**state)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(model))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    model.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def provider(model: SmallModel, **options: Any) -> OpenAICompatProvider:
    return OpenAICompatProvider(model="small", base_url=model.url, dialect="prompt", **options)


def ask(text: str, max_tokens: int = 8192) -> Request:
    return Request(messages=(Message.user(text),), max_tokens=max_tokens)


def test_a_long_completion_budget_is_lowered_to_what_the_servers_window_leaves() -> None:
    with small_model() as model:
        completion = provider(model).complete(ask("Summarise the billing migration."))
    assert completion.text == "Nothing to change."
    (sent,) = model.chats
    assert model.refused == 0
    assert model.prompt(sent) + sent["max_tokens"] <= 2048
    assert sent["max_tokens"] >= 2048 - 100  # the prompt is short: nearly all is left


def test_a_prompt_the_window_cannot_hold_is_one_line_saying_the_model_is_too_small() -> None:
    with small_model() as model, pytest.raises(ModelTooSmall) as raised:
        provider(model).complete(ask("the billing ledger retries at night. " * 300))
    assert model.chats == []  # nothing was sent that the server would refuse
    line = str(raised.value)
    assert "\n" not in line
    assert "too small for this job" in line and "2,048 tokens" in line
    assert "HTTP" not in line


def test_without_a_word_from_the_server_the_setting_names_the_window() -> None:
    with small_model(n_ctx=1024, says=None) as model:
        provider(model, context_tokens=1024).complete(ask("Summarise the migration."))
        (sent,) = model.chats
        assert model.prompt(sent) + sent["max_tokens"] <= 1024
    with small_model(n_ctx=1024, says=None) as model:  # told nothing at all: sent as asked
        with pytest.raises(ModelTooSmall):
            provider(model).complete(ask("Summarise the migration."))
        assert model.chats[0]["max_tokens"] == 8192


def test_a_server_that_refuses_for_length_anyway_gives_the_same_one_line_once() -> None:
    lying = small_model(n_ctx=300, says=4096)  # it claims more than it has
    with lying as model, pytest.raises(ModelTooSmall, match="too small for this job") as raised:
        provider(model).complete(ask("Summarise the billing migration."))
    assert model.refused == 1  # not retried: it would be refused again
    assert "\n" not in str(raised.value)


def test_the_answer_room_is_what_is_left_after_a_high_count_of_the_prompt() -> None:
    request = ask("x" * 3000, max_tokens=4096)
    assert prompt_tokens(request) >= 3000 // 3
    fitted = fit_request(request, 2048, label="m")
    assert fitted.max_tokens == 2048 - prompt_tokens(request)
    assert fit_request(request, None, label="m") is request  # unknown window: as asked
    short = ask("hi", max_tokens=100)
    assert fit_request(short, 2048, label="m") == short  # asks for less than the room
    with pytest.raises(ModelTooSmall):
        fit_request(request, prompt_tokens(request) + MIN_ANSWER_TOKENS - 1, label="m")


def test_a_server_that_counts_the_prompt_leaves_the_answer_the_room_its_count_leaves() -> None:
    text = "the billing ledger retries at night " * 40  # 240 words, 1,440 characters
    with small_model(n_ctx=4096, tokenizes=True) as model:
        provider(model, count_tokens=True).complete(ask(text))
        (counted,) = model.chats
    with small_model(n_ctx=4096, tokenizes=True) as model:
        provider(model).complete(ask(text))  # not asked to count: the high count
        (guessed,) = model.chats
        assert model.tokenized == 0
    assert counted["max_tokens"] > guessed["max_tokens"] + 150
    assert 4096 - counted["max_tokens"] >= 240  # never less than the server's own count


def test_a_server_without_a_tokenizer_falls_back_to_the_high_count() -> None:
    with small_model() as model:
        provider(model, count_tokens=True).complete(ask("Summarise the billing migration."))
    (sent,) = model.chats
    assert model.prompt(sent) + sent["max_tokens"] <= 2048


# -- the jobs on a small model --------------------------------------------------------------


def seed(mem: Memdir, count: int) -> None:
    save_ledger_notes(mem, count)


def test_consolidation_on_a_2048_token_model_gives_a_one_line_reason_not_an_http_error(
    mem: Memdir,
) -> None:
    seed(mem, 3)
    with small_model() as model:
        preview = preview_consolidation(mem, provider(model))
    assert model.refused == 0
    error = preview.report.error
    assert error is not None and "\n" not in error
    assert "too small for this job" in error and "HTTP" not in error


def test_consolidation_that_fits_a_larger_window_asks_for_what_is_left(mem: Memdir) -> None:
    seed(mem, 3)
    with small_model(n_ctx=9000, says=9000) as model:
        preview = preview_consolidation(mem, provider(model))
    assert preview.report.error is None, preview.report.error
    assert model.refused == 0
    asked = [chat_["max_tokens"] for chat_ in model.chats]
    assert asked and all(tokens < 8192 for tokens in asked)  # the job's 8,192, lowered


def test_extraction_on_a_small_model_reports_the_reason_in_one_line(mem: Memdir) -> None:
    with small_model(n_ctx=1024, says=1024) as model:
        report = MemoryExtractor(mem, provider(model), "s1").extract(
            chat("deploys wait for billing", "noted")
        )
    assert model.refused == 0
    assert report.error is not None and "\n" not in report.error
    assert "too small for this job" in report.error
