"""playground serve: the explorer, a local web page of a kernel's stages, recompiled as you edit."""
from __future__ import annotations

import click

from . import options
from .common import blocking, kernel_args, warn


@click.command("serve")
@click.argument("kernel", default="gemm", required=False)
@options.target
@options.kernel_args
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; anything but 127.0.0.1 lets other machines run code here (warned).")
@click.option("--port", default=0, type=click.IntRange(0, 65535), help="Port to listen on; 0 (the default) picks a free one.")
def command(kernel, target, host, port):
    """Open KERNEL (a name, path.py[:name], or a `run --trace` file) in the explorer: a local web page with
    the source beside any stage, lines linked by colour, recompiled as you edit.

    \b
    playground serve gemm                      # then open the URL it prints
    playground serve ./my_kernels.py:my_kernel --target sm_80
    playground serve liger_kernel.ops.rms_norm:_rms_norm_forward_kernel --args '...'   # an installed module
    playground serve trace.json                # a `playground run --trace` file: its launches
    """
    import secrets
    import signal

    from ..web import server
    from ..web.workspace import Workspace
    try:
        import uvicorn
    except ImportError:
        from ..errors import UserError
        raise UserError("serve needs uvicorn and starlette: pip install -e .") from None
    args = kernel_args()          # read here: the context is this thread's, and blocking runs in another
    workspace = blocking(f"opening {kernel}", None, lambda: Workspace(kernel, target, args))
    if host not in ("127.0.0.1", "localhost", "::1"):
        warn(f"--host {host}: the page runs Python in this process; anyone who can reach {host} and has "
             f"the URL's token can run code as you")
    try:
        listening = server.listen(host, port)   # bound before the URL is printed: it answers at once
    except BaseException:
        workspace.close()
        raise
    port = listening.getsockname()[1]
    token = secrets.token_urlsafe(24)
    app = server.create_app(workspace, token, server.hosts_for(host, port))
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    click.echo(f"playground explorer for {workspace.ref} on {workspace.default_target}:", err=True)
    click.echo(f"http://{shown}:{port}/?token={token}")
    click.echo("(Ctrl-C stops it; edits compile from a scratch copy, Save writes your file)", err=True)
    # uvicorn answers Ctrl-C and SIGTERM itself (a graceful stop, then a second one forces it) and
    # re-raises the signal when done: quiet handlers meanwhile, so that ending it is not an error.
    previous = {s: signal.signal(s, lambda *_: None) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off",
                                      timeout_graceful_shutdown=2)).run(sockets=[listening])
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        workspace.close()
    click.echo("playground explorer stopped", err=True)
