#!/usr/bin/python3
"""Scores for the PaddleOCR quantization accuracy tests (tests/scripts/ppocr_quantize.sh), in numpy.

    ppocr_eval.py cls-accuracy OUT.npz LABELS.npy          -> top-1 accuracy in percent
    ppocr_eval.py cosine FLOAT.npz QUANT.npz               -> "mean min" per-sample output cosine similarity
    ppocr_eval.py rec FLOAT.npz QUANT.npz DICT.txt TEXTS.txt [--show N]
                                                           -> "same float_exact quant_exact" in percent

Each .npz holds one output (the graph's only result) with the batch first. Recognizer outputs are N x T x C
class probabilities; greedy CTC decoding as PaddleOCR's CTCLabelDecode: argmax per time step, repeats merged,
the blank (class 0) dropped; class i (1 <= i <= len(dict)) is line i of ppocr_keys_v1.txt and class
len(dict) + 1 the space that `use_space_char` appends.
"""
import sys

import numpy as np


def only_output(path):
    f = np.load(path)
    if len(f.files) != 1:
        sys.exit("ppocr_eval: %s: expected one output, found %s" % (path, f.files))
    return f[f.files[0]].astype(np.float64)


def cosine_per_sample(a, b):
    a = a.reshape(a.shape[0], -1)
    b = b.reshape(b.shape[0], -1)
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def ctc_greedy(probs, chars):
    texts = []
    for seq in probs.argmax(-1):
        keep = np.ones(len(seq), dtype=bool)
        keep[1:] = seq[1:] != seq[:-1]
        texts.append("".join(chars[i] for i in seq[keep] if i != 0))
    return texts


def main(argv):
    cmd = argv[1]
    if cmd == "cls-accuracy":
        p = only_output(argv[2])
        labels = np.load(argv[3])
        print("%.4f" % (100.0 * (p.argmax(1) == labels).mean()))
    elif cmd == "cosine":
        c = cosine_per_sample(only_output(argv[2]), only_output(argv[3]))
        print("%.6f %.6f" % (c.mean(), c.min()))
    elif cmd == "rec":
        f, q = only_output(argv[2]), only_output(argv[3])
        with open(argv[4], encoding="utf-8") as fh:
            dictionary = fh.read().splitlines()
        chars = [""] + dictionary + [" "]
        if f.shape[-1] != len(chars):
            sys.exit("ppocr_eval: %d classes, but blank + %d dictionary entries + space = %d"
                     % (f.shape[-1], len(dictionary), len(chars)))
        with open(argv[5], encoding="utf-8") as fh:
            truth = fh.read().splitlines()
        tf, tq = ctc_greedy(f, chars), ctc_greedy(q, chars)
        show = int(argv[7]) if len(argv) > 7 and argv[6] == "--show" else 0
        for i in range(len(tf)):
            if tf[i] != tq[i] and show > 0:
                sys.stderr.write("differs: truth %r float %r quantized %r\n" % (truth[i], tf[i], tq[i]))
                show -= 1
        n = len(tf)
        same = 100.0 * sum(a == b for a, b in zip(tf, tq)) / n
        float_exact = 100.0 * sum(a == t for a, t in zip(tf, truth)) / n
        quant_exact = 100.0 * sum(a == t for a, t in zip(tq, truth)) / n
        print("%.4f %.4f %.4f" % (same, float_exact, quant_exact))
    else:
        sys.exit("ppocr_eval: unknown command %s" % cmd)


if __name__ == "__main__":
    main(sys.argv)
