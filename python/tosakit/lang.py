"""tosakit.lang: build networks op by op with BMLang's operator API and fixed-point semantics, lowered to
TOSA 1.0 as they are built (include/tosakit/lang.h, one to one; docs/API.md).

    from tosakit import lang
    g = lang.Graph()
    x = g.input("x", "i8", [1, 3, 8, 8])
    y = g.conv(x, g.coeff(w), lang.NONE, lang.ConvParam(scale=1 / 64, pad_h_t=1, pad_h_b=1, pad_w_l=1, pad_w_r=1))
    g.output(y, "y")
    g.compile()
    g.save("net.mlir")
    out = g.run({"x": x_array})

Operators never raise: one that cannot be built records an error (``g.error``) and returns an error Var;
``compile``/``save``/``run``/``module`` raise it as a tosakit.Error.
"""
from ._tosakit.lang import *  # noqa: F401,F403
from ._tosakit.lang import NONE, Graph, Var  # noqa: F401
