"""Fetched pages that markitdown has a converter for by site: it decides from the URL.

Wikipedia (the article body, without the site's menus and language list),
YouTube (the video's title, keywords, runtime and description) and Bing result
pages each get a converter of their own in markitdown, which applies when the
page's URL is on that site and its type is HTML. We keep fetching ourselves
(fetch.py: every hop checked, size and time capped, the address pinned) and hand
markitdown the bytes with the URL they finally came from.

One exception: with the optional youtube-transcript-api installed, markitdown's
YouTube converter would fetch the transcript itself, outside the fetcher's
guard; then YouTube pages go to our own HTML converter instead.
"""

from __future__ import annotations

import io
import logging
from dataclasses import replace

from minirag._compat.markitdown import youtube_fetches_transcripts
from minirag.ingest.quiet import converting, stdout_captured
from minirag.ingest.text_decoding import decode_text, html_declared_charset

log = logging.getLogger(__name__)


def _site_converters() -> list:
    from markitdown.converters import BingSerpConverter, WikipediaConverter, YouTubeConverter

    converters = [WikipediaConverter(), BingSerpConverter()]
    if not youtube_fetches_transcripts():
        converters.append(YouTubeConverter())
    return converters


def convert_site_page(body: bytes, *, mimetype: str, charset: str | None, url: str):
    """A Converted when one of markitdown's site converters accepts ``url``, else None. The converter
    gets the text decode_text reads (the HTTP label ranking over the meta tag), as UTF-8: it would
    decode the bytes by the HTTP label alone (a UTF-16 page without a mark, a wrong label)."""
    from markitdown import StreamInfo

    from minirag.ingest.converted import Converted

    info = StreamInfo(mimetype=mimetype or None, charset=charset, url=url)
    for converter in _site_converters():
        if not converter.accepts(io.BytesIO(body), info):
            continue
        name = type(converter).__name__
        text, warnings = decode_text(body, url, declared=(charset, html_declared_charset(body)))
        read = replace(info, charset="utf-8")
        try:
            with converting(url), stdout_captured(url):
                result = converter.convert(io.BytesIO(text.encode("utf-8")), read)
        except Exception as exc:  # noqa: BLE001 - fall back to the generic HTML converter
            log.info("%s: %s failed (%s: %s); converting it as plain HTML", url, name, type(exc).__name__, exc)
            return None
        if not (result.markdown or "").strip():
            return None
        return Converted(markdown=result.markdown, metadata_title=(result.title or "").strip() or None,
                         warnings=warnings)
    return None
