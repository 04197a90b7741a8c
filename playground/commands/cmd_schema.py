"""playground schema: the JSON Schema of a command's --json output."""
from __future__ import annotations

import click


@click.command("schema")
@click.argument("command", required=False)
def command(command):
    """The JSON Schema of COMMAND's --json output (every field described); without COMMAND, the list."""
    import json

    from .. import report
    if command is None:
        return click.echo("\n".join(report.commands_with_schema()))
    click.echo(json.dumps(report.schema(command), indent=2, ensure_ascii=False))
