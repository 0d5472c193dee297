"""Images in, media out: prompt images and gadget media sent in each provider's native form
through the real SDKs, described for models that cannot see them, refused clearly when a
prompt shows images to a model known to be blind."""

from __future__ import annotations

import base64
import re
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from llmist import Agent, GadgetMedia, GadgetResult, ImagePart, ImagesNotSupportedError, gadget
from llmist.providers.base import Message, TextPart
from llmist.testing import MockModel
from tests.providers.fake_servers import FakeResponse, FakeServer, anthropic_stream, gemini_stream, openai_stream
from tests.providers.kits import serve_model


def _png(width: int = 2, height: int = 2) -> bytes:
    """A real (tiny, grey) PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


PNG = _png()


def _snake(data: Any) -> Any:
    """JSON with camelCase keys in snake_case (the Gemini API takes both; compare in one)."""
    if isinstance(data, dict):
        return {re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), k): _snake(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_snake(v) for v in data]
    return data


def _openai_images(body: dict[str, Any]) -> list[str]:
    parts = [p for m in body["messages"] if isinstance(m["content"], list) for p in m["content"]]
    return [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]


def _anthropic_images(body: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    return [b["source"] for b in blocks if b["type"] == "image"]


def _gemini_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for c in _snake(body["contents"]) for p in c["parts"] if "text" not in p]


def _sent_png(kind: str, body: dict[str, Any]) -> bytes:
    """The one image of a request, decoded from the provider's native inline form."""
    if kind == "anthropic":
        (source,) = _anthropic_images(body)
        assert source["type"] == "base64" and source["media_type"] == "image/png"
        return base64.b64decode(source["data"])
    if kind == "gemini":
        (part,) = _gemini_parts(body)
        assert part["inline_data"]["mime_type"] == "image/png"
        return base64.b64decode(part["inline_data"]["data"])
    (url,) = _openai_images(body)
    prefix = "data:image/png;base64,"
    assert url.startswith(prefix)
    return base64.b64decode(url[len(prefix) :])


VISION_MODELS = {
    "openai": ("openai:gpt-4o", openai_stream),
    "anthropic": ("anthropic:claude-sonnet-5-5", anthropic_stream),
    "gemini": ("gemini:gemini-2.5-flash", gemini_stream),
}


def _answer(kind: str, text: str) -> FakeResponse:
    response: FakeResponse = VISION_MODELS[kind][1]([text])
    return response


@pytest.mark.parametrize("kind", list(VISION_MODELS))
async def test_a_prompt_image_reaches_the_model_byte_for_byte(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    picture = tmp_path / "grey.png"
    picture.write_bytes(PNG)
    with FakeServer([_answer(kind, "A grey square.")]) as server:
        agent = Agent(model=serve_model(VISION_MODELS[kind][0], server, monkeypatch))
        result = await agent.run(["What is in this picture?", ImagePart.from_path(picture)])
    assert result.output == "A grey square."
    assert _sent_png(kind, server.requests[0].body) == PNG


@gadget(description="Draw a chart of the numbers.")
def draw_chart(numbers: str) -> GadgetResult:
    return GadgetResult("Chart drawn.", media=[GadgetMedia.from_bytes(PNG, name="chart.png")])


CALL = "!!!GADGET_START:draw_chart\n!!!ARG:numbers\n1,2,3\n!!!GADGET_END\n"


@pytest.mark.parametrize("kind", list(VISION_MODELS))
async def test_an_image_a_gadget_returns_is_shown_to_a_vision_model_next_turn(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeServer([_answer(kind, CALL), _answer(kind, "The chart rises.")]) as server:
        agent = Agent(model=serve_model(VISION_MODELS[kind][0], server, monkeypatch), gadgets=[draw_chart])
        result = await agent.run("Chart 1,2,3 and describe it.")
    assert result.output == "The chart rises."
    assert result.gadget_results[0].media == (GadgetMedia(PNG, "image/png", "chart.png"),)
    assert _sent_png(kind, server.requests[1].body) == PNG
    assert "[image chart.png: image/png" in str(server.requests[1].body)


async def test_an_image_url_is_sent_as_a_url_to_each_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    image = ImagePart.from_url("https://example.com/cat.jpg")
    sent: dict[str, dict[str, Any]] = {}
    for kind, (model, _) in VISION_MODELS.items():
        with FakeServer([_answer(kind, "A cat.")]) as server:
            await Agent(model=serve_model(model, server, monkeypatch)).run(["What is this?", image])
        sent[kind] = server.requests[0].body
    assert _openai_images(sent["openai"]) == ["https://example.com/cat.jpg"]
    assert _anthropic_images(sent["anthropic"]) == [{"type": "url", "url": "https://example.com/cat.jpg"}]
    (part,) = _gemini_parts(sent["gemini"])
    assert part["file_data"] == {"file_uri": "https://example.com/cat.jpg", "mime_type": "image/jpeg"}


async def test_a_model_known_not_to_see_gets_a_clear_error_and_no_request(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeServer([openai_stream(["never"])]) as server:
        agent = Agent(model=serve_model("openai:o3-mini", server, monkeypatch))
        with pytest.raises(ImagesNotSupportedError, match=r"'openai:o3-mini' does not accept images.*grey\.png"):
            await agent.run(["What is this?", ImagePart.from_bytes(PNG, name="grey.png")])
    assert server.requests == []


async def test_a_text_only_mock_model_refuses_prompt_images() -> None:
    agent = Agent(model=MockModel(["never"], vision=False))
    with pytest.raises(ImagesNotSupportedError, match="does not accept images, but the prompt carries 1"):
        await agent.run(["What is this?", ImagePart.from_bytes(PNG)])


async def test_a_blind_model_gets_gadget_images_described_by_name_type_and_size() -> None:
    model = MockModel([CALL, "Done."], vision=False)
    await Agent(model=model, gadgets=[draw_chart]).run("Chart 1,2,3.")
    followup = model.requests[1].messages[-1]
    assert isinstance(followup.content, str)
    assert f"[image chart.png: image/png, {len(PNG)} B]" in followup.content
    assert "not shown (this model does not accept images)" in followup.content


@gadget(description="Record a sound.")
def record() -> GadgetResult:
    wav = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(28)
    return GadgetResult("Recorded.", media=[GadgetMedia.from_bytes(wav, name="hello.wav")])


async def test_audio_is_described_even_to_a_vision_model() -> None:
    model = MockModel(["!!!GADGET_START:record\n!!!GADGET_END\n", "Done."])
    await Agent(model=model, gadgets=[record]).run("Record hello.")
    text = model.requests[1].messages[-1].text
    assert "[audio hello.wav: audio/wav, 44 B]" in text


async def test_a_vision_mock_model_receives_gadget_images_as_image_parts() -> None:
    model = MockModel([CALL, "Done."])
    result = await Agent(model=model, gadgets=[draw_chart]).run("Chart 1,2,3.")
    content = model.requests[1].messages[-1].content
    assert not isinstance(content, str)
    assert [type(p) for p in content] == [TextPart, TextPart, ImagePart, TextPart]  # the last: what next
    assert content[2] == ImagePart(PNG, "image/png", None, "chart.png")
    assert result.messages[-2].content == content


def test_image_bytes_of_an_unknown_type_are_refused_with_what_was_expected() -> None:
    with pytest.raises(ValueError, match="expected PNG, JPEG, GIF or WebP"):
        ImagePart.from_bytes(b"not an image", name="notes.txt")


def test_gadget_result_media_must_be_gadget_media() -> None:
    with pytest.raises(TypeError, match=r"GadgetMedia items \(GadgetMedia.from_path"):
        GadgetResult("x", media=[b"raw bytes"])  # type: ignore[list-item]


def test_a_prompt_holds_only_text_and_images() -> None:
    with pytest.raises(TypeError, match=r"text \(str\) and images"):
        Agent(model=MockModel(["x"])).stream(["Look", Message("user", "no")])  # type: ignore[list-item]


async def test_a_data_url_is_sent_inline_where_the_api_wants_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    image = ImagePart.from_url("data:image/png;base64," + base64.b64encode(PNG).decode())
    with FakeServer([_answer("anthropic", "Grey.")]) as server:
        await Agent(model=serve_model("anthropic:claude-sonnet-5-5", server, monkeypatch)).run(["What?", image])
    assert _sent_png("anthropic", server.requests[0].body) == PNG
    assert image.describe() == "[image: image/png, inline data]"
