"""uvicorn's internals that the HTTP guards (http_guard.py) subclass and read.

Written against uvicorn 0.31.1 to 0.54. uvicorn accepts a protocol class for
`http=`, but its h11 protocol lives in an internal module, and what a connection is
doing is only in that protocol's attributes: the h11 connection (`conn`), the
server's set of open connections (`connections`), reading paused by flow control
(`flow.read_paused`) and the request cycle (`cycle`: its body so far, a
`100 Continue` awaited). The subclass also uses the protocol's `loop` and
`transport`, which it sets when it is made and when its connection is.
"""

from __future__ import annotations

from uvicorn.protocols.http.h11_impl import H11Protocol

DISTRIBUTION = "uvicorn"
SUPPORTED = ("0.31.1", "0.55")

__all__ = ["H11Protocol", "body_on_hold", "body_so_far", "open_connections", "peer_state"]


def open_connections(protocol: H11Protocol) -> set:
    """The server's open connections (protocols), `protocol` included once it is made."""
    return protocol.connections


def peer_state(protocol: H11Protocol):
    """h11's state of the client's side: `h11.IDLE` until a request's headers are parsed,
    `h11.SEND_BODY` while its body comes."""
    return protocol.conn.their_state


def body_on_hold(protocol: H11Protocol) -> bool:
    """Whether the request body is not the client's to send now: reading paused, or a
    `100 Continue` awaited."""
    cycle = getattr(protocol, "cycle", None)
    return protocol.flow.read_paused or bool(getattr(cycle, "waiting_for_100_continue", False))


def body_so_far(protocol: H11Protocol) -> int:
    """Bytes of the current request's body received so far (what came with its headers)."""
    return len(getattr(getattr(protocol, "cycle", None), "body", b""))
