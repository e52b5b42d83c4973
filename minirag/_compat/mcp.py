"""The MCP SDK's (`mcp`) internals that the server and the stdio transport use.

Written against mcp 2.0 to 2.3. The SDK offers no public way to run a server on
streams of one's own, to drop a request handler it installs, to make a server
without its logging setup, or to read a tool's argument schema back; its
argument model's name is how a tool's own argument validation is told apart
from output validation. Its protocol models are pydantic's, whose default
configuration (a private dict of pydantic's) is how they are made deferred.
Its `mcp` package's `__init__` imports the SDK's client side, which a server
never uses, and its HTTP resources import httpx2 at the top; its streamable HTTP transport's sse_starlette hooks uvicorn's exit
handler when it is imported (sse_starlette.sse.AppStatus), importing uvicorn.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import sys
from typing import Any

DISTRIBUTION = "mcp"
SUPPORTED = ("2.0", "2.4")

# The logger of the streamable HTTP transport (its module's name).
STREAMABLE_HTTP_LOGGER = "mcp.server.streamable_http"


def lowlevel_server(server) -> Any:
    """The low-level `Server` behind an `MCPServer`: what `run_stdio_async` runs, whose `run`
    takes the read and write streams and `create_initialization_options()`."""
    return server._lowlevel_server  # noqa: SLF001


def drop_request_handler(server, method: str) -> None:
    """Stop `server` (an MCPServer) from serving `method`, and from advertising its capability."""
    lowlevel_server(server)._request_handlers.pop(method, None)  # noqa: SLF001


def tool_parameters(server, name: str) -> dict | None:
    """The JSON schema of tool `name`'s arguments, as the SDK holds it (mutable), or None."""
    tool = server._tool_manager.get_tool(name)  # noqa: SLF001
    return None if tool is None else tool.parameters


def arguments_taken_as_sent(server, name: str) -> None:
    """Stop the SDK parsing tool `name`'s string arguments as JSON before validation: it does so for
    every parameter not annotated as a bare `str` (for clients that send a list as a JSON string), so
    an optional string argument "null" became None and "[1]" a list. No tool here takes a list or an
    object, and tool_arguments.py has held each argument to its JSON type already."""
    metadata = server._tool_manager.get_tool(name).fn_metadata  # noqa: SLF001
    verbatim = _verbatim_metadata()
    if type(metadata) is verbatim.__base__:
        metadata.__class__ = verbatim


@functools.cache
def _verbatim_metadata() -> type:
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

    class VerbatimMetadata(FuncMetadata):
        def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
            return data

    return VerbatimMetadata


def arguments_model_title(tool_name: str) -> str:
    """The title of the pydantic model the SDK validates tool `tool_name`'s arguments with."""
    return f"{tool_name}Arguments"


def last_context(stream) -> Any:
    """The sender's context of the last message received on one of the SDK's context
    streams (what its dispatcher reads for each request), or None."""
    return getattr(stream, "last_context", None)


@contextlib.contextmanager
def sdk_logging_left_to_the_root():
    """While an MCPServer is made: skip the SDK's `configure_logging` when the root logger has
    handlers already (as under the CLI), where the `logging.basicConfig` it ends in does nothing;
    it imports `rich` and builds a handler first, ~55 ms of CPU on every server start."""
    from mcp.server.mcpserver import server as module

    original = getattr(module, "configure_logging", None)
    if original is not None and logging.getLogger().handlers:
        module.configure_logging = lambda *args, **kwargs: None
    try:
        yield
    finally:
        if original is not None:
            module.configure_logging = original


@contextlib.contextmanager
def sdk_models_built_on_first_use():
    """While the SDK is imported: its protocol models (~500 pydantic classes, every version's) made with
    `defer_build`, so each builds its schema and validator when first used instead of at import; a
    server uses a few dozen. pydantic reads the default of every model that sets none from
    `config_defaults`; where that moved, or the SDK is imported already, the models build as usual."""
    try:
        from pydantic._internal._config import config_defaults
    except ImportError:
        config_defaults = {}
    if "defer_build" not in config_defaults or "mcp_types" in sys.modules:
        yield
        return
    before = config_defaults["defer_build"]
    config_defaults["defer_build"] = True
    try:
        yield
    finally:
        config_defaults["defer_build"] = before


@contextlib.contextmanager
def server_side_only():
    """While the SDK's server modules are imported (in a process that has not imported the SDK):
    the `mcp` package is made without running its `__init__`, which imports the client side (its
    Client, sessions, stdio client: mcp.client), and so is httpx2, which its HTTP resources import
    to fetch with, never at import; each package's `__init__` runs when one of its own names is first
    asked for (`from mcp import Client`). uvicorn is kept out: sse_starlette's import falls back as
    when uvicorn is not installed, leaving uvicorn's exit handler unhooked until
    http_streams_end_on_exit() hooks it, as only the HTTP transport runs uvicorn."""
    for name in ("mcp", "httpx2"):
        if name not in sys.modules:
            sys.modules[name] = _package_without_init(name)
    kept_out = "uvicorn" not in sys.modules and "sse_starlette" not in sys.modules
    if kept_out:
        sys.modules["uvicorn"] = None  # what an import then raises ImportError for
    try:
        yield
    finally:
        if kept_out and sys.modules.get("uvicorn", ...) is None:
            del sys.modules["uvicorn"]


def _package_without_init(name: str) -> Any:
    """Package `name`'s module, its submodules importable, its `__init__` run only when a name the
    package itself defines is first asked for (PEP 562's module __getattr__)."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.loader is not None
    loader, module = spec.loader, importlib.util.module_from_spec(spec)

    def __getattr__(attribute: str) -> Any:
        del module.__dict__["__getattr__"]
        loader.exec_module(module)
        return getattr(module, attribute)

    module.__dict__["__getattr__"] = __getattr__
    return module


def http_streams_end_on_exit() -> None:
    """uvicorn's exit handler hooked as sse_starlette hooks it when it imports with uvicorn there,
    so its open event streams end when uvicorn is told to stop (server_side_only left it out)."""
    from sse_starlette.sse import AppStatus
    from uvicorn.main import Server

    if AppStatus.original_handler is None:
        AppStatus.original_handler = Server.handle_exit
        Server.handle_exit = AppStatus.handle_exit  # type: ignore[method-assign]


def settled_unanswered(message, hook) -> Any:
    """`message` (a SessionMessage read from the client) carrying `hook`, an async callable the SDK's
    dispatcher awaits when the request settles without an answer (the client cancelled it), as its
    streamable HTTP transport has it do; where the metadata is another transport's, as it is."""
    from dataclasses import replace

    from mcp.shared.message import ServerMessageMetadata, SessionMessage

    metadata = message.metadata
    if metadata is None:
        return SessionMessage(message.message, metadata=ServerMessageMetadata(on_request_unanswered=hook))
    if isinstance(metadata, ServerMessageMetadata) and metadata.on_request_unanswered is None:
        return SessionMessage(message.message, metadata=replace(metadata, on_request_unanswered=hook))
    return message


def correlated_id(request_id) -> Any:
    """`request_id` as the SDK correlates ids: a string of an integer is that integer ("7" is 7)."""
    from mcp.shared.dispatcher import coerce_request_id

    return coerce_request_id(request_id)


class _Stateless:
    """The one client that every request of a stateless protocol version counts as: its requests carry
    nothing that tells one client from another."""

    shared = True


STATELESS_CLIENT = _Stateless()


def client_of(session) -> object:
    """What outlives one request of the client `session` (a tool Context's) serves: its connection
    (2.x makes a ServerSession per request), or the session where it is its own. A request of a
    stateless protocol version comes on a connection of its own: those all count as one client."""
    connection = getattr(session, "_connection", None)
    if connection is None:
        return session
    try:
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS
    except ImportError:
        return connection
    return STATELESS_CLIENT if getattr(connection, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS \
        else connection


def open_http_sessions(manager) -> dict | None:
    """The streamable HTTP session manager's open sessions, session id to transport (its own table:
    the SDK offers no public one), or None where this SDK keeps none by that name."""
    sessions = getattr(manager, "_server_instances", None)
    return sessions if isinstance(sessions, dict) else None


async def end_http_session(manager, session_id: str) -> None:
    """Ends one open session as the SDK ends an expired one: forgotten at once (its id answers 404),
    its transport terminated (its server task then ends)."""
    import anyio

    discard = getattr(manager, "_discard_session", None)
    sessions = open_http_sessions(manager) or {}
    transport = sessions.get(session_id)
    if transport is None:
        return
    if discard is not None:
        await discard(session_id, transport)
        return
    sessions.pop(session_id, None)
    with anyio.CancelScope(shield=True):
        await transport.terminate()


def lift_session_cap(manager) -> None:
    """No refusal of a new session by the SDK at its own cap: minirag's http_sessions keeps the count."""
    if hasattr(manager, "max_sessions"):
        manager.max_sessions = None
