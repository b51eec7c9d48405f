"""The GraphQL view at ``/graphql``: strawberry's ASGI app with coded errors (``format_error``)
and a lean path for the common request, one operation POSTed as JSON (``GraphQLApp``)."""

from __future__ import annotations

import json
import logging
import re
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import msgspec
import strawberry
from cross_web import HTTPException
from graphql import GraphQLEnumType, GraphQLError, GraphQLNonNull, GraphQLSchema
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket, WebSocketDisconnect
from strawberry.asgi import ASGIWebSocketAdapter, GraphQL
from strawberry.exceptions import MissingQueryError, StrawberryGraphQLError
from strawberry.http import GraphQLHTTPResponse
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType

from manhattan.api.disconnect import unless_disconnected
from manhattan.api.encoding import body as request_body
from manhattan.api.encoding import dump_json, header, load_json
from manhattan.api.errors import HTTP_STATUS, INTERNAL_ERROR_MESSAGE, ApiError, to_api_error
from manhattan.api.graphql import fast as graphql_fast
from manhattan.api.graphql.schema import PLANNABLE_FIELDS
from manhattan.engine.formats import StateFormat
from manhattan.games import Operations, StateText
from manhattan.games.memo import KEPT_TEXT_BYTES

log = logging.getLogger("manhattan.api")


#: graphql-core's words for a value that is not one of an enum's (its message names the enum).
_NOT_IN_ENUM = re.compile(
    r"""Enum ['"](\w+)['"] cannot represent non-enum value|does not exist in ['"](\w+)['"] enum"""
)


def with_enum_values(message: str, schema: GraphQLSchema | None) -> str:
    """A refused enum value's message, with the values the enum has (one message per
    mistake: REST and the CLI name them too)."""
    found = _NOT_IN_ENUM.search(message)
    name = None if found is None else found.group(1) or found.group(2)
    enum = None if name is None or schema is None else schema.get_type(name)
    if not isinstance(enum, GraphQLEnumType):
        return message
    return f"{message.rstrip('.')}; it is one of {', '.join(sorted(enum.values))}."


def format_error(error: GraphQLError, schema: GraphQLSchema | None = None) -> dict[str, Any]:
    """One error of a response, with ``extensions.code`` from the error table and a
    ``classification`` (``BAD_USER_INPUT`` for the caller's errors, ``INTERNAL_SERVER_ERROR``
    for ours) that generic GraphQL tooling understands; bugs are masked."""
    original = error.original_error
    formatted = error.formatted
    extensions = dict(formatted.get("extensions") or {})
    if original is None or isinstance(original, GraphQLError | StrawberryGraphQLError):
        formatted["message"] = with_enum_values(formatted["message"], schema)
        if "code" not in extensions:
            too_many_tokens = "tokens" in error.message and "more than" in error.message
            extensions["code"] = (
                "QUERY_TOO_COMPLEX" if too_many_tokens else "GRAPHQL_VALIDATION_FAILED"
            )
    else:
        api = to_api_error(original)
        if api is None:
            log.error("unexpected error in a resolver", exc_info=original)
            formatted["message"] = INTERNAL_ERROR_MESSAGE
            extensions = {"code": "INTERNAL_ERROR", "classification": "INTERNAL_SERVER_ERROR"}
        else:
            formatted["message"] = api.message
            extensions["code"] = api.code
            if api.path is not None:
                extensions["statePath"] = api.path
    status = HTTP_STATUS.get(extensions["code"], 400)
    extensions["classification"] = "BAD_USER_INPUT" if status < 500 else "INTERNAL_SERVER_ERROR"
    formatted["extensions"] = extensions
    return dict(formatted)


_NOT_AN_OBJECT = 'a GraphQL request is a JSON object such as {"query": "{ rules }"}'
_POST_OPERATIONS = frozenset(OperationType.from_http("POST"))


def may_run_bots(body: bytes) -> bool:
    """Whether a body may ask for fields that run bots (JSON's ``\\u`` escapes could spell their
    names): three substring scans, several times faster than one regular expression."""
    return b"suggestMove" in body or b"advance" in body or b"\\u" in body


class _InlineState(msgspec.Struct, forbid_unknown_fields=True):
    json: StateFormat


class _InlineStates(msgspec.Struct, forbid_unknown_fields=True):
    """A GraphQL request whose variables are all states sent inline."""

    query: str
    variables: dict[str, _InlineState]
    operationName: str | None = None  # (the key as the request names it)


_INLINE_STATES = msgspec.json.Decoder(_InlineStates)
#: Bodies whose plan ``_inline_states`` keeps (as many as states parsed are kept).
_INLINE_BODIES = 1_024


class TextFrames(ASGIWebSocketAdapter):
    """graphql-transport-ws messages as text frames: ``encode_json`` gives bytes (orjson), which
    strawberry would send as binary frames, and browsers hand those to ``onmessage`` as a
    ``Blob`` that clients such as ``graphql-ws`` cannot ``JSON.parse``."""

    async def send_json(self, message: Mapping[str, object]) -> None:
        encoded = self.view.encode_json(message)
        try:
            await self.ws.send_text(encoded.decode() if isinstance(encoded, bytes) else encoded)
        except WebSocketDisconnect as exc:
            raise WebSocketDisconnected from exc


class GraphQLApp(GraphQL[dict[str, Any], None]):
    """strawberry's ASGI app with coded errors and JSON bodies for transport errors.

    The common request, one operation POSTed as ``application/json``, takes a lean path
    (``_lean_post``) that does what strawberry's view does for it without its generic request
    adapter, content-type parsing and dispatch; everything else goes through the view.
    """

    websocket_adapter_class = TextFrames

    def __init__(
        self, schema: strawberry.Schema, *, fast_path: bool = True, **options: Any
    ) -> None:
        super().__init__(schema, **options)
        # The lean path only handles plain results: no HTTP stream transports (SSE, multipart
        # subscriptions), no incremental delivery, no multipart uploads. Subscriptions run over
        # WebSocket only (graphql-transport-ws), so a POST never carries one: the lean path
        # refuses them as the view does.
        self._lean = (
            not self._stream_transport_map
            and not self.multipart_uploads_enabled
            and not schema.config.enable_experimental_incremental_execution
            and type(self).get_root_value is GraphQL.get_root_value
        )
        self._compiled = graphql_fast.compiled_queries(
            schema, PLANNABLE_FIELDS, on=self._lean and fast_path
        )
        self._state_ref = schema._schema.get_type("StateRef")
        self._lanes = graphql_fast.LegalLanes(
            None if self._compiled is None else self._compiled.limits
        )
        #: Bodies of a planned query whose one variable is a state sent inline, by their bytes:
        #: the plan and the variable's name. The state is kept by the same bytes
        #: (``Operations.parsed_text``), so such a body sent again is not decoded at all.
        self._inline_bodies: OrderedDict[bytes, tuple[graphql_fast.Plan, str]] = OrderedDict()

    def encode_json(self, data: object) -> bytes:
        return dump_json(data)  # orjson: a large share of a list response's cost otherwise

    def decode_json(self, data: str | bytes) -> object:
        """A body nested too deeply for the parser, or with ``NaN``/``Infinity``, is bad JSON
        (400), not a server error."""
        try:
            return load_json(data)
        except json.JSONDecodeError:
            raise
        except RecursionError:
            raise json.JSONDecodeError("nested too deeply", "", 0) from None
        except ValueError as exc:  # a non-finite constant, or bytes that are not text
            raise json.JSONDecodeError(str(exc), "", 0) from None

    async def parse_http_body(self, request: Any) -> Any:
        """strawberry's, for a JSON body that is an object (or a batch); it would fail on any
        other JSON value with a server error. (The common request never gets here: see
        ``_lean_post``, which refuses such bodies itself.)"""
        if request.method != "GET" and "application/json" in (request.content_type or ""):
            data = self.parse_json(await request.get_body())
            if not isinstance(data, dict | list):
                raise HTTPException(400, _NOT_AN_OBJECT)
        return await super().parse_http_body(request)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> dict[str, Any]:
        return {
            "request": request,
            "response": response,
            "operations": request.app.state.operations,
        }

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        data: GraphQLHTTPResponse = {"data": result.data}
        if result.errors:
            graphql_schema = getattr(self.schema, "_schema", None)  # graphql-core's: enums
            errors = [format_error(e, graphql_schema) for e in result.errors]
            for error in errors:
                request.app.state.metrics.count_error(error["extensions"]["code"])
            data["errors"] = errors  # type: ignore[typeddict-item]
        if result.extensions:
            data["extensions"] = result.extensions
        return data

    async def _lean_post(self, request: Request) -> Response | None:
        """The response to a POST of one operation as ``application/json``, as strawberry's
        view would make it (same context, execution, result processing and response), or None
        when the request is anything else: the view then handles it, from the start."""
        content_type = header(request, "content-type") or ""
        if content_type.partition(";")[0].strip(" \t") != "application/json":
            return None  # strawberry matches the media type case-sensitively, as here
        sent = await request_body(request)  # (as the middleware read it)
        inline = self._known_inline_state(request, sent) or self._inline_states(sent)
        if inline is not None:
            answered = await self._planned(request, *inline)
            if answered is not None:
                return answered
        try:
            data = self.decode_json(sent)
        except json.JSONDecodeError:
            return None
        if not isinstance(data, dict):
            return None  # a batch, or a body the view refuses (parse_http_body)
        query = data.get("query")
        variables = data.get("variables")
        operation_name = data.get("operationName")
        extensions = data.get("extensions")
        if (
            not isinstance(query, str)
            or not query
            or not isinstance(variables, dict | None)
            or not isinstance(operation_name, str | None)
            or not isinstance(extensions, dict | None)
        ):
            return None
        if self._compiled is not None:
            plan = self._compiled.plan(query, operation_name)
            if plan is not None:
                answered = await self._planned(request, plan, variables)
                if answered is not None:
                    return answered
        sub_response = await self.get_sub_response(request)
        context = await self.get_context(request, response=sub_response)
        try:
            result = await self.schema.execute(
                query,
                root_value=None,  # the view's get_root_value, not overridden (see __init__)
                variable_values=variables,
                context_value=context,
                operation_name=operation_name,
                allowed_operation_types=_POST_OPERATIONS,
                operation_extensions=extensions,
            )
        except CannotGetOperationTypeError as e:
            raise HTTPException(400, e.as_http_error_reason()) from e
        except InvalidOperationTypeError as e:
            raise HTTPException(400, e.as_http_error_reason("POST")) from e
        except MissingQueryError as e:
            raise HTTPException(400, "No GraphQL query found in the request") from e
        response_data = await self.process_result(request, result)
        if result.errors:
            self._handle_errors(result.errors, response_data)
        return self.create_response(response_data=response_data, sub_response=sub_response)

    def _known_inline_state(
        self, request: Request, body: bytes
    ) -> tuple[graphql_fast.Plan, dict[str, Any]] | None:
        """A body ``_inline_states`` read recently, with its one state parsed already: its plan
        and its variables, the state as the very ``State`` (as a ``StateRef`` may name it)."""
        known = self._inline_bodies.get(body)
        if known is None:
            return None
        operations: Operations = request.app.state.operations
        state = operations.parsed_text(body)
        if state is None:
            return None
        self._inline_bodies.move_to_end(body)
        plan, name = known
        return plan, {name: {"json": state}}

    def _inline_states(self, body: bytes) -> tuple[graphql_fast.Plan, dict[str, Any]] | None:
        """A planned query whose every variable is a state sent inline (``{"json": {...}}``,
        declared ``StateRef``), and its variables with each state already read as its format:
        decoded straight from the body's bytes, as REST reads an inline state, without the
        generic JSON tree and its conversion. None for anything else (a fault included), which
        is read the general way. What msgspec decodes here, orjson reads the same, and the
        format is what the general way converts the state to before anything checks it."""
        if self._compiled is None or b'"json"' not in body:
            return None
        try:
            sent = _INLINE_STATES.decode(body)
        except (msgspec.DecodeError, ValueError):
            return None
        plan = self._compiled.plan(sent.query, sent.operationName)
        if plan is None:
            return None
        declared = dict(plan.variable_types)
        for name in sent.variables:
            type_ = declared.get(name)
            if isinstance(type_, GraphQLNonNull):
                type_ = type_.of_type
            if type_ is not self._state_ref:
                return None  # (a JSON variable, say: graphql-core would hand on the dict)
        if len(sent.variables) == 1:
            ((name, ref),) = sent.variables.items()
            if len(body) <= KEPT_TEXT_BYTES:  # (as the state is kept: see ``memo``)
                self._inline_bodies[body] = (plan, name)
                if len(self._inline_bodies) > _INLINE_BODIES:
                    self._inline_bodies.popitem(last=False)
            return plan, {name: {"json": StateText(ref.json, body)}}
        return plan, {name: {"json": ref.json} for name, ref in sent.variables.items()}

    async def _planned(
        self, request: Request, plan: graphql_fast.Plan, variables: dict[str, Any] | None
    ) -> Response | None:
        """The answer of a planned query, or None: the general path answers."""
        assert self._compiled is not None
        lane = self._lanes.of(plan)
        if lane is not None:
            answered = await lane.answer(request, variables, self._compiled)
            if isinstance(answered, bytes):  # (no resolver ran: nothing set on a sub-response)
                return Response(answered, media_type="application/json")
            if answered is not None:
                return await self._planned_answer(
                    request, answered, await self.get_sub_response(request)
                )
        sub_response = await self.get_sub_response(request)
        context = await self.get_context(request, response=sub_response)
        planned = await self._compiled.execute(plan, variables, context)
        if planned is None:
            return None
        return await self._planned_answer(request, planned, sub_response)

    async def _planned_answer(
        self, request: Request, planned: graphql_fast.PlanResult, sub_response: Response
    ) -> Response:
        if not planned.errors:
            return self.create_response(
                response_data={"data": planned.data}, sub_response=sub_response
            )
        # failed fields, answered as the general path would
        result = ExecutionResult(data=planned.data, errors=planned.errors)
        response_data = await self.process_result(request, result)
        self._handle_errors(planned.errors, response_data)
        return self.create_response(response_data=response_data, sub_response=sub_response)

    async def _respond(self, request: Request, scope: Any) -> Response:
        response = None
        if self._lean and scope["method"] == "POST":
            response = await self._lean_post(request)
        if response is None:
            response = await self.run(request)
        return response

    async def respond(self, request: Request) -> Response:
        """The response to an HTTP request (the app's own, and the service's shortcut to
        ``POST /graphql``, ``api/rest/shortcut.py``)."""
        scope = request.scope
        try:
            # A request that may run bots stops them if its client hangs up. Its body is kept
            # on the request first, for the view: the watcher reads what the server sends next.
            if scope["method"] == "POST" and may_run_bots(await request_body(request)):
                await request.body()
                return await unless_disconnected(request, self._respond(request, scope))
            return await self._respond(request, scope)
        except HTTPException as exc:
            code = {405: "METHOD_NOT_ALLOWED", 404: "NOT_FOUND"}.get(
                exc.status_code, "INVALID_REQUEST"
            )
            error = ApiError(code, exc.reason)
            return JSONResponse(error.to_json(), status_code=error.status)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        response = await self.respond(Request(scope, receive=receive))
        await response(scope, receive, send)
