"""What the MCP server's tools share, made before the MCP SDK is imported.

The SDK's import takes most of a server's start; an HTTP server's model loads on
a thread of its own meanwhile (App.load_model_early), so this module stays free
of the SDK. A stdio server loads it for the first request that needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from minirag.app import App
from minirag.config import (
    DEFAULT_MAX_RESPONSE_TOKENS,
    Config,
    ConfigError,
    load_config_from,
    read_only_requested,
)


@dataclass
class ServerState:
    """What the tools share: the App, or why the configuration is broken."""

    config: Config | None
    config_error: str | None = None
    read_only: bool = False
    _app: App | None = None

    @classmethod
    def from_config(cls, config: Config, app: App | None = None) -> ServerState:
        return cls(config=config, read_only=config.read_only, _app=app or App(config, serving=True))

    @property
    def app(self) -> App:
        if self._app is None:
            raise ConfigError(f"configuration error: {self.config_error}; fix it and restart the server")
        return self._app

    @property
    def budget(self) -> int:
        """The most tokens one tool result may cost (MINIRAG_MAX_RESPONSE_TOKENS)."""
        return self.config.max_response_tokens if self.config is not None else DEFAULT_MAX_RESPONSE_TOKENS

    def load_model_early(self) -> None:
        if self._app is not None:
            self._app.load_model_early()

    def close(self) -> None:
        if self._app is not None:
            self._app.close()


def load_state(args, env: Mapping[str, str] | None = None) -> ServerState:
    """The configuration from argparse args and the environment, kept even when broken."""
    try:
        config = load_config_from(args, env)
    except ConfigError as exc:
        return ServerState(config=None, config_error=str(exc), read_only=read_only_requested(args, env))
    return ServerState.from_config(config)
