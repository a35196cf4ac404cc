#!/usr/bin/python3
"""Independent numpy calculation of calibration thresholds (technical reference 7.4), for the tests of
tests/quantize/calib_*_test.cpp.

  calib_oracle.py hist HIST.npy ABSMAX        -> thresholds of a |x| histogram, one "method value" per line
  calib_oracle.py clampabs DIR N BINS         -> writes N samples DIR/sNN.npy (x: float32[1,32,32,4], seeded
                                                 Laplace data with outliers) and prints, per tensor of the
                                                 model x -> abs "magnitude" -> clamp(-2, 3) "clip", the line
                                                 "name min max method=threshold ..." (numpy's own forward pass)
  calib_oracle.py images DIR                  -> writes test images with PIL and the preprocessed arrays numpy
                                                 expects (exp_*.npy; see the function images())
  calib_oracle.py bc DIR TABLE                -> bias correction of calib_cli_test.cpp's conv -> relu -> conv model
                                                 on the samples DIR/*.npy with TABLE's thresholds: the corrected
                                                 biases "b1 ..." and "b2 ..."
  calib_oracle.py aciq BITS                   -> optimal clipping alpha/sigma (Gaussian) and alpha/b (Laplace)
"""
import glob
import math
import sys

import numpy as np


def kld(hist, absmax, levels=128, stride=128):
    """Chapter 7.4.1 with TensorRT's quantize/expand and smoothing (eps 1e-4), cut positions stride..bins."""
    hist = hist.astype(np.float64)
    bins = len(hist)

    def smooth(p, eps=1e-4):
        zero = p == 0
        nz = (~zero).sum()
        if nz == 0:
            return None
        return p + eps * zero - (eps * zero.sum() / nz) * (~zero)

    best_kl, best_cut = math.inf, bins
    for cut in range(stride, bins + 1, stride):
        p = hist[:cut].copy()
        p[cut - 1] += hist[cut:].sum()
        merged = cut // levels
        sums = hist[:cut].reshape(levels, merged).sum(axis=1)
        nonzero = (p != 0).reshape(levels, merged)
        counts = nonzero.sum(axis=1)
        q = np.where(nonzero, (sums / np.maximum(counts, 1))[:, None], 0.0).reshape(cut)
        p, q = smooth(p), smooth(q)
        if p is None or q is None:
            continue
        p, q = p / p.sum(), q / q.sum()
        mask = p > 0
        kl = float(np.sum(p[mask] * np.log(p[mask] / q[mask])))
        if kl < best_kl:
            best_kl, best_cut = kl, cut
    return min((best_cut + 0.5) * absmax / bins, absmax)


def percentile(hist, absmax, fraction=0.9999):
    cdf = np.cumsum(hist) / hist.sum()
    idx = int(np.searchsorted(cdf, fraction))  # first bin whose cumulative fraction reaches `fraction`
    return min((idx + 1) * absmax / len(hist), absmax)


def octav(hist, absmax, bits=8, eps=1e-5):
    width = absmax / len(hist)
    x = (np.arange(len(hist)) + 0.5) * width
    s = absmax
    for _ in range(20):
        clip = x > s
        nxt = np.sum(x * hist * clip) / ((4.0 ** -bits) / 3 * np.sum(hist * ~clip) + np.sum(hist * clip))
        done = abs(nxt - s) < eps
        s = nxt
        if done:
            break
    return min(s, absmax)


def mse(hist, absmax, bits=8, start=128):
    width = absmax / len(hist)
    centers = (np.arange(len(hist)) + 0.5) * width
    levels = 2 ** (bits - 1) - 1
    best, best_amax = math.inf, absmax
    for edge in range(start, len(hist) + 1):
        amax = edge * width
        q = np.minimum(np.round(centers * levels / amax), levels) * amax / levels
        err = np.sum(hist * (centers - q) ** 2)
        if err < best:
            best, best_amax = err, amax
    return best_amax


def aciq_alpha(bits):
    """Grid minimization of the ACIQ expected-MSE closed forms (Banner et al.) for sigma = b = 1."""
    a = np.linspace(0.01, 30, 3_000_001)
    from scipy.special import erfc
    noise = a ** 2 / (3 * 4.0 ** bits)
    gauss = (a ** 2 + 1) * erfc(a / math.sqrt(2)) - math.sqrt(2 / math.pi) * a * np.exp(-a ** 2 / 2) + noise
    laplace = 2 * np.exp(-a) + noise
    return a[gauss.argmin()], a[laplace.argmin()]


def bilinear_half_pixel(img, oh, ow):
    """OpenCV's INTER_LINEAR: sample at ((o + 0.5) * in / out - 0.5), clamped to the edges."""
    ih, iw = img.shape[:2]

    def axis(o, n, m):
        src = np.clip((np.arange(o) + 0.5) * n / o - 0.5, 0, n - 1)
        lo = np.floor(src).astype(int)
        hi = np.minimum(lo + 1, n - 1)
        return lo, hi, src - lo

    y0, y1, fy = axis(oh, ih, 0)
    x0, x1, fx = axis(ow, iw, 0)
    img = img.astype(np.float64)
    top = img[y0][:, x0] * (1 - fx)[None, :, None] + img[y0][:, x1] * fx[None, :, None]
    bot = img[y1][:, x0] * (1 - fx)[None, :, None] + img[y1][:, x1] * fx[None, :, None]
    return top * (1 - fy)[:, None, None] + bot * fy[:, None, None]


def images(out):
    from PIL import Image
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 256, (5, 6, 3), dtype=np.uint8)   # H=5, W=6
    Image.fromarray(rgb).save(f"{out}/img.png")
    small = rng.integers(0, 256, (3, 4, 3), dtype=np.uint8)
    Image.fromarray(small).save(f"{out}/small.png")
    wide = rng.integers(0, 256, (4, 8, 3), dtype=np.uint8)
    Image.fromarray(wide).save(f"{out}/wide.png")
    f = rgb.astype(np.float64)
    mean, scale = np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.25, 2.0])
    # rgb, nchw, (x - mean) * scale
    np.save(f"{out}/exp_rgb_nchw.npy", ((f - mean) * scale).transpose(2, 0, 1)[None].astype(np.float32))
    # bgr (the default), nhwc, batch 2 (the image repeated)
    np.save(f"{out}/exp_bgr_nhwc.npy", np.stack([f[:, :, ::-1]] * 2).astype(np.float32))
    # gray: ITU-R BT.601 luma as OpenCV's BGR2GRAY
    gray = np.round(f @ np.array([0.299, 0.587, 0.114]))
    np.save(f"{out}/exp_gray.npy", gray[None, None].astype(np.float32))
    # resize 3x4 -> 6x8 bilinear, rgb nchw
    np.save(f"{out}/exp_resize.npy", bilinear_half_pixel(small, 6, 8).transpose(2, 0, 1)[None].astype(np.float32))
    # keep aspect ratio: 4x8 into 8x8 -> ratio 1, rows 2..5, zero padding above and below; rgb nhwc
    keep = np.zeros((8, 8, 3))
    keep[2:6] = wide
    np.save(f"{out}/exp_keep.npy", keep[None].astype(np.float32))
    # resize dims = the image's 5x6, centre crop to 3x4: rows 1..3, cols 1..4; rgb nchw
    np.save(f"{out}/exp_crop.npy", f[1:4, 1:5].transpose(2, 0, 1)[None].astype(np.float32))


def fake_quant(x, threshold):
    s = threshold / 127.0
    return np.clip(np.round(x / s), -128, 127) * s


def fake_quant_weights(w):
    """Per output channel (axis 0 of TOSA's conv2d weights [OC, KH, KW, IC]), int8 symmetric."""
    r = np.abs(w).reshape(w.shape[0], -1).max(axis=1).reshape(-1, 1, 1, 1)
    s = r / 127.0
    return np.clip(np.round(w / s), -127, 127) * s


def bias_correction(data, table):
    w1 = np.array([[8.0, -4.0], [0.05, 0.1], [1.0, -0.5]])    # 1x1 convs as matrices [OC, IC]
    b1 = np.array([0.5, 0.01, -0.25])
    w2 = np.array([[0.1, 2.0, -1.0], [-0.2, 3.0, 0.5]])
    b2 = np.array([0.0, 0.1])
    th = {}
    for line in open(table):
        if not line.startswith("#") and line.strip():
            name, t, _, _ = line.split()
            th[name] = float(t)
    q1 = fake_quant_weights(w1.reshape(3, 1, 1, 2)).reshape(3, 2)
    q2 = fake_quant_weights(w2.reshape(2, 1, 1, 3)).reshape(2, 3)
    d1, d2, files = np.zeros(3), np.zeros(2), sorted(glob.glob(data + "/*.npy"))[:30]
    for f in files:
        x = np.load(f).astype(np.float64).reshape(-1, 2)
        c1 = x @ w1.T + b1                       # float conv1 on the float input
        d1 += (c1 - (fake_quant(x, th["x"]) @ q1.T + b1)).mean(axis=0)
        r = np.maximum(c1, 0)                    # float relu: conv2's float input
        c2 = r @ w2.T + b2
        d2 += (c2 - (fake_quant(r, th["relu"]) @ q2.T + b2)).mean(axis=0)
    print("b1", " ".join(repr(float(v)) for v in b1 + d1 / len(files)))
    print("b2", " ".join(repr(float(v)) for v in b2 + d2 / len(files)))


def auto_tune(name, t0, absmax, tensors, tune=3):
    """7.4.2 on the abs/clamp model with the first `tune` samples: 20 candidates from t0 to absmax; the consumer
    (magnitude for x, clip for magnitude) runs on the fake-quantized input (float32 as the graph); the candidate with
    the least summed Euclidean distance to the consumer's float output wins. The output has no consumer."""
    consumer = {"x": (np.abs, "magnitude"), "magnitude": (lambda v: np.clip(v, -2.0, 3.0), "clip")}
    if name not in consumer or not absmax > t0:
        return t0
    fn, out = consumer[name]
    cands = [t0 + (absmax - t0) * k / 19 for k in range(20)]
    dist = np.zeros(20)
    for s in range(tune):
        x = tensors[name][s].astype(np.float64)
        for k, t in enumerate(cands):
            q = fake_quant(x, t).astype(np.float32)
            dist[k] += np.sqrt(np.sum((fn(q).astype(np.float64) - tensors[out][s].astype(np.float64)) ** 2))
    return cands[int(np.argmin(dist))]


def hist_thresholds(hist, absmax):
    return {"kld": kld(hist, absmax), "percentile9999": percentile(hist, absmax), "octav": octav(hist, absmax),
            "mse": mse(hist, absmax), "minmax": absmax}


def main():
    if sys.argv[1] == "hist":
        hist = np.load(sys.argv[2]).astype(np.int64)
        for k, v in hist_thresholds(hist, float(sys.argv[3])).items():
            print(k, repr(float(v)))
    elif sys.argv[1] == "images":
        images(sys.argv[2])
    elif sys.argv[1] == "bc":
        bias_correction(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "aciq":
        g, l = aciq_alpha(int(sys.argv[2]))
        print("gauss", repr(float(g)))
        print("laplace", repr(float(l)))
    elif sys.argv[1] == "clampabs":
        out, n, bins = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        rng = np.random.default_rng(7)
        tensors = {"x": [], "clip": [], "magnitude": []}
        for k in range(n):
            x = rng.laplace(0.3, 0.5, size=(1, 32, 32, 4)).astype(np.float32)
            x.flat[k] = 9.0 - k  # an outlier per sample, the largest first (so the tune samples see them)
            np.save(f"{out}/s{k:02d}.npy", x)
            m = np.abs(x)
            tensors["x"].append(x)
            tensors["magnitude"].append(m)
            tensors["clip"].append(np.clip(m, -2.0, 3.0))
        ga, la = aciq_alpha(8)
        all_th = {}
        for name, parts in tensors.items():
            xs = np.concatenate([t.astype(np.float64).ravel() for t in parts])
            lo, hi = float(xs.min()), float(xs.max())
            absmax = max(abs(lo), abs(hi))
            hist, _ = np.histogram(np.abs(xs), bins=bins, range=(0, absmax))
            th = hist_thresholds(hist, absmax)
            mean = xs.mean()
            th["aciq_gauss"] = min(abs(mean) + ga * xs.std(), absmax)
            th["aciq_laplace"] = min(abs(mean) + la * np.abs(xs - mean).mean(), absmax)
            th["kld_tune3"] = auto_tune(name, th["kld"], absmax, tensors)
            all_th[name] = th
            print(name, repr(lo), repr(hi), " ".join(f"{k}={float(v)!r}" for k, v in th.items()))
        # 7.5.3: mean output cosine of the fake-quantized model (every tensor fake-quantized with its
        # threshold, ops in float32) against the float model, per candidate method of the search.
        for method in ("kld_tune3", "octav", "minmax", "percentile9999"):
            t = {name: all_th[name][method] for name in all_th}
            cos = []
            for s in range(min(n, 10)):
                x = fake_quant(tensors["x"][s].astype(np.float64), t["x"]).astype(np.float32)
                m = fake_quant(np.abs(x).astype(np.float64), t["magnitude"]).astype(np.float32)
                c = fake_quant(np.clip(m, -2.0, 3.0).astype(np.float64), t["clip"]).astype(np.float32)
                a, b = c.astype(np.float64).ravel(), tensors["clip"][s].astype(np.float64).ravel()
                cos.append(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
            print("search", method, repr(float(np.mean(cos))))

if __name__ == "__main__":
    main()
