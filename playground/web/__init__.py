"""The explorer: a page with the Python source beside any stage, lines linked by colour.

view (a Compiled as the page's data, the mapping `--interleave` uses), page (the HTML, with the
package's own static/explorer.js and .css inlined), export (`compile --html`, a notebook's
`_repr_html_`), workspace (what `serve` has open: the user's file, scratch copies of edits, save),
server (the Starlette app and its guards: token, host, origin).
"""
from ..artefact import views


def _notebook_html(compiled) -> str:
    from . import export      # on first display: importing the package should not cost the page's imports
    return export.notebook_html(compiled)


views.register_notebook(_notebook_html)
