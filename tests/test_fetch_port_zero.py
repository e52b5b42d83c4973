"""A URL naming port 0 (`http://host:0/`) is refused: port 0 is no port a server listens on, and it
was fetched from port 80 (the scheme's default) while its Host header said `:0`."""

from __future__ import annotations

import pytest

from minirag.ingest.fetch import FetchError, fetch_url


@pytest.mark.parametrize("spelling", ["http://public.test:0/page", "https://public.test:00/", "http://[2001:db8::1]:0/"])
def test_a_url_naming_port_zero_is_refused_before_any_connection(spelling):
    with pytest.raises(FetchError, match="port 0"):
        fetch_url(spelling, timeout=5)
