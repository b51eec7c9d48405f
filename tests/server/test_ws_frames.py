"""``ws_frames.client_texts``: whole, final, masked text frames read in one pass, anything else
left to ``websockets`` (None). Frames are written by ``websockets``' own client framing."""

from __future__ import annotations

from websockets.frames import Frame, Opcode

from manhattan.server.ws_frames import client_texts


def frame(text: str | bytes, opcode: Opcode = Opcode.TEXT, fin: bool = True) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return Frame(opcode, data, fin).serialize(mask=True, extensions=[])


def test_one_or_more_whole_text_frames_give_their_texts() -> None:
    assert client_texts(frame('{"type":"move"}'), None) == ['{"type":"move"}']
    texts = ["a", "", "é" * 60, "x" * 125, "y" * 126, "z" * 35_000]
    assert client_texts(b"".join(frame(t) for t in texts), None) == texts


def test_a_frame_is_unmasked_with_its_own_key() -> None:
    data = frame("the same text") + frame("the same text")
    assert client_texts(data, None) == ["the same text", "the same text"]


def test_anything_but_whole_final_masked_text_frames_is_left_to_websockets() -> None:
    whole = frame("move")
    unmasked = Frame(Opcode.TEXT, b"move").serialize(mask=False, extensions=[])
    cases = {
        "a fragment": frame("mo", fin=False),
        "a continuation": frame("ve", Opcode.CONT),
        "a ping": frame(b"", Opcode.PING),
        "binary": frame(b"\x00", Opcode.BINARY),
        "unmasked": unmasked,
        "cut in the header": whole[:1],
        "cut in the mask": whole[:4],
        "cut in the data": whole[:-1],
        "a whole frame then a cut one": whole + whole[:3],
        "a text frame then a ping": whole + frame(b"", Opcode.PING),
        "not UTF-8": frame(b"\xff\xfe"),
        "a reserved bit": bytes([whole[0] | 0x40]) + whole[1:],
        "a 64-bit length": frame("x" * 70_000),
    }
    for name, data in cases.items():
        assert client_texts(data, None) is None, name


def test_a_frame_over_the_limit_is_left_to_websockets() -> None:
    assert client_texts(frame("x" * 100), 100) == ["x" * 100]
    assert client_texts(frame("x" * 101), 100) is None
    assert client_texts(frame("x" * 300), 200) is None
