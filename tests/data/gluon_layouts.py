"""A Gluon kernel whose layout is its caller's choice, passed as a constexpr (as Triton's Gluon tutorials
parameterise a copy over its layout): the same source, one binary per layout."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def copy_in_layout(in_ptr, out_ptr, n, XBLOCK: gl.constexpr, layout: gl.constexpr):
    offs = gl.program_id(0) * XBLOCK + gl.arange(0, XBLOCK, layout=layout)
    mask = offs < n
    gl.store(out_ptr + offs, gl.load(in_ptr + offs, mask=mask), mask=mask)
