#!/usr/bin/python3
"""A small int8 network built op by op with tosakit.lang (BMLang's operator API from Python), saved as MLIR
TOSA, loaded back and run with tosakit.Session, and checked against numpy evaluations of BMLang's formulas
and with tosakit.check. The same network as examples/cpp/quantized_net.cpp. Run by ctest.

    x (i8, 1x2x6x6) -> conv 3x3, 4 channels, LowPrecisionSymmetric, scale 1/64
      -> active RELU -> pool_int 2x2 average (round half away from zero)
      -> reshape 1x36 -> matrix_mul 36x3, HighPrecisionSymmetric, scale 3/256 -> logits (i8, 1x3)
      -> dequant_int_to_fp32 (scale 0.1) -> softmax -> prob (fp32, 1x3)

    /usr/bin/python3 examples/python/quantized_network.py [OUT_DIR]
"""
import pathlib
import sys
import tempfile

import numpy as np

import tosakit
from tosakit import lang


def round_shift(x, s):
    """BMLang's rounding right shift: ((x >> (s - 1)) + 1) >> 1."""
    return ((x >> (s - 1)) + 1) >> 1 if s else x


def round_div(a, b):
    """a / b rounded half away from zero (integers)."""
    return np.where(a >= 0, (2 * a + b) // (2 * b), -((-2 * a + b) // (2 * b)))


def expected_logits(x, w, b, fc):
    """The network in numpy, from BMLang's formulas (int64 throughout, saturation where BMLang saturates)."""
    xp = np.pad(x[0].astype(np.int64), ((0, 0), (1, 1), (1, 1)))
    acc = np.zeros((4, 6, 6), dtype=np.int64) + b.astype(np.int64)[:, None, None]
    for ky in range(3):
        for kx in range(3):
            acc += np.einsum("chw,oc->ohw", xp[:, ky:ky + 6, kx:kx + 6], w[:, :, ky, kx].astype(np.int64))
    # LowPrecisionSymmetric with scale 1/64 = 2^-6: rounding right shift by 6, saturate to i8; then RELU.
    conv = np.maximum(np.clip(round_shift(acc, 6), -128, 127), 0)
    pooled = round_div(conv.reshape(4, 3, 2, 3, 2).sum(axis=(2, 4)), 4).reshape(36)
    # HighPrecisionSymmetric with scale 3/256: rshift ceil(log2(256/3)) = 7 to i16, then round(res * 1.5).
    res = np.clip(round_shift(pooled @ fc.astype(np.int64), 7), -32768, 32767)
    return np.clip(round_div(res * 3, 2), -128, 127).reshape(1, 3)


def main():
    out_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="tosakit_example_"))
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    x = rng.integers(-128, 128, size=(1, 2, 6, 6), dtype=np.int8)
    w = rng.integers(-40, 41, size=(4, 2, 3, 3), dtype=np.int8)
    b = rng.integers(-300, 301, size=(4,), dtype=np.int16)
    fc = rng.integers(-90, 91, size=(36, 3), dtype=np.int8)

    # Build the network op by op.
    g = lang.Graph()
    inp = g.input("x", "i8", [1, 2, 6, 6])
    conv_param = lang.ConvParam(pad_h_t=1, pad_h_b=1, pad_w_l=1, pad_w_r=1, scale=1 / 64,
                                mode=lang.LowPrecisionSymmetric)
    y = g.conv(inp, g.coeff(w, "conv_w"), g.coeff(b, "conv_b"), conv_param, "i8")
    y = g.active(y, lang.ACTIVE_RELU)
    y = g.pool_int(y, lang.PoolIntParam(kernel_h=2, kernel_w=2, stride_h=2, stride_w=2, is_avg_pooling=True,
                                        quant_mode=1))
    y = g.reshape(y, [1, -1])
    logits = g.matrix_mul(y, g.coeff(fc, "fc_w"), lang.NONE,
                          lang.MatrixMulParam(scale=3 / 256, mode=lang.HighPrecisionSymmetric), "i8")
    prob = g.softmax(g.dequant_int_to_fp32(logits, lang.DequantInt32Param(scale_val=0.1)), 1)
    g.output(logits, "logits")
    g.output(prob, "prob")

    # Compile for the integer and float profiles, save, load back, run.
    g.compile(profiles=["pro_int", "pro_fp"], extensions=[])
    model_path = out_dir / "quantized_network.mlir"
    g.save(model_path)
    session = tosakit.Session(model_path)
    out = session.run({"x": x})

    # Check: the logits bit for bit against numpy; the probabilities against numpy's softmax of the
    # dequantized logits (fp32 rounding), and by tosakit.check's compliance rules against the fp64 reference.
    want = expected_logits(x, w, b, fc)
    assert out["logits"].dtype == np.int8 and np.array_equal(out["logits"], want), (out["logits"], want)
    z = want.astype(np.float64) * np.float32(0.1)
    softmax = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    np.testing.assert_allclose(out["prob"], softmax, rtol=1e-5)
    assert np.array_equal(g.run({"x": x})["logits"], out["logits"])  # the graph runs the same directly
    if hasattr(tosakit, "check"):
        report = tosakit.check(model_path, result=out, inputs={"x": x})
        assert report.compliant, report.to_text()
    print(f"{model_path}: logits {out['logits'].tolist()} (as numpy's BMLang formulas), prob {out['prob'].round(4).tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
