"""The pages for people with a browser: ``GET /``, the favicon, and GraphiQL and the REST
reference (Swagger UI) served offline."""

from __future__ import annotations

import base64
import hashlib
import re

import httpx
import pytest

from manhattan.server.pages import GRAPHIQL_DIR, SWAGGER_UI_DIR
from tests.conftest import MakeApp
from tests.service_client import connect

pytestmark = pytest.mark.anyio

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


async def test_root_points_a_browser_to_play_graphql_and_the_docs(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/", headers={"accept": BROWSER_ACCEPT})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    for path in ('href="/play/"', 'href="/graphql"', 'href="/docs"', 'href="/openapi.json"'):
        assert path in response.text
    assert "documentation site" in response.text


@pytest.mark.parametrize("accept", [None, "*/*", "application/json"])
async def test_root_answers_json_to_programs(client: httpx.AsyncClient, accept: str | None) -> None:
    headers = {"accept": accept} if accept else {}
    response = await client.get("/", headers=headers)
    assert response.status_code == 200
    body = response.json()
    assert body["links"]["play"] == "/play/" and body["links"]["graphql"] == "/graphql"
    assert body["links"]["docs"] == "/docs" and "documentation site" in body["docs"]


@pytest.mark.parametrize("path", ["/favicon.ico", "/favicon.svg"])
async def test_favicon(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg")


async def test_graphiql_loads_every_script_from_the_service(client: httpx.AsyncClient) -> None:
    page = await client.get("/graphql", headers={"accept": BROWSER_ACCEPT})
    assert page.status_code == 200 and "GraphiQL" in page.text
    assert "unpkg.com" not in page.text and "https://" not in page.text
    assets = re.findall(r'(?:src|href)="(/static/graphiql/[^"]+)"\s+integrity="([^"]+)"', page.text)
    assert len(assets) == 7  # react, react-dom, js-cookie, graphiql js+css, explorer js+css
    for path, integrity in assets:
        asset = await client.get(path)
        assert asset.status_code == 200, path
        digest = base64.b64encode(hashlib.sha384(asset.content).digest()).decode()
        assert integrity == f"sha384-{digest}", path  # the browser would refuse it otherwise


def test_every_vendored_file_has_its_license() -> None:
    licenses = {p.name for p in (GRAPHIQL_DIR / "licenses").iterdir()}
    for name in ("react", "react-dom", "js-cookie", "graphiql", "plugin-explorer", "strawberry"):
        assert f"{name}.LICENSE" in licenses
    swagger = {p.name for p in (SWAGGER_UI_DIR / "licenses").iterdir()}
    assert {
        "swagger-ui.LICENSE",
        "swagger-ui.NOTICE",
        "swagger-ui-bundle.js.LICENSE.txt",
    } <= swagger


def test_the_vendored_swagger_ui_is_the_npm_packages_bytes() -> None:
    """Each vendored file is listed in its README with the SHA-256 of the npm package's file."""
    listed = dict(
        re.findall(
            r"^\| `([^`]+)` \| `swagger-ui-dist@[^`]+` \| [^|]+ \| `([0-9a-f]{64})`",
            (SWAGGER_UI_DIR / "README.md").read_text(),
            flags=re.M,
        )
    )
    assert set(listed) == {"swagger-ui-bundle.js", "swagger-ui.css"}
    for name, digest in listed.items():
        assert hashlib.sha256((SWAGGER_UI_DIR / name).read_bytes()).hexdigest() == digest, name


async def test_the_rest_reference_loads_every_file_from_the_service(
    client: httpx.AsyncClient,
) -> None:
    """``/docs`` is Swagger UI over the service's own ``/openapi.json``: no script inline, no
    file and no validator from elsewhere."""
    page = await client.get("/docs", headers={"accept": BROWSER_ACCEPT})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "https://" not in page.text and "http://" not in page.text
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page.text, flags=re.S)
    sources = [re.findall(r'src="([^"]+)"', attributes) for attributes, _ in scripts]
    assert sources == [
        ["/static/swagger-ui/swagger-ui-bundle.js"],
        ["/static/swagger-ui/start.js"],
    ]
    assert all(text.strip() == "" for _, text in scripts)
    for path in re.findall(r'(?:src|href)="(/static/swagger-ui/[^"]+)"', page.text):
        assert (await client.get(path)).status_code == 200, path
    start = (await client.get("/static/swagger-ui/start.js")).text
    assert 'url: "/openapi.json"' in start and "validatorUrl: null" in start
    assert (await client.get("/openapi.json")).status_code == 200


PAGES = [
    ("/", BROWSER_ACCEPT),
    ("/", "application/json"),
    ("/graphql", BROWSER_ACCEPT),
    ("/favicon.svg", "*/*"),
    ("/static/graphiql/start.js", "*/*"),
    ("/static/graphiql/graphiql.min.css", "*/*"),
    ("/docs", BROWSER_ACCEPT),
    ("/static/swagger-ui/start.js", "*/*"),
    ("/static/swagger-ui/swagger-ui-bundle.js", "*/*"),
    ("/play/", BROWSER_ACCEPT),
    ("/play/app.js", "*/*"),
]


@pytest.mark.parametrize(("path", "accept"), PAGES)
async def test_pages_are_sent_with_a_content_security_policy(
    client: httpx.AsyncClient, path: str, accept: str
) -> None:
    response = await client.get(path, headers={"accept": accept})
    assert response.status_code == 200, path
    policy = dict(
        directive.strip().split(" ", 1)
        for directive in response.headers["content-security-policy"].split(";")
    )
    assert policy["script-src"] == "'self'"  # no inline script, nothing from elsewhere
    # The web page may be framed by this origin's pages (and MANHATTAN_EMBED_ORIGINS'), no other.
    assert policy["frame-ancestors"] == ("'self'" if path.startswith("/play/") else "'none'")
    assert policy["default-src"] == "'self'"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


async def test_api_answers_carry_no_page_headers(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/rules")
    assert response.status_code == 200
    assert "content-security-policy" not in response.headers


async def test_graphiql_has_no_inline_script(client: httpx.AsyncClient) -> None:
    """Under ``script-src 'self'`` an inline script would not run: every script is a file."""
    page = (await client.get("/graphql", headers={"accept": BROWSER_ACCEPT})).text
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page, flags=re.S)
    assert len(scripts) == 6  # react, react-dom, js-cookie, graphiql, explorer, start.js
    for attributes, text in scripts:
        assert 'src="/static/graphiql/' in attributes and text.strip() == ""
    assert not re.search(r"\son[a-z]+=", page)  # no inline event handlers either
    start = await client.get("/static/graphiql/start.js")
    assert start.status_code == 200 and "GraphiQL.createFetcher" in start.text


@pytest.mark.parametrize(
    ("host", "sources"),
    [
        ("play.example:8443", "'self' ws://play.example:8443 wss://play.example:8443"),
        ("127.0.0.1:8000", "'self' ws://127.0.0.1:8000 wss://127.0.0.1:8000"),
        ("[::1]:8000", "'self' ws://[::1]:8000 wss://[::1]:8000"),
        # A Host header that would add a directive or a source gets none.
        ("a.example; script-src *", "'self'"),
        ("a.example *", "'self'"),
    ],
)
async def test_the_play_page_may_open_websockets_to_its_own_host(
    client: httpx.AsyncClient, host: str, sources: str
) -> None:
    """The page holds the table's GraphQL websocket (README, "Moves over the websocket"):
    ``connect-src`` names the host it was asked from for ws and wss, beside ``'self'``, which
    matches them only in browsers that follow CSP Level 3."""
    for path in ("/play/", "/play/live.js"):
        response = await client.get(path, headers={"accept": BROWSER_ACCEPT, "host": host})
        assert response.status_code == 200, path
        policy = dict(
            directive.strip().split(" ", 1)
            for directive in response.headers["content-security-policy"].split(";")
        )
        assert policy["connect-src"] == sources, path
        assert policy["script-src"] == "'self'" and policy["default-src"] == "'self'"


def _policy(response: httpx.Response) -> dict[str, str]:
    return dict(
        directive.strip().split(" ", 1)
        for directive in response.headers["content-security-policy"].split(";")
    )


async def test_a_platforms_origins_may_frame_the_play_page(make_app: MakeApp) -> None:
    """``MANHATTAN_EMBED_ORIGINS``: those origins may frame /play (``frame-ancestors``), and
    /play/embed.json names them for the page, which posts its events to them only; the
    service's other pages stay unframeable."""
    origins = ("https://platform.example", "http://localhost:3000")
    async with connect(make_app(embed_origins=origins)) as client:
        for path in ("/play/", "/play/app.js"):
            response = await client.get(path, headers={"accept": BROWSER_ACCEPT})
            assert _policy(response)["frame-ancestors"] == (
                "'self' https://platform.example http://localhost:3000"
            )
        graphiql = await client.get("/graphql", headers={"accept": BROWSER_ACCEPT})
        assert _policy(graphiql)["frame-ancestors"] == "'none'"
        listed = await client.get("/play/embed.json")
        assert listed.status_code == 200 and listed.json() == {"origins": list(origins)}
    async with connect(make_app()) as client:
        assert (await client.get("/play/embed.json")).json() == {"origins": []}
