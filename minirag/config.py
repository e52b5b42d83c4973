"""Configuration: flags > environment > defaults, resolved once into a frozen Config.

Every invalid value is a ConfigError whose message names the variable and the
accepted range, so `status` can report it verbatim.
"""

from __future__ import annotations

import codecs
import contextlib
import difflib
import json
import logging
import os
import re
import stat
import sys
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from minirag import json_text
from minirag.chunking import MIN_CHUNK_TOKEN_BUDGET
from minirag.display import is_utf8, printable, shown
from minirag.errors import ConfigError
from minirag.ingest.ignore import Globs, bad_glob
from minirag.ingest.ocr import settings_error as ocr_settings_error

DEFAULT_MODEL = "intfloat/multilingual-e5-small"
DEFAULT_MAX_FILE_SIZE = 100 * 1024 * 1024
DEFAULT_CHUNK_TOKEN_BUDGET = 110
DEFAULT_CONVERT_MEMORY_MB = 2048
DEFAULT_CONVERT_CPU_SECONDS = 120
DEFAULT_CONVERT_TIMEOUT = 300
DEFAULT_HYBRID_WEIGHT = 0.4  # the keyword side's share of the fused score (search/fusion.py)
QUESTION_HYBRID_WEIGHT = 0.2  # ... for a query in question form, unless one is set (search/query_form.py)
SENTENCE_HYBRID_WEIGHT = 0.3  # ... for a statement that ends with a full stop, unless one is set
FOREIGN_HYBRID_WEIGHT = 0.7  # ... for a query in a language the model was not trained on, unless one is set
NAME_HYBRID_WEIGHT = 0.7  # ... for a query of one or two words written as names or codes are, unless one is set
DEFAULT_TOP_K = 10  # the CLI's --top-k and the MCP tool's topK alike
MAX_TOP_K = 100  # more is cut to this, not refused (search.clamp_top_k)
MAX_CHUNK_TOKEN_BUDGET = 8192  # CHUNK_TOKEN_BUDGET's, and a model folder's chunk_budget's
MAX_NEIGHBORS = 20  # chunks on each side read_chunk_neighbors returns at most (the CLI refuses more)
MIN_TOKEN_LENGTH = 16  # characters of the bearer token `serve --http` requires off loopback
DEFAULT_MAX_RESPONSE_TOKENS = 10_000  # docs/mcp-tools.md: why this, and how tokens are counted
GROUPINGS = ("similar", "related")
INDEX_DIRNAME = ".minirag"
INDEX_FILENAME = "index.db"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
BOOLEAN_VALUES = "1/true/yes/on or 0/false/no/off"


@dataclass(frozen=True)
class Flag:
    """A setting's command-line flag. cli_parser.py adds it to every command (or to `command` alone) as
    described here, and load_config takes its value by `key`, over the setting's variable."""

    name: str  # "--db-path"
    help: str
    metavar: str | None = None  # None: argparse's own (the key in capitals)
    repeatable: bool = False  # each use adds a value; the list replaces the variable's
    switch: bool = False  # takes no value: given, it is True; absent, the variable decides
    command: str | None = None  # the one command that takes it; None: every command
    dest: str = ""  # its key, where that is not the name's words (`--base-dir` gives `base_dirs`)

    @property
    def key(self) -> str:
        """Its argparse dest and load_config keyword."""
        return self.dest or self.name.lstrip("-").replace("-", "_")

    @property
    def shown(self) -> str:
        return f"{self.command} {self.name}" if self.command else self.name


@dataclass(frozen=True)
class Setting:
    """One setting as users meet it. docs/configuration.md is generated from SETTINGS
    (scripts/gen_docs.py), the CLI's configuration flags are its rows' `flags`, and load_config
    takes its accepted values and ranges from here."""

    name: str  # the environment variable
    default: str  # as shown to users
    meaning: str
    flags: tuple[Flag, ...] = ()  # the CLI flags that win over the variable
    values: str = ""  # what is accepted, for settings that are not numbers
    kind: type | None = None  # int or float: a number in low..high (None: unbounded)
    low: float | None = None
    high: float | None = None
    read_by: str = "minirag"  # or the library that reads it

    @property
    def flag(self) -> str | None:
        """Its flags as users write them, comma-separated; None when it has none."""
        return ", ".join(flag.shown for flag in self.flags) or None

    @property
    def bounds(self) -> str:
        """Its numeric bounds as a phrase: `in 16–256`, `at least 1`, `at most 2`."""
        if self.low is not None and self.high is not None:
            return f"in {self.low}–{self.high}"
        if self.low is not None:
            return f"at least {self.low}"
        return f"at most {self.high}" if self.high is not None else "any value"

    @property
    def accepts(self) -> str:
        if self.kind is None:
            return self.values
        kind = "an integer" if self.kind is int else "a number"
        return f"{kind} {self.bounds}" if self.bounds.startswith("in ") else f"{kind}, {self.bounds}"


_BASE_DIR_FLAG = Flag("--base-dir", "document root (repeatable); replaces BASE_DIR/BASE_DIRS", metavar="DIR",
                      repeatable=True, dest="base_dirs")

SETTINGS: tuple[Setting, ...] = (
    Setting("BASE_DIR", "the current directory (unless that is `/` or your home folder: then it must be named); "
            "none for `--read-only` on an explicit `DB_PATH`, which serves the index alone",
            "one document root, and the security boundary: "
            "every file minirag reads must lie inside a root", flags=(_BASE_DIR_FLAG,), values="an existing folder"),
    Setting("BASE_DIRS", "unset", "several document roots (`[\"/a\", \"/b\"]`), or named collections with a "
            "one-line description each (`{\"specs\": {\"path\": \"/a\", \"description\": \"...\"}}`; "
            "docs/mcp-tools.md); wins over `BASE_DIR`", flags=(_BASE_DIR_FLAG,),
            values="a JSON array of one or more non-empty path strings, or an object of collection names "
            "to a path or to {path, description}"),
    Setting("DB_PATH", f"`<first root>/{INDEX_DIRNAME}/{INDEX_FILENAME}`", "the index: one SQLite file "
            f"(given a folder, `{INDEX_FILENAME}` inside it)", values="a file path (a regular file or none yet: not a "
            "pipe or a device)",
            flags=(Flag("--db-path", f"index file (DB_PATH); default <first root>/{INDEX_DIRNAME}/{INDEX_FILENAME}"),)),
    Setting("CACHE_DIR", "`<user cache dir>/minirag/models` (Linux: `~/.cache/minirag/models`)",
            "where models downloaded from the Hugging Face hub are kept", values="a folder",
            flags=(Flag("--cache-dir", "model cache directory (CACHE_DIR)"),)),
    Setting("MODEL_NAME", f"the index's model; `{DEFAULT_MODEL}` for a new index",
            "the embedding model, by hub id or short name (`all-MiniLM-L6-v2`); naming another model "
            "than the index's is refused", values="a model id (see [models.md](models.md))",
            flags=(Flag("--model-name", "embedding model id (MODEL_NAME)"),)),
    Setting("MODEL_PATH", "unset (an index written with one keeps using it)",
            "a local model folder, used with no network at all; wins over `MODEL_NAME`",
            values="a directory holding model.onnx and tokenizer.json",
            flags=(Flag("--model-path", "local model directory with model.onnx + tokenizer.json (MODEL_PATH)"),)),
    Setting("MINIRAG_READ_ONLY", "off", "never write or create the index; the server lists only the read tools",
            values=BOOLEAN_VALUES,
            flags=(Flag("--read-only", "never write or create the index (MINIRAG_READ_ONLY)", switch=True),)),
    Setting("MINIRAG_LITESTREAM_CONFIG", "unset", "the Litestream configuration replicating this index: "
            "Litestream then runs its checkpoints, and `doctor` checks the replica (docs/backups.md)",
            values="a file", flags=(Flag("--litestream-config", "Litestream configuration replicating the index: "
                                         "Litestream runs its checkpoints (MINIRAG_LITESTREAM_CONFIG; docs/backups.md)",
                                         metavar="FILE"),)),
    Setting("MINIRAG_INCLUDE", "unset (every supported file)", "only files matching one of these globs are "
            "indexed (gitignore syntax, relative to each root; one starting with a root's path applies to that "
            "root only)",
            values="globs, comma-separated (the variable also takes a JSON array)",
            flags=(Flag("--include", "index only files matching a glob (repeatable, or comma-separated; "
                        "MINIRAG_INCLUDE)", metavar="GLOB", repeatable=True),)),
    Setting("MINIRAG_EXCLUDE", "unset", "files and folders matching one of these globs are left out (same "
            "syntax; wins over `.gitignore` and includes)", values="globs, comma-separated (the variable also takes a JSON array)",
            flags=(Flag("--exclude", "leave out files and folders matching a glob (repeatable, or comma-separated; "
                        "MINIRAG_EXCLUDE)", metavar="GLOB", repeatable=True),)),
    Setting("MINIRAG_GITIGNORE", "on", "honour `.gitignore` files (git's rules; from the repository's top "
            "when a root lies in one); `.minignore` files are honoured either way", values=BOOLEAN_VALUES),
    Setting("MAX_FILE_SIZE", f"{DEFAULT_MAX_FILE_SIZE} ({DEFAULT_MAX_FILE_SIZE // 2**20} MiB)", "bytes; bigger files (and bigger "
            "`ingest_data` payloads) are refused before they are read, a compressed one (`.gz`, `.bz2`, `.xz`) "
            "as soon as it inflates past it", kind=int, low=1),
    Setting("MINIRAG_CONVERT_MEMORY_MB", str(DEFAULT_CONVERT_MEMORY_MB), "MiB of address space one file's "
            "conversion may use, in its own worker process; past it the file fails, minirag goes on",
            kind=int, low=256, high=1024 * 1024),
    Setting("MINIRAG_CONVERT_CPU_SECONDS", str(DEFAULT_CONVERT_CPU_SECONDS), "CPU seconds one file's "
            "conversion may use; past them the file fails", kind=int, low=1, high=86400),
    Setting("MINIRAG_CONVERT_TIMEOUT", str(DEFAULT_CONVERT_TIMEOUT), "seconds (wall clock) one file's "
            "conversion may take; past them its worker is killed and the file fails", kind=int, low=1,
            high=86400),
    Setting("CHUNK_TOKEN_BUDGET", f"the model's own ({DEFAULT_CHUNK_TOKEN_BUDGET} unless measured otherwise; "
            "docs/models.md)", "size of a retrieval unit in the model's own tokens; also at most the model's "
            "maximum sequence length. A sync re-cuts files cut at another budget (unchanged chunk texts "
            "keep their vectors)",
            kind=int, low=MIN_CHUNK_TOKEN_BUDGET, high=MAX_CHUNK_TOKEN_BUDGET),
    Setting("RAG_HYBRID_WEIGHT", f"{DEFAULT_HYBRID_WEIGHT}; {SENTENCE_HYBRID_WEIGHT} for a sentence, "
            f"{QUESTION_HYBRID_WEIGHT} for a question, {NAME_HYBRID_WEIGHT} for a name or a code",
            "the keyword side's share "
            "of the fused score (normalized BM25 against normalized cosine; docs/search.md): 0 = vector only "
            "(FTS is not run), 1 = keyword only. Set, it holds for every query", kind=float, low=0.0, high=1.0),
    Setting("RAG_GROUPING", "unset", "cut the results at the first (similar) or second (related) "
            "large distance gap", values=", ".join(GROUPINGS)),
    Setting("RAG_MAX_DISTANCE", "unset", "drop hits farther than this cosine distance (0 to 2), "
            "and keyword-only hits", kind=float, low=0.0),
    Setting("RAG_MAX_FILES", "unset", "keep hits from the first N distinct sources only", kind=int, low=1),
    Setting("MINIRAG_MAX_RESPONSE_TOKENS", f"{DEFAULT_MAX_RESPONSE_TOKENS}", "the most tokens one tool "
            "result may cost a client (one per non-ASCII character, one per 3 ASCII characters of its JSON); "
            "`query_documents` and `read_file` fill it and say what they left out (docs/mcp-tools.md)",
            kind=int, low=1000, high=1_000_000),
    Setting("ALLOW_PRIVATE_URLS", "off", "let `ingest_url` fetch loopback, private and link-local hosts",
            values=BOOLEAN_VALUES),
    Setting("MINIRAG_WATCH", "off", "the server keeps the index in sync as files change "
            "(poll: by polling, for network drives)", values="1/true/yes/on, 0/false/no/off or poll",
            flags=(Flag("--watch", "keep the index in sync as files change (MINIRAG_WATCH; =poll to poll)",
                        switch=True, command="serve"),
                   Flag("--poll", "poll every few seconds instead of OS notifications (network drives, WSL /mnt)",
                        switch=True, command="watch"))),
    Setting("MINIRAG_HTTP_TOKEN", "unset", "bearer token clients of `serve --http` must send; required to "
            f"bind a non-loopback address (at least {MIN_TOKEN_LENGTH} characters)", values="a secret",
            flags=(Flag("--token", "bearer token HTTP clients must send (MINIRAG_HTTP_TOKEN, which `ps` cannot "
                        "see, is safer); required to bind a non-loopback address", command="serve"),)),
    Setting("HTTPS_PROXY", "unset", "the proxy `ingest_url` reaches https URLs through (a CONNECT tunnel); "
            "the target is still checked (docs/operations.md)", values="an http:// proxy URL, credentials allowed",
            read_by="minirag (as curl reads it; also lowercase)"),
    Setting("HTTP_PROXY", "unset", "the proxy `ingest_url` asks for http URLs", values="an http:// proxy URL",
            read_by="minirag (as curl reads it; also lowercase)"),
    Setting("NO_PROXY", "unset", "hosts `ingest_url` reaches directly, not through the proxy",
            values="comma-separated host names or domain suffixes", read_by="minirag (as curl reads it; also lowercase)"),
    Setting("MINIRAG_OCR", "auto (Tesseract where installed, else RapidOCR from the `ocr` extra)",
            "how scanned PDF pages and "
            "image files are read (docs/documents.md: Scans and images)", values="auto, rapidocr, tesseract or off"),
    Setting("MINIRAG_OCR_LANGUAGES", "your locale's language, then English (those Tesseract has)",
            "the languages "
            "Tesseract reads, as its codes; RapidOCR's own model reads Latin scripts, Chinese and Japanese",
            values="comma-separated Tesseract codes (eng, rus, deu, chi_sim, ...)"),
    Setting("HF_HUB_OFFLINE", "unset", "never try the Hugging Face hub: a model that is not on disk "
            "fails at once", values="1/true/yes/on", read_by="minirag and huggingface_hub"),
    Setting("HF_ENDPOINT", "`https://huggingface.co`", "the hub that models are downloaded from",
            values="a URL", read_by="minirag and huggingface_hub"),
    Setting("ORT_DISABLE_TELEMETRY", "1 (set by minirag unless already set)", "keeps ONNX Runtime from "
            "writing a device id and telemetry events under `~/.cache/Microsoft`", values="1",
            read_by="onnxruntime"),
    Setting("OPENBLAS_NUM_THREADS", "1 (set by minirag unless already set)", "threads of numpy's matrix "
            "products: one keeps a query's vector side off the core its keyword side runs on",
            values="a number", read_by="numpy (OpenBLAS)"),
    Setting("MALLOC_ARENA_MAX", "2 (set by minirag through mallopt unless the variable is set)", "glibc malloc "
            "arenas: one per thread otherwise, which a serving process keeps (~45 MB at 100k chunks)",
            values="a number", read_by="glibc"),
    Setting("PYTHONUTF8", "1 (set by minirag where the locale would read file names in another encoding: it "
            "starts itself again with it)", "Python's UTF-8 mode: file names read as UTF-8, as the index spells them",
            values="1", read_by="Python"),
    Setting("PATHEXT", "Windows' own", "on Windows, the endings a program's file may have when minirag looks "
            "for `git` or `tesseract` on PATH's absolute folders", values="`.EXE;.CMD;...`", read_by="minirag (Windows only)"),
    Setting("SHIV_ROOT", "`~/.shiv`", "where the zipapp unpacks itself on first run", values="a folder",
            read_by="the zipapp (shiv)"),
)
SETTING = {setting.name: setting for setting in SETTINGS}


def setting_flags() -> tuple[Flag, ...]:
    """The settings' flags, once each (BASE_DIR and BASE_DIRS share `--base-dir`), in SETTINGS' order:
    the order `--help` lists them in."""
    flags: dict[tuple[str | None, str], Flag] = {}
    for setting in SETTINGS:
        for flag in setting.flags:
            flags.setdefault((flag.command, flag.name), flag)
    return tuple(flags.values())


COLLECTION_NAME = re.compile(r"^[\w.-]{1,64}$")
MAX_DESCRIPTION = 200  # characters of a collection's description: one line of the server's instructions


@dataclass(frozen=True)
class Collection:
    """A document root with the name and description an agent knows it by."""

    name: str
    root: Path
    description: str = ""
    # The root as named (absolute, no link followed) where a link on its way led to `root`: a
    # long-running server keeps `root`, and a sync checks the name still leads there.
    named: Path | None = None


log = logging.getLogger(__name__)

# local-rag-mcp's settings. Its corpus folder means what BASE_DIR means, so it is read as BASE_DIR
# (a server started with only it set would otherwise index the client's working directory). Its
# store is a Chroma folder that local-rag-mcp may still use: minirag keeps one SQLite file and
# never writes into another tool's store, so it is refused with the name to use instead.
FOREIGN_ROOT = "RAG_CORPUS_DIR"
FOREIGN_STORE = "RAG_STORE_DIR"
_warned: set[str] = set()


def _notice(message: str) -> None:
    """A warning on stderr, once per process (a server resolves its configuration more than once)."""
    if message not in _warned:
        _warned.add(message)
        log.warning("%s", message)


# minirag's own settings without a RAG_/MINIRAG_ prefix: any other program's variable may stand beside
# them, so a name is taken for a typo of one only when it is very close (BASE_DRI, DBPATH, MODEL_NMAE).
_UNPREFIXED = ("ALLOW_PRIVATE_URLS", "BASE_DIR", "BASE_DIRS", "CACHE_DIR", "CHUNK_TOKEN_BUDGET", "DB_PATH",
               "MAX_FILE_SIZE", "MODEL_NAME", "MODEL_PATH")


def _unknown_settings(env: Mapping[str, str]) -> None:
    """Warn, once each, about RAG_* and MINIRAG_* variables minirag does not read, and about a name
    next to one of its unprefixed settings: a typo there silently changes nothing (a misspelt
    BASE_DIR made the working folder the root)."""
    known = set(SETTING) | {FOREIGN_ROOT, FOREIGN_STORE}
    for name in sorted(env):
        if name in known:
            continue
        if name.startswith(("RAG_", "MINIRAG_")):
            close = difflib.get_close_matches(name, sorted(SETTING), n=1, cutoff=0.85)
            hint = f" (did you mean {close[0]}?)" if close else "; docs/configuration.md lists the settings"
            _notice(f"{name} is not a minirag setting and is ignored{hint}")
        elif close := difflib.get_close_matches(name.upper(), _UNPREFIXED, n=1, cutoff=0.85):
            _notice(f"{name} is not a minirag setting and is ignored (did you mean {close[0]}?)")


def _refuse_undecodable(env: Mapping[str, str]) -> None:
    """A setting holding bytes that are not UTF-8 (Python hands them over as lone surrogates) is a
    ConfigError: no JSON can carry its value (an MCP server's instructions, a --json answer), nor
    the index store it. (The command line's are refused where argv is read.)"""
    for name in (*SETTING, FOREIGN_ROOT, FOREIGN_STORE):
        value = env.get(name)
        if value is not None and not is_utf8(value):
            raise ConfigError(f"{name}: its value '{printable(shown(value, 80))}' is not valid UTF-8 (bytes in another "
                              "encoding); write it in UTF-8")


def _refuse_non_utf8_names() -> None:
    """A ConfigError when this process reads file names in another encoding than UTF-8. Python takes
    that from the locale (a Latin-1 or EUC-JP one; `C` only with PYTHONUTF8=0): a UTF-8 name such as
    `caf\u00e9.md` then comes as other characters, or lone surrogates under ASCII, and a sync took
    it for a name that is not UTF-8 and dropped the file from the index (or indexed it again under
    another name). Windows and macOS always read names as UTF-8."""
    encoding = sys.getfilesystemencoding()
    if codecs.lookup(encoding).name != "utf-8":
        # With PYTHONUTF8=1 set, only Python's own `-X utf8=0` can still have turned the mode off.
        fix = ("run Python without `-X utf8=0`, which overrides PYTHONUTF8" if os.environ.get("PYTHONUTF8") == "1"
               else "set PYTHONUTF8=1, or use a UTF-8 locale")
        raise ConfigError(f"file names are read as {encoding} here, not UTF-8 (Python takes that from the locale: "
                          "LANG / LC_ALL, or PYTHONUTF8=0), so every name that is not ASCII would look broken "
                          f"and be dropped from the index: {fix}")


def _foreign_settings(env: Mapping[str, str], flag_roots, db_flag) -> Mapping[str, str]:
    """`env` with local-rag-mcp's RAG_CORPUS_DIR read as BASE_DIR (when no root is named the minirag
    way), a notice either way; RAG_STORE_DIR refused unless DB_PATH is set."""
    corpus = env.get(FOREIGN_ROOT, "").strip()
    store = env.get(FOREIGN_STORE, "").strip()
    if store and not (db_flag or env.get("DB_PATH", "").strip()):
        raise ConfigError(f"{FOREIGN_STORE} (local-rag-mcp's Chroma store) is not read by minirag, which keeps "
                          f"one SQLite file: set DB_PATH to the file to keep it in, or unset {FOREIGN_STORE} to keep "
                          f"it at <first root>/{INDEX_DIRNAME}/{INDEX_FILENAME}")
    if store:
        _notice(f"{FOREIGN_STORE} is local-rag-mcp's setting and is ignored: DB_PATH names the index")
    if not corpus:
        return env
    if flag_roots or env.get("BASE_DIRS", "").strip() or env.get("BASE_DIR", "").strip():
        _notice(f"{FOREIGN_ROOT} is local-rag-mcp's setting and is ignored: the roots are named by "
                f"{'--base-dir' if flag_roots else 'BASE_DIRS or BASE_DIR'}")
        return env
    _notice(f"{FOREIGN_ROOT} (local-rag-mcp's name) is read as BASE_DIR={corpus}; set BASE_DIR instead "
            "to silence this")
    return {**env, "BASE_DIR": corpus}


@dataclass(frozen=True)
class Config:
    roots: tuple[Path, ...]
    db_path: Path
    cache_dir: Path
    model_name: str
    db_path_named: bool = False  # DB_PATH / --db-path given: the index is where the user chose (store/home.py)
    roots_named: bool = True  # False: no BASE_DIR, BASE_DIRS or --base-dir, the root is the working folder
    model_path: Path | None = None
    model_named: bool = False  # MODEL_NAME / --model-name given: otherwise an index keeps its own model
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    chunk_token_budget: int | None = None  # None: the model's own default (models.ModelSpec.chunk_budget)
    hybrid_weight: float | None = None  # None: by the query's form (search/query_form.py)
    grouping: str | None = None
    max_distance: float | None = None
    max_files: int | None = None
    allow_private_urls: bool = False
    read_only: bool = False
    watch: bool = False  # the server keeps the index in sync as files change (--watch / MINIRAG_WATCH)
    watch_polling: bool = False  # ... by polling instead of OS notifications (MINIRAG_WATCH=poll)
    # The Litestream configuration that replicates this index: Litestream then runs the
    # checkpoints (store/checkpoint.py) and `doctor` reports the replica (store/replica.py).
    litestream_config: Path | None = None
    max_response_tokens: int = DEFAULT_MAX_RESPONSE_TOKENS  # what one tool result may cost a client (budget.py)
    collections: tuple[Collection, ...] = ()  # the roots, named: one each, in the order of `roots`
    include: Globs = Globs()  # ingest/ignore.py
    exclude: Globs = Globs()
    gitignore: bool = True
    # Per file, in the converter's worker process (ingest/isolation.py).
    convert_memory_mb: int = DEFAULT_CONVERT_MEMORY_MB
    convert_cpu_seconds: int = DEFAULT_CONVERT_CPU_SECONDS
    convert_timeout: int = DEFAULT_CONVERT_TIMEOUT


def parse_bool(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{name} must be one of {BOOLEAN_VALUES}, got {raw!r}")


def _resolve(name: str, raw: str, cwd: Path) -> Path:
    """`raw` (a setting's value) as an absolute path; a value no path can be made of is a ConfigError."""
    if not raw.strip():  # a flag's " ": a file or folder named by spaces in the working directory
        raise ConfigError(f"{name}: a blank value names no path; name one, or leave it unset")
    try:
        path = (cwd / Path(raw).expanduser()).resolve()
        path.exists()  # raises for what no later check should meet: a name too long, a NUL
    except (RuntimeError, OSError, ValueError) as exc:  # RuntimeError: `~user` with no such user
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"{name}: {shown(raw, 80)!r} cannot be used as a path ({reason})") from None
    if not is_utf8(str(path)):  # the index keeps paths as text: its own, its roots', every document's
        raise ConfigError(f"{name}: {printable(str(path))} is not valid UTF-8 (a folder on its way is named in "
                          "another encoding); rename it, or name another")
    if _VARIABLE.search(raw) and not os.path.lexists(path) and (expanded := os.path.expandvars(raw)) != raw:
        # Else a folder named `${HOME}` is made in whatever folder the client started the server in.
        raise ConfigError(f"{name}: {shown(raw, 200)!r} holds a $VARIABLE that nothing expanded (an MCP client "
                          f"passes its env values as written): write the path out, as {shown(expanded, 200)!r}")
    return path


_VARIABLE = re.compile(r"\$(?:[A-Za-z_]\w*|\{[A-Za-z_]\w*\})")  # $HOME, ${HOME}: a shell's, as written


def _is_dir(path: Path, what: str, hint: str = "") -> bool:
    """Path.is_dir, with a folder that cannot be reached (permissions) a ConfigError naming `what`."""
    try:
        return path.is_dir()
    except OSError as exc:
        raise ConfigError(f"{what} cannot be reached ({exc.strerror or exc}){hint}") from None


_SPECIAL_FILES = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                  (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _refuse_special_file(db: Path) -> None:
    """The index is a regular file: SQLite opening a named pipe waits for a writer forever (`backup`
    hung), and /dev/null failed as 'disk I/O error'."""
    try:
        mode = os.stat(db).st_mode
    except OSError:  # none yet, or not reachable: said where it is opened
        return
    kind = next((name for test, name in _SPECIAL_FILES if test(mode)), None)
    if kind is not None:
        raise ConfigError(f"DB_PATH: {db} is {kind}, not a file; the index is one SQLite file: give DB_PATH "
                          "a file's path")


def _home_folders() -> set[Path]:
    """$HOME's folder and the account's own (they differ under `sudo -E` or a service's HOME)."""
    homes = set()
    with contextlib.suppress(RuntimeError, KeyError, OSError):  # no HOME, no password entry (a bare uid)
        homes.add(Path.home().resolve())
    try:
        import pwd

        homes.add(Path(pwd.getpwuid(os.getuid()).pw_dir).resolve())
    except (ImportError, KeyError, OSError):  # Windows, or a uid with no entry
        pass
    return homes


def _refuse_implicit_root(cwd: Path) -> None:
    """No root was named, so the working directory is the root: not when that is the filesystem's root
    or the home folder. A client app may start the server in either (GUI apps often start it in /),
    and the first sync would then index everything there; someone who means it can say so."""
    here = cwd.resolve()
    at_top = here == Path(here.anchor)
    if at_top or here in _home_folders():
        raise ConfigError(f"no document root was set (BASE_DIR, BASE_DIRS or --base-dir), and the working "
                          f"directory is {'the filesystem root' if at_top else 'your home folder'} "
                          f"{here}; name the folder to index, e.g. --base-dir {here} if you mean all of it")


def _parse_roots(env: Mapping[str, str], flag_roots: Sequence[str] | None, cwd: Path,
                 rootless: bool = False) -> tuple[Collection, ...]:
    """The roots named, as collections; with none named, the working directory, or none at all when
    `rootless` (a read-only server on an index DB_PATH names: it serves what the index holds and
    reads no folder)."""
    described: dict[str, tuple[str, str]] = {}  # raw path -> (name, description) from the object form
    if flag_roots:
        if not all(root.strip() for root in flag_roots):  # "" would resolve to the working directory
            raise ConfigError("--base-dir: an empty folder name; name the folder to index")
        raw_roots: list[str] = list(flag_roots)
        origin = "--base-dir"
    elif env.get("BASE_DIRS", "").strip():
        origin = "BASE_DIRS"
        try:
            parsed = json_text.loads(env["BASE_DIRS"])
        except ValueError as exc:
            raise ConfigError(f"BASE_DIRS must be {SETTING['BASE_DIRS'].values}: {_reason(exc)}") from None
        if isinstance(parsed, dict) and parsed:
            described = {raw: (name, description) for name, (raw, description) in _named_roots(parsed).items()}
            parsed = list(described)
        if (
            not isinstance(parsed, list)
            or not parsed
            or not all(isinstance(p, str) and p.strip() for p in parsed)
        ):
            raise ConfigError(f"BASE_DIRS must be {SETTING['BASE_DIRS'].values}")
        raw_roots = parsed
    elif env.get("BASE_DIR", "").strip():
        raw_roots, origin = [env["BASE_DIR"]], "BASE_DIR"
    elif rootless:
        return ()
    else:
        raw_roots, origin = [str(cwd)], "current directory"
        _refuse_implicit_root(cwd)
    collections: list[Collection] = []
    named: dict[Path, Collection] = {}  # by root: a thousand roots, each checked against those before
    for raw in raw_roots:
        path = _resolve(origin, raw, cwd)
        if not _is_dir(path, f"{origin}: document root {path}"):
            raise ConfigError(f"{origin}: document root {path} is not a directory")
        if (same := named.get(path)) is not None:
            if raw in described:
                raise ConfigError(f"BASE_DIRS: collections {same.name!r} and {described[raw][0]!r} name the same folder {path}")
            continue
        name, description = described.get(raw) or (_free_name(path.name or "root", collections), "")
        collections.append(named.setdefault(path, Collection(name, path, description, _named_path(raw, cwd, path))))
    return tuple(collections)


def _named_path(raw: str, cwd: Path, resolved: Path) -> Path | None:
    """`raw` made absolute without following a link, where that differs from `resolved` (a link
    on its way); None where it names `resolved` itself."""
    named = Path(os.path.abspath(cwd / Path(raw).expanduser()))
    return None if named == resolved else named


def _named_roots(parsed: dict) -> dict[str, tuple[str, str]]:
    """BASE_DIRS's object form: collection name -> (raw path, description)."""
    out: dict[str, tuple[str, str]] = {}
    for name, value in parsed.items():
        if not COLLECTION_NAME.match(name):
            raise ConfigError(f"BASE_DIRS: collection name {shown(name, 80)!r} must be 1 to 64 letters, digits, "
                              "'.', '_' or '-'")
        if isinstance(value, str):
            value = {"path": value}
        if not isinstance(value, dict) or set(value) - {"path", "description"}:
            raise ConfigError(f"BASE_DIRS: collection {name!r} must be a path or {{\"path\": ..., "
                              "\"description\": ...}} (no other keys)")
        path, description = value.get("path"), value.get("description", "")
        if not isinstance(path, str) or not path.strip():
            raise ConfigError(f"BASE_DIRS: collection {name!r} needs a non-empty \"path\"")
        if not isinstance(description, str) or len(description) > MAX_DESCRIPTION or any(
                unicodedata.category(ch) in ("Cc", "Cf") for ch in description):
            raise ConfigError(f"BASE_DIRS: collection {name!r}: the description must be one line of at most "
                              f"{MAX_DESCRIPTION} characters")
        if path in {raw for raw, _ in out.values()}:
            raise ConfigError(f"BASE_DIRS: two collections name the same folder {path!r}")
        out[name] = (path, description.strip())
    return out


def _free_name(base: str, taken: Sequence[Collection]) -> str:
    """A root's folder name as its collection's name, made unique (`docs`, `docs-2`) and valid."""
    base = re.sub(r"[^\w.-]", "_", base)[:60] or "root"
    names = {c.name for c in taken}
    name, n = base, 1
    while name in names:
        n += 1
        name = f"{base}-{n}"
    return name


@dataclass(frozen=True)
class _Given:
    """What was set for each setting: the value of its flag (load_config's keywords, by Flag.key)
    when one was given, else its variable in `env`."""

    env: Mapping[str, str]
    flags: Mapping[str, Any]

    def flag(self, name: str) -> Any:
        """The value given to a flag of setting `name`; None when none was."""
        return next((self.flags[f.key] for f in SETTING[name].flags if self.flags.get(f.key) is not None), None)

    def raw(self, name: str) -> str:
        """Setting `name` as written: its flag's value when given (and not empty), else its variable's, stripped."""
        return self.flag(name) or self.env.get(name, "").strip()


def _parse_watch(given: _Given) -> tuple[bool, bool]:
    """(watch, by polling) from `serve --watch`, `watch --poll` and MINIRAG_WATCH: a boolean word, or `poll`."""
    raw = given.env.get("MINIRAG_WATCH", "").strip().lower()
    polling = raw == "poll" or bool(given.flags.get("poll"))
    flag = given.flags.get("watch")
    if flag is not None:
        return flag, flag and polling
    if raw == "poll":
        return True, True
    try:
        return parse_bool("MINIRAG_WATCH", raw), polling
    except ConfigError:
        raise ConfigError(f"MINIRAG_WATCH must be one of {SETTING['MINIRAG_WATCH'].values}, got {raw!r}") from None


def _number(given: _Given, name: str):
    """The numeric setting `name`, checked against its kind and range in SETTINGS; None if unset."""
    setting = SETTING[name]
    raw = given.raw(name)
    if not raw:
        return None
    low, high, kind = setting.low, setting.high, setting.kind
    if kind is None:
        raise TypeError(f"{name} is not a numeric setting")
    try:
        if not raw.isascii() or "_" in raw:  # int() and float() read any script's digits, and `1_000`
            raise ValueError(raw)
        value = kind(raw)
    except ValueError:
        raise ConfigError(f"{name} must be {setting.accepts}, got {raw!r}") from None
    if value != value or (low is not None and value < low) or (high is not None and value > high):
        raise ConfigError(f"{name} must be {setting.bounds}, got {raw!r}")
    return value


def _globs(given: _Given, name: str) -> Globs:
    """Include or exclude globs from their flag (repeatable, each comma-separated as the variable is)
    or variable (comma-separated, or JSON: the one way to give a glob holding a comma)."""
    flag = given.flag(name)
    if flag:
        patterns, origin = [p for value in flag for p in value.split(",")], SETTING[name].flag or name
    else:
        raw, origin = given.env.get(name, "").strip(), name
        if raw.startswith("["):
            try:
                patterns = json_text.loads(raw)
            except ValueError as exc:
                raise ConfigError(f"{name} must be {SETTING[name].values}: {_reason(exc)}") from None
            if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
                raise ConfigError(f"{name} must be {SETTING[name].values}")
        else:
            patterns = raw.split(",")
    globs = Globs(tuple(p.strip() for p in patterns if p.strip()), origin)
    for pattern in globs.patterns:  # compiled (pathspec imported) only when there are globs
        if (reason := bad_glob(pattern)) is not None:
            raise ConfigError(f"{origin}: {shown(pattern, 80)!r} is not a glob ({reason})")
    return globs


def default_cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("minirag")) / "models"


def load_config(*, env: Mapping[str, str] | None = None, cwd: Path | None = None, **flags: Any) -> Config:
    """Resolve the configuration. `flags` are the settings' flags by Flag.key (`db_path=`,
    `base_dirs=[...]`, `read_only=True`); each one given (not None) wins over its variable in `env`.
    (`token`, serve's, is read where HTTP is served: server.http_token.)"""
    unknown = sorted(set(flags) - {flag.key for flag in setting_flags()})
    if unknown:
        raise TypeError(f"load_config() got flags no setting has: {', '.join(unknown)}")
    env = os.environ if env is None else env
    cwd = cwd or Path.cwd()
    _unknown_settings(env)
    _refuse_undecodable(env)
    _refuse_non_utf8_names()
    given = _Given(env, flags)
    env = _foreign_settings(env, given.flag("BASE_DIR"), given.flag("DB_PATH"))
    given = _Given(env, flags)
    raw_db = given.raw("DB_PATH")
    ro = given.flag("MINIRAG_READ_ONLY")
    if ro is None:
        ro = parse_bool("MINIRAG_READ_ONLY", env.get("MINIRAG_READ_ONLY", ""))
    collections = _parse_roots(env, given.flag("BASE_DIRS"), cwd, rootless=ro and bool(raw_db))
    roots = tuple(c.root for c in collections)

    db = _resolve("DB_PATH", raw_db, cwd) if raw_db else roots[0] / INDEX_DIRNAME / INDEX_FILENAME
    if raw_db.endswith(("/", os.sep)):  # a folder, even one not made yet: the index goes inside it
        db = db / INDEX_FILENAME
    # A root that cannot be listed is a warning for a sync (what it holds stays indexed), but the
    # index inside it cannot be opened at all: that is said here, once, for every command.
    if (_is_dir(db, f"DB_PATH: {db}") if raw_db else
            _is_dir(db, f"the index {db}", f": it is kept inside document root {roots[0]}; fix that folder's "
                    "permissions, or set DB_PATH to keep the index elsewhere")):
        db = db / INDEX_FILENAME

    if not raw_db:
        from minirag.store.home import link_in_own_place

        if (linked := link_in_own_place(db)) is not None:
            raise ConfigError(linked)
    _refuse_special_file(db)

    raw_cache = given.raw("CACHE_DIR")
    cache = _resolve("CACHE_DIR", raw_cache, cwd) if raw_cache else default_cache_dir()
    reach = ": set CACHE_DIR to a folder this user may write, or give it access to that one"
    if not _is_dir(cache, f"the model cache {cache}", reach) and cache.exists():  # (made where it is missing)
        raise ConfigError(f"CACHE_DIR must be {SETTING['CACHE_DIR'].values} (made if missing), got a file: {cache}"
                          if raw_cache else f"the model cache {cache} is a file: move it aside, or set CACHE_DIR")

    # A model named by flag wins over a folder only the environment names, as every flag wins over its
    # variable: an exported MODEL_PATH silently built the index with its model instead.
    raw_model_path = "" if given.flag("MODEL_NAME") and not given.flag("MODEL_PATH") else given.raw("MODEL_PATH")
    local_model = _resolve("MODEL_PATH", raw_model_path, cwd) if raw_model_path else None
    if local_model is not None and not _is_dir(local_model, f"MODEL_PATH: {local_model}"):
        raise ConfigError(f"MODEL_PATH must be {SETTING['MODEL_PATH'].values}: {local_model}")

    raw_litestream = given.raw("MINIRAG_LITESTREAM_CONFIG")
    litestream = _resolve("MINIRAG_LITESTREAM_CONFIG", raw_litestream, cwd) if raw_litestream else None
    if litestream is not None and not litestream.is_file():
        raise ConfigError(f"MINIRAG_LITESTREAM_CONFIG must name Litestream's configuration file: {litestream}")

    grouping = env.get("RAG_GROUPING", "").strip().lower() or None
    if grouping is not None and grouping not in GROUPINGS:
        raise ConfigError(f"RAG_GROUPING must be one of {SETTING['RAG_GROUPING'].values} (or unset), got {grouping!r}")

    if (ocr_error := ocr_settings_error(env)) is not None:
        raise ConfigError(ocr_error)
    max_file_size = _number(given, "MAX_FILE_SIZE")
    budget = _number(given, "CHUNK_TOKEN_BUDGET")
    weight = _number(given, "RAG_HYBRID_WEIGHT")
    response_tokens = _number(given, "MINIRAG_MAX_RESPONSE_TOKENS")
    watching, polling = _parse_watch(given)
    return Config(
        roots=roots,
        collections=collections,
        db_path=db,
        db_path_named=bool(raw_db),
        roots_named=bool(given.flag("BASE_DIRS") or env.get("BASE_DIRS", "").strip() or env.get("BASE_DIR", "").strip()),
        cache_dir=cache,
        model_name=given.raw("MODEL_NAME") or DEFAULT_MODEL,
        model_named=bool(given.raw("MODEL_NAME")),
        model_path=local_model,
        max_file_size=max_file_size if max_file_size is not None else DEFAULT_MAX_FILE_SIZE,
        chunk_token_budget=budget,
        hybrid_weight=weight,
        grouping=grouping,
        max_distance=_number(given, "RAG_MAX_DISTANCE"),
        max_files=_number(given, "RAG_MAX_FILES"),
        allow_private_urls=parse_bool("ALLOW_PRIVATE_URLS", env.get("ALLOW_PRIVATE_URLS", "")),
        read_only=ro,
        watch=watching,
        watch_polling=polling,
        litestream_config=litestream,
        max_response_tokens=response_tokens if response_tokens is not None else DEFAULT_MAX_RESPONSE_TOKENS,
        include=_globs(given, "MINIRAG_INCLUDE"),
        exclude=_globs(given, "MINIRAG_EXCLUDE"),
        gitignore=parse_bool("MINIRAG_GITIGNORE", env.get("MINIRAG_GITIGNORE", "").strip() or "on"),
        **{field: value for field, value in (
            ("convert_memory_mb", _number(given, "MINIRAG_CONVERT_MEMORY_MB")),
            ("convert_cpu_seconds", _number(given, "MINIRAG_CONVERT_CPU_SECONDS")),
            ("convert_timeout", _number(given, "MINIRAG_CONVERT_TIMEOUT"))) if value is not None},
    )


def _flags_of(args) -> dict[str, Any]:
    """The settings' flags in an argparse namespace; one a command lacks (only `serve` has
    --watch) reads as not given."""
    return {flag.key: getattr(args, flag.key, None) for flag in setting_flags()}


def load_config_from(args, env: Mapping[str, str] | None = None) -> Config:
    """load_config with the settings' flags of an argparse namespace (absent or None: not given)."""
    return load_config(env=env, **_flags_of(args))


def read_only_requested(args, env: Mapping[str, str] | None = None) -> bool:
    """Whether read-only mode was asked for, even when the rest of the configuration is broken."""
    given = _Given(os.environ if env is None else env, _flags_of(args))
    if given.flag("MINIRAG_READ_ONLY") is not None:
        return bool(given.flag("MINIRAG_READ_ONLY"))
    try:
        return parse_bool("MINIRAG_READ_ONLY", given.env.get("MINIRAG_READ_ONLY", ""))
    except ConfigError:
        return False


def _reason(exc: ValueError) -> str:
    """What the JSON parser said is wrong, without the position it repeats of a one-line setting."""
    return exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
