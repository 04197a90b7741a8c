"""The explorer's HTML: one document for the served page and the static export, one fragment for a
notebook. Its style and script are the package's own files (static/), inlined, so the page needs
no server for assets and nothing from the internet.

Data is embedded as JSON in a `<script type="application/json">`, with `<`, `>` and `&` written as
\\u escapes so no text inside (a kernel's `</script>`) can end that element early.
"""
from __future__ import annotations

import json
import secrets
from functools import lru_cache
from importlib import resources

PYGMENTS_STYLE = "default"


@lru_cache(maxsize=None)
def _asset(name: str) -> str:
    return resources.files("playground.web").joinpath("static").joinpath(name).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def style() -> str:
    """The explorer's own CSS and pygments' token colours, every rule under .pg-explorer."""
    from pygments.formatters import HtmlFormatter
    tokens = HtmlFormatter(style=PYGMENTS_STYLE).get_style_defs(".pg-explorer .tok")
    return _asset("explorer.css") + "\n" + tokens


def embed_json(data) -> str:
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def fragment(config: dict) -> str:
    """A self-contained <div> that mounts the explorer on itself: for a page body or a notebook cell. The page
    learns the stages from the stage table (view.stage_menu), so a new stage needs no change to the script."""
    from .view import stage_menu
    config = {**config, "stages": stage_menu()}
    root = f"pg-{secrets.token_hex(6)}"
    return (f'<div class="pg-explorer" id="{root}"></div>\n'
            f"<style>{style()}</style>\n"
            f'<script type="application/json" id="{root}-config">{embed_json(config)}</script>\n'
            f"<script>{_asset('explorer.js')}\n"
            f'PlaygroundExplorer.mount(document.getElementById("{root}"), '
            f'JSON.parse(document.getElementById("{root}-config").textContent));</script>\n')


def document(config: dict, title: str) -> str:
    from html import escape
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><link rel=\"icon\" href=\"data:,\">"
            f"<title>{escape(title)}</title></head>\n<body class=\"pg-body\">\n{fragment(config)}</body></html>\n")


def served_page(token: str) -> str:
    return document({"mode": "server", "token": token}, "playground explorer")


def static_page(data: dict) -> str:
    return document({"mode": "static", "data": data}, f"{data['kernel']} on {data['target']}: playground")
