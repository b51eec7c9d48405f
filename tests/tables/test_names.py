"""Names and chat: control and format characters refused with a path; a
name already at the table after NFKC, case folding and the confusable skeleton is NAME_TAKEN."""

from __future__ import annotations

import pytest

from manhattan import wire
from manhattan.tables.names import check_text, name_key
from tests.tables.conftest import LiveServer, err, new_table, ok

pytestmark = pytest.mark.anyio

REFUSED = [
    "ann\x1b]52;c;ZWNobyBoaQ==\x07",  # OSC 52: write the reader's clipboard
    "\x1b[2Jann",  # clear the screen
    "ann\x00",
    "ann\x85",  # C1: next line
    "\u202eann",  # right-to-left override
    "a\u2066nn",  # isolate
    "ann\u200b",  # zero-width space
    "an\u200dn",  # zero-width joiner
    "\ufeffann",  # byte order mark
    "ann\u2028bob",  # line separator
]


@pytest.mark.parametrize("text", REFUSED)
def test_control_and_format_characters_are_refused_with_their_position(text: str) -> None:
    with pytest.raises(wire.WireError) as caught:
        check_text(text, "$.name", "a name")
    assert caught.value.code == "INVALID_REQUEST" and caught.value.path == "$.name"
    assert "U+" in caught.value.message and "at position" in caught.value.message


def test_look_alike_names_share_one_key() -> None:
    same = ["ann", "Ann", "ANN", "ａｎｎ", "\u0430nn", "ΑΝΝ", "Ann  "]
    assert {name_key(n) for n in same} == {name_key("ann")}
    assert name_key("B0b") == name_key("bob")
    assert name_key("Straße") == name_key("STRASSE")
    assert len({name_key(n) for n in ["ann", "anne", "bob", "zoë", "zoe", "cleo"]}) == 6
    check_text("Zoë-Ann O'Neil 李", "$.name", "a name")  # letters of any script are fine


async def test_a_look_alike_name_is_name_taken(live: LiveServer) -> None:
    tid, _, _ = await new_table(live, 1, setup={"players": 3}, start=False)  # seated: "p0"
    join = f"/v1/tables/{tid}/join"
    async with live.client() as c:
        ok(await c.post(join, json={"name": "ann"}))
        for name in ["Ann ", "\u0430nn", "ＡＮＮ", "P0", "p\u041e"]:
            body = err(await c.post(join, json={"name": name}), 409, "NAME_TAKEN")
            assert "already at this table" in body["message"]
        bad = err(await c.post(join, json={"name": "ann\u200b"}), 400, "INVALID_REQUEST")
        assert bad["path"] == "$.name" and "U+200B" in bad["message"]
        gql = (
            'mutation { joinTable(id: "%s", name: "\\u0430nn") { ... on TableRejected { code } } }'
        )
        answer = ok(await c.post("/graphql", json={"query": gql % tid}))
        assert answer["data"]["joinTable"]["code"] == "NAME_TAKEN"
        named = err(await c.post("/v1/tables", json={"name": "t\x1b[31m"}), 400, "INVALID_REQUEST")
        assert named["path"] == "$.name"


async def test_chat_refuses_terminal_escapes(live: LiveServer) -> None:
    tid, _, (ann, _bob) = await new_table(live, 2)
    chat = f"/v1/tables/{tid}/chat"
    bad = err(
        await ann.client.post(chat, json={"text": "hi\x1b]52;c;eA==\x07"}), 400, "INVALID_REQUEST"
    )
    assert bad["path"] == "$.text" and "U+001B" in bad["message"]
    ok(await ann.client.post(chat, json={"text": "good luck ☺"}))
