"""Each private API of a dependency that minirag/_compat reaches for is still there, in the
version range its module states; a failure names the dependency and its installed version."""

from __future__ import annotations

import argparse
import asyncio
import inspect
import io
import platform
import re
import signal
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import anyio
import h11
import pytest

from minirag._compat import markitdown as markitdown_compat
from minirag._compat import mcp as mcp_compat
from minirag._compat import openpyxl as openpyxl_compat
from minirag._compat import pdfminer as pdfminer_compat
from minirag._compat import python as python_compat
from minirag._compat import uvicorn as uvicorn_compat

ROOT = Path(__file__).resolve().parents[1]
COMPAT = [mcp_compat, markitdown_compat, openpyxl_compat, pdfminer_compat, uvicorn_compat]


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.match(r"\d+(?:\.\d+)*", text).group().split("."))


def _moved(module, what: str) -> str:
    """The failure message: which dependency, which version, which file to check."""
    installed = version(module.DISTRIBUTION)
    lowest, below = module.SUPPORTED
    return (f"{module.DISTRIBUTION} {installed}: {what}; minirag/_compat/{module.__name__.rsplit('.', 1)[1]}.py "
            f"was written against {module.DISTRIBUTION}>={lowest},<{below}")


def _installed_in_range(module) -> None:
    lowest, below = module.SUPPORTED
    installed = version(module.DISTRIBUTION)
    assert _release(lowest) <= _release(installed) < _release(below), _moved(
        module, "outside the range; check what the module reaches for, then move SUPPORTED and pyproject.toml")


@pytest.mark.parametrize("module", COMPAT, ids=lambda m: m.DISTRIBUTION)
def test_the_installed_version_is_in_the_range_each_compat_module_was_written_against(module):
    _installed_in_range(module)


@pytest.mark.parametrize("module", COMPAT, ids=lambda m: m.DISTRIBUTION)
def test_pyproject_allows_exactly_the_range_each_compat_module_states(module):
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]

    def name(spec: str) -> str:
        return re.split(r"[\[<>=!~ ;]", spec, maxsplit=1)[0].lower().replace("_", "-").replace(".", "-")

    wanted = module.DISTRIBUTION.lower().replace(".", "-")
    specs = [spec for spec in dependencies if name(spec) == wanted]
    lowest, below = module.SUPPORTED
    assert len(specs) == 1 and f">={lowest}" in specs[0] and f"<{below}" in specs[0], (
        f"pyproject.toml's {module.DISTRIBUTION} requirement {specs} is not >={lowest},<{below}, the range "
        f"minirag/_compat/{module.__name__.rsplit('.', 1)[1]}.py states")


# --- mcp ----------------------------------------------------------------------------------------


def _mcp_server():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("compat")

    def echo(word: int) -> int:
        return word

    server.add_tool(echo, name="echo", structured_output=True)
    return server


def test_mcp_servers_low_level_server_runs_on_streams_given_to_it():
    lowlevel = mcp_compat.lowlevel_server(_mcp_server())
    assert lowlevel is not None, _moved(mcp_compat, "MCPServer has no _lowlevel_server")
    run = inspect.signature(lowlevel.run)
    assert list(run.parameters)[:3] == ["read_stream", "write_stream", "initialization_options"], _moved(
        mcp_compat, f"the low-level Server.run takes {list(run.parameters)}")
    assert lowlevel.create_initialization_options().server_name == "compat"


def test_mcp_a_dropped_request_handler_is_neither_served_nor_advertised():
    server = _mcp_server()
    lowlevel = mcp_compat.lowlevel_server(server)
    assert "prompts/list" in lowlevel._request_handlers, _moved(  # noqa: SLF001
        mcp_compat, "the low-level Server keeps no _request_handlers with prompts/list")
    assert lowlevel.create_initialization_options().capabilities.prompts is not None
    mcp_compat.drop_request_handler(server, "prompts/list")
    assert lowlevel.create_initialization_options().capabilities.prompts is None, _moved(
        mcp_compat, "prompts are still advertised once their handler is dropped")


def test_mcp_tool_parameters_are_the_schema_the_sdk_validates_against():
    server = _mcp_server()
    parameters = mcp_compat.tool_parameters(server, "echo")
    assert parameters is not None and "word" in parameters["properties"], _moved(
        mcp_compat, "MCPServer._tool_manager.get_tool(name).parameters is not the tool's argument schema")
    assert mcp_compat.tool_parameters(server, "nothing") is None


def test_mcp_a_tools_argument_validation_fails_with_its_argument_models_title():
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import ValidationError

    server = _mcp_server()
    with pytest.raises(ToolError) as caught:
        anyio.run(server.call_tool, "echo", {"word": "not a number"})
    cause = caught.value.__cause__
    assert isinstance(cause, ValidationError) and cause.title == mcp_compat.arguments_model_title("echo"), _moved(
        mcp_compat, f"a tool's argument validation fails with {cause!r}")


def test_mcp_stdio_read_stream_carries_the_last_context_its_dispatcher_reads():
    import mcp.server.stdio as stdio
    import mcp.shared.jsonrpc_dispatcher as dispatcher
    from mcp.shared._context_streams import create_context_streams

    assert "create_context_streams" in inspect.getsource(stdio.stdio_server), _moved(
        mcp_compat, "stdio_server's read stream is no longer one of the SDK's context streams")
    _send, receive = create_context_streams[int](0)
    assert hasattr(receive, "last_context"), _moved(mcp_compat, "the SDK's context streams have no last_context")
    assert mcp_compat.last_context(receive) is None
    assert "last_context" in inspect.getsource(dispatcher), _moved(
        mcp_compat, "the JSON-RPC dispatcher no longer reads last_context from its read stream")


def test_mcp_streamable_http_logs_under_the_name_the_guard_filters():
    import mcp.server.streamable_http as streamable_http

    assert streamable_http.logger.name == mcp_compat.STREAMABLE_HTTP_LOGGER, _moved(
        mcp_compat, f"the streamable HTTP transport logs as {streamable_http.logger.name!r}")


def test_mcp_protocol_models_imported_deferred_build_on_first_use_and_the_default_returns():
    """In a fresh interpreter: imported inside sdk_models_built_on_first_use, the SDK's models are
    made without their validators (pydantic's private default moved: the import is as slow as before),
    one validates when first used, and models made afterwards build at once again."""
    code = ("from minirag._compat.mcp import sdk_models_built_on_first_use\n"
            "with sdk_models_built_on_first_use():\n"
            "    import mcp_types\n"
            "import pydantic\n"
            "deferred = not mcp_types.Implementation.__pydantic_complete__\n"
            "ok = mcp_types.Implementation.model_validate({'name': 'x', 'version': '1'}).name == 'x'\n"
            "class Later(pydantic.BaseModel):\n"
            "    a: int\n"
            "print(deferred, ok, Later.__pydantic_complete__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"], _moved(
        mcp_compat, f"pydantic {version('pydantic')}: its models no longer defer by pydantic's config_defaults")


# --- markitdown ---------------------------------------------------------------------------------


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_markitdown_says_whether_its_youtube_converter_fetches_transcripts():
    from markitdown.converters import _youtube_converter

    assert hasattr(_youtube_converter, "IS_YOUTUBE_TRANSCRIPT_CAPABLE"), _moved(
        markitdown_compat, "markitdown.converters._youtube_converter has no IS_YOUTUBE_TRANSCRIPT_CAPABLE")
    assert markitdown_compat.youtube_fetches_transcripts() is _youtube_converter.IS_YOUTUBE_TRANSCRIPT_CAPABLE


@pytest.mark.slow  # waits on real timeouts or file events: about a second
def test_markitdown_converters_import_without_magika_loading_onnxruntime():
    code = ("import sys\nfrom minirag._compat.markitdown import without_magika\nwithout_magika()\n"
            "import markitdown.converters\nprint('onnxruntime' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "False", _moved(
        markitdown_compat, f"importing its converters with magika stood in for: {done.stdout}{done.stderr[-500:]}")


# --- openpyxl -----------------------------------------------------------------------------------


def test_openpyxl_reads_the_shared_strings_through_the_method_the_xlsx_reader_replaces():
    from openpyxl.reader import excel

    found = list(inspect.signature(excel.ExcelReader).parameters)
    assert {"read_only", "data_only", "keep_links"} <= set(found), _moved(openpyxl_compat, f"ExcelReader takes {found}")
    assert "self.read_strings()" in inspect.getsource(excel.ExcelReader.read), _moved(
        openpyxl_compat, "ExcelReader.read no longer reads the shared strings through read_strings")
    reading = inspect.getsource(excel.ExcelReader.read_strings)
    assert "SHARED_STRINGS" in reading and "self.shared_strings = " in reading, _moved(
        openpyxl_compat, "ExcelReader.read_strings no longer puts the table it finds in self.shared_strings")
    assert "ExcelReader(" in inspect.getsource(excel.load_workbook), _moved(
        openpyxl_compat, "load_workbook no longer reads through ExcelReader")


def test_openpyxl_string_table_is_read_string_table_less_its_deletion_of_the_escaped_underscore():
    from openpyxl.reader.strings import read_string_table
    from openpyxl.worksheet._reader import WorkSheetParser

    source = inspect.getsource(read_string_table)
    assert "Text.from_tree(node).content" in source and "replace('x005F_', '')" in source, _moved(
        openpyxl_compat, "read_string_table reads a string's text otherwise")
    table = (b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>a_x005F_x000D_</t></si>'
             b'<si><r><t xml:space="preserve">rich </t></r><r><t>run</t></r><rPh sb="0" eb="1"><t>phonetic</t></rPh></si></sst>')
    assert read_string_table(io.BytesIO(table)) == ["a_x000D_", "rich run"]
    assert openpyxl_compat.string_table(io.BytesIO(table)) == ["a_x005F_x000D_", "rich run"]
    assert "Text.from_tree(child).content" in inspect.getsource(WorkSheetParser.parse_cell), _moved(
        openpyxl_compat, "an inline string's text is no longer given as written")


# --- pdfminer.six -------------------------------------------------------------------------------


def test_pdfminer_decodes_streams_through_the_module_names_the_budget_replaces():
    import pdfminer.pdftypes as pdftypes

    source = inspect.getsource(pdftypes.PDFStream.decode)
    for name in pdfminer_compat.DECODER_NAMES:
        assert hasattr(pdftypes, name), _moved(pdfminer_compat, f"pdfminer.pdftypes has no name {name!r}")
        called = "zlib.decompress(" if name == "zlib" else f"{name}("
        assert called in source, _moved(pdfminer_compat, f"PDFStream.decode no longer calls {called}...)")


def test_pdfminer_interpreter_draws_and_pages_through_the_methods_the_budget_wraps():
    from pdfminer.pdfinterp import PDFPageInterpreter

    expected = {"do_Do": ["self", "xobjid_arg"], "process_page": ["self", "page"]}
    assert set(expected) == set(pdfminer_compat.WRAPPED_METHODS)
    for name, parameters in expected.items():
        found = list(inspect.signature(getattr(PDFPageInterpreter, name)).parameters)
        assert found == parameters, _moved(pdfminer_compat, f"PDFPageInterpreter.{name} takes {found}")
    assert "getattr(self, method)" in inspect.getsource(PDFPageInterpreter.execute), _moved(
        pdfminer_compat, "PDFPageInterpreter.execute no longer looks operators up as do_ methods")



def test_pdfminer_breaks_layout_ties_in_the_order_it_meets_boxes_not_by_memory_address():
    """Three boxes in a row, the middle one as near to each: the pair group_textboxes merges first
    was the one whose box had the lower id(), so R's manuals read a figure's digits in another order
    in each run. Here the left box has the higher address: it must still pair with the middle one."""
    from pdfminer.layout import LAParams, LTLayoutContainer, LTTextBoxHorizontal, LTTextGroup

    assert "id" in LTLayoutContainer.group_textboxes.__code__.co_names, _moved(
        pdfminer_compat, "group_textboxes no longer breaks ties through the module's name `id`")
    pdfminer_compat.order_layout_ties()
    first, second = LTTextBoxHorizontal(), LTTextBoxHorizontal()
    left, middle = (first, second) if id(first) > id(second) else (second, first)
    right = LTTextBoxHorizontal()
    for box, x in ((left, 0), (middle, 100), (right, 200)):
        box.set_bbox((x, 0, x + 10, 10))
    (top,) = LTLayoutContainer((0, 0, 1000, 1000)).group_textboxes(LAParams(), [left, middle, right])
    (merged_first,) = [group for group in top if isinstance(group, LTTextGroup)]
    assert set(merged_first) == {left, middle}


def test_pdfminer_follows_references_through_the_method_the_loop_guard_wraps():
    import pdfminer.pdftypes as pdftypes

    found = list(inspect.signature(pdftypes.PDFObjRef.resolve).parameters)
    assert found == ["self", "default"], _moved(pdfminer_compat, f"PDFObjRef.resolve takes {found}")
    for follow in (pdftypes.resolve1, pdftypes.resolve_all):
        assert ".resolve(default=default)" in inspect.getsource(follow), _moved(
            pdfminer_compat, f"{follow.__name__} no longer follows references through PDFObjRef.resolve")


def test_pdfminer_reads_a_strings_octal_escapes_where_the_overflow_guard_wraps():
    from pdfminer.psparser import PSBaseParser

    found = list(inspect.signature(PSBaseParser._parse_string_1).parameters)
    assert found == ["self", "s", "i"], _moved(pdfminer_compat, f"PSBaseParser._parse_string_1 takes {found}")
    assert "self.oct" in inspect.getsource(PSBaseParser._parse_string_1), _moved(
        pdfminer_compat, "PSBaseParser._parse_string_1 no longer gathers an escape's digits in self.oct")
    pdfminer_compat.octal_overflow_ignored()
    parser = PSBaseParser(io.BytesIO(b"(\\004\\436 \\510ello)"))
    (_, token) = parser.nexttoken()
    assert token == b"\x04\x1e Hello"

# --- uvicorn ------------------------------------------------------------------------------------


class _Transport(asyncio.Transport):
    def __init__(self):
        super().__init__()
        self.closing = False

    def get_extra_info(self, name, default=None):
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def is_closing(self):
        return self.closing

    def write(self, data):
        pass

    def close(self):
        self.closing = True

    def pause_reading(self):
        pass

    def resume_reading(self):
        pass


def test_uvicorn_h11_protocol_shows_a_requests_state_connections_and_body():
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    async def app(scope, receive, send):  # never reached: the body stays incomplete
        await receive()

    async def observe():
        protocol = uvicorn_compat.H11Protocol(Config(app, log_level="warning"), ServerState(), {},
                                              _loop=asyncio.get_running_loop())
        transport = _Transport()
        protocol.connection_made(transport)
        seen = [uvicorn_compat.peer_state(protocol), protocol in uvicorn_compat.open_connections(protocol),
                protocol.loop is asyncio.get_running_loop() and protocol.transport is transport]
        protocol.data_received(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n1234")
        seen += [uvicorn_compat.peer_state(protocol), uvicorn_compat.body_so_far(protocol),
                 uvicorn_compat.body_on_hold(protocol)]
        protocol.connection_lost(None)
        await asyncio.sleep(0)
        return seen

    seen = asyncio.run(observe())
    assert seen == [h11.IDLE, True, True, h11.SEND_BODY, 4, False], _moved(
        uvicorn_compat, f"H11Protocol's conn, connections, loop, transport, cycle and flow read {seen}")


# --- the standard library -----------------------------------------------------------------------


def _python_moved(what: str) -> str:
    lowest, below = python_compat.SUPPORTED
    return (f"Python {platform.python_version()}: {what}; minirag/_compat/python.py was written against "
            f"CPython >={lowest[0]}.{lowest[1]},<{below[0]}.{below[1]}")


def test_python_is_in_the_range_the_stdlib_compat_module_was_written_against():
    lowest, below = python_compat.SUPPORTED
    assert lowest <= sys.version_info[:2] < below, _python_moved(
        "outside the range; check what the module reaches for, then move SUPPORTED")


def test_argparse_keeps_subcommands_and_options_where_the_cli_reads_them():
    parser = argparse.ArgumentParser()
    serve = parser.add_subparsers(dest="command").add_parser("serve")
    serve.add_argument("--base-dir")
    serve.add_argument("--json", action="store_true")
    assert python_compat.subcommands(parser) == {"serve": serve}, _python_moved(
        "argparse no longer keeps subcommands on _subparsers._group_actions[0].choices")
    assert python_compat.options_taking_values(serve) == {"--base-dir"}, _python_moved(
        "argparse's _actions no longer say which options take a value")


def test_faulthandlers_abort_hook_takes_the_process_down_with_sigabrt():
    done = subprocess.run([sys.executable, "-c", "from minirag._compat.python import abort; abort()"],
                          capture_output=True, timeout=60)
    assert done.returncode == -signal.SIGABRT, _python_moved(
        f"faulthandler._sigabrt() ended the process with {done.returncode}: {done.stderr[-300:]!r}")
