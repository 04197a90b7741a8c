"""playground list: the kernels in kernels/."""
from __future__ import annotations

import click

from . import options


@click.command("list")
@options.as_json
def command(as_json):
    """List the kernels in kernels/."""
    from .. import report, text
    from ..core import registry
    specs = registry.load_all()
    if as_json:
        return click.echo(report.to_json([{"name": s.name, "description": s.description, "dtypes": list(s.dtypes),
                                           "default_shape": s.default_shape, "file": s.source_path} for s in specs]))
    click.echo("\n".join(text.table(["kernel", "what it computes"], [[s.name, s.description] for s in specs])))
