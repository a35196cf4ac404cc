#!/usr/bin/python3
"""Text lines rendered with Debian's DejaVu fonts (PIL), preprocessed as PaddleOCR does, for the PaddleOCR
quantization accuracy tests (tests/scripts/ppocr_quantize.sh).

    ppocr_lines.py cls OUT_DIR --calib N --eval M [--seed S] [--width 192]
    ppocr_lines.py rec OUT_DIR --calib N --eval M [--seed S] [--width 320]

Writes OUT_DIR/calib/NNNN.npy (1x3x48xW, one sample per file, what `tosakit calibrate --dataset` reads),
the evaluation lines the same way in OUT_DIR/eval/NNNN.npy (for `tosakit qtable --dataset`) and as one batch
OUT_DIR/eval.npz (x: Mx3x48xW, keyed by the graph input `x`), OUT_DIR/eval_labels.npy (cls: 0 = upright,
1 = turned 180 degrees) and OUT_DIR/eval_texts.txt (the rendered strings, one a line).
The calibration and evaluation sets come from separate generators (seeds S and S + 1), so they are disjoint.

Rendering: a fixed-seed choice of words, numbers, dates and prices (ASCII letters, digits and punctuation the
PaddleOCR dictionary ppocr_keys_v1.txt covers), one of several DejaVu faces at 22..40 px, dark text on a light
background (random grey levels, slight colour tint), a few pixels of margin. cls: every second line turned by
180 degrees (label 1), the order shuffled.

Preprocessing is PaddleOCR's `resize_norm_img` (tools/infer/predict_cls.py and predict_rec.py): the image as
OpenCV reads it (BGR, uint8), resized with bilinear interpolation to height 48 keeping the aspect ratio
(width ceil(48 w / h), at most W), scaled to [-1, 1] by (x / 255 - 0.5) / 0.5, laid out CHW and padded with
zeros on the right to width W.
"""
import argparse
import math
import os
import random
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = [
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSansCondensed.ttf",
    "DejaVuSansCondensed-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf",
    "DejaVuSerifCondensed.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf",
]
WORDS = (
    "the of and to in is it you that he was for on are with as his they be at one have this from or had by hot "
    "word but what some we can out other were all there when up use your how said an each she which do their "
    "time if will way about many then them write would like so these her long make thing see him two has look "
    "more day could go come did number sound no most people my over know water than call first who may down "
    "side been now find any new work part take get place made live where after back little only round man year "
    "came show every good me give our under name very through just form sentence great think say help low line "
    "differ turn cause much mean before move right boy old too same tell does set three want air well also play "
    "small end put home read hand port large spell add even land here must big high such follow act why ask men "
    "change went light kind off need house picture try us again animal point mother world near build self earth "
    "father head stand own page should country found answer school grow study still learn plant cover food sun "
    "four between state keep eye never last let thought city tree cross farm hard start might story saw far sea "
    "draw left late run while press close night real life few north open seem together next white children begin "
    "got walk example ease paper group always music those both mark often letter until mile river car feet care "
    "second book carry took science eat room friend began idea fish mountain stop once base hear horse cut sure "
    "watch color face wood main enough plain girl usual young ready above ever red list though feel talk bird "
    "soon body dog family direct pose leave song measure door product black short numeral class wind question "
    "happen complete ship area half rock order fire south problem piece told knew pass since top whole king "
    "space heard best hour better true during hundred five remember step early hold west ground interest reach "
    "fast verb sing listen six table travel less morning ten simple several vowel toward war lay against pattern "
    "slow center love person money serve appear road map rain rule govern pull cold notice voice unit power town "
    "fine certain fly fall lead cry dark machine note wait plan figure star box noun field rest correct able "
    "pound done beauty drive stood contain front teach week final gave green oh quick develop ocean warm free "
    "minute strong special mind behind clear tail produce fact street inch multiply nothing course stay wheel "
    "full force blue object decide surface deep moon island foot system busy test record boat common gold "
    "possible plane stead dry wonder laugh thousand ago ran check game shape equate miss brought heat snow tire "
    "bring yes distant fill east paint language among grand ball yet wave drop heart present heavy dance engine "
    "position arm wide sail material size vary settle speak weight general ice matter circle pair include divide "
    "syllable felt perhaps pick sudden count square reason length represent art subject region energy hunt "
    "probable bed brother egg ride cell believe fraction forest sit race window store summer train sleep prove "
    "lone exercise wall catch mount wish sky board joy winter sat written wild instrument kept glass grass cow "
    "job edge sign visit past soft fun bright gas weather month million bear finish happy hope flower clothe "
    "strange gone jump baby eight village meet root buy raise solve metal whether push seven paragraph third "
    "shall held hair describe cook floor either result burn hill safe cat century consider type law bit coast "
    "copy phrase silent tall sand soil roll temperature finger industry value fight lie beat excite natural view "
    "sense ear else quite broke case middle kill son lake moment scale loud spring observe child straight "
    "consonant nation dictionary milk speed method organ pay age section dress cloud surprise quiet stone tiny "
    "climb cool design poor lot experiment bottom key iron single stick flat twenty skin smile crease hole trade "
    "melody trip office receive row mouth exact symbol die least trouble shout except wrote seed tone join "
    "suggest clean break lady yard rise bad blow oil blood touch grew cent mix team wire cost lost brown wear "
    "garden equal sent choose fell fit flow fair bank collect save control decimal gentle woman captain practice "
    "separate difficult doctor please protect noon whose locate ring character insect caught period indicate "
    "radio spoke atom human history effect electric expect crop modern element hit student corner party supply "
    "bone rail imagine provide agree thus capital chair danger fruit rich thick soldier process operate guess "
    "necessary sharp wing create neighbor wash bat rather crowd corn compare poem string bell depend meat rub "
    "tube famous dollar stream fear sight thin triangle planet hurry chief colony clock mine tie enter major "
    "fresh search send yellow gun allow print dead spot desert suit current lift rose continue block chart hat "
    "sell success company subtract event particular deal swim term opposite wife shoe shoulder spread arrange "
    "camp invent cotton born determine quart nine truck noise level chance gather shop stretch throw shine "
    "property column molecule select wrong gray repeat require broad prepare salt nose plural anger claim "
    "continent oxygen sugar death pretty skill women season solution magnet silver thank branch match suffix "
    "especially fig afraid huge sister steel discuss forward similar guide experience score apple bought led "
    "pitch coat mass card band rope slip win dream evening condition feed tool total basic smell valley nor "
    "double seat arrive master track parent shore division sheet substance favor connect post spend chord fat "
    "glad original share station dad bread charge proper bar offer segment slave duck instant market degree "
    "populate chick dear enemy reply drink occur support speech nature range steam motion path liquid log "
    "meant quotient teeth shell neck"
).split()


def random_text(rng, max_chars):
    """A short line: words (lower, Capitalized or UPPER), numbers, prices, dates, codes."""
    parts = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.55:
            w = rng.choice(WORDS)
            style = rng.random()
            parts.append(w.capitalize() if style < 0.3 else w.upper() if style < 0.45 else w)
        elif kind < 0.7:
            parts.append(str(rng.randint(0, 99999)))
        elif kind < 0.8:
            parts.append("%d.%02d" % (rng.randint(0, 999), rng.randint(0, 99)))
        elif kind < 0.88:
            parts.append("%04d-%02d-%02d" % (rng.randint(1950, 2030), rng.randint(1, 12), rng.randint(1, 28)))
        elif kind < 0.95:
            parts.append(rng.choice(WORDS) + rng.choice(",.:;!?"))
        else:
            parts.append("%s%d" % (rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ"), rng.randint(10, 9999)))
    text = " ".join(parts)
    while len(text) > max_chars and " " in text:
        text = text.rsplit(" ", 1)[0]
    return text[:max_chars]


def render(rng, text):
    """RGB uint8 image of one text line, cropped to the ink with a small margin."""
    font = ImageFont.truetype(os.path.join(FONT_DIR, rng.choice(FONTS)), rng.randint(22, 40))
    left, top, right, bottom = font.getbbox(text)
    margin = [rng.randint(2, 8) for _ in range(4)]
    w = right - left + margin[0] + margin[2]
    h = bottom - top + margin[1] + margin[3]
    bg = rng.randint(190, 255)
    fg = rng.randint(0, 70)
    tint = [rng.randint(-12, 12) for _ in range(3)]
    img = Image.new("RGB", (w, h), tuple(min(255, max(0, bg + t)) for t in tint))
    draw = ImageDraw.Draw(img)
    draw.text((margin[0] - left, margin[1] - top), text, font=font, fill=tuple(max(0, fg + t) for t in tint))
    return img


def preprocess(img, width):
    """PaddleOCR's resize_norm_img for a 3x48xW input: keep aspect ratio, bilinear, [-1, 1], pad right."""
    bgr = np.asarray(img)[:, :, ::-1]  # PaddleOCR reads with cv2.imread (BGR)
    h, w = bgr.shape[:2]
    resized_w = min(width, int(math.ceil(48 * w / float(h))))
    resized = Image.fromarray(np.ascontiguousarray(bgr)).resize((resized_w, 48), Image.BILINEAR)
    x = np.asarray(resized, dtype=np.float32).transpose(2, 0, 1) / 255.0
    x = (x - 0.5) / 0.5
    out = np.zeros((3, 48, width), dtype=np.float32)
    out[:, :, :resized_w] = x
    return out


def make_set(mode, count, seed, width):
    rng = random.Random(seed)
    # Rec: at most W/48 * ~1.6 characters keep a line within the input width after resizing to height 48.
    max_chars = 12 if mode == "cls" else 18
    xs, labels, texts = [], [], []
    for i in range(count):
        text = random_text(rng, max_chars)
        img = render(rng, text)
        if mode == "rec":
            # Keep the whole line legible: narrower than W at height 48, else shorten the text.
            while img.width * 48 > width * img.height and len(text) > 1:
                text = text[:-1].rstrip()
                img = render(rng, text)
        label = i % 2 if mode == "cls" else 0
        if label == 1:
            img = img.rotate(180)
        xs.append(preprocess(img, width))
        labels.append(label)
        texts.append(text)
    order = list(range(count))
    if mode == "cls":
        rng.shuffle(order)
    return (np.stack([xs[i] for i in order]), np.array([labels[i] for i in order], dtype=np.int64),
            [texts[i] for i in order])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["cls", "rec"])
    p.add_argument("out")
    p.add_argument("--calib", type=int, required=True)
    p.add_argument("--eval", type=int, required=True)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--width", type=int, default=0)
    a = p.parse_args()
    width = a.width or (192 if a.mode == "cls" else 320)
    os.makedirs(os.path.join(a.out, "calib"), exist_ok=True)
    cx, _, ctexts = make_set(a.mode, a.calib, a.seed, width)
    for i, x in enumerate(cx):
        np.save(os.path.join(a.out, "calib", "%04d.npy" % i), x[None])
    ex, labels, etexts = make_set(a.mode, a.eval, a.seed + 1, width)
    os.makedirs(os.path.join(a.out, "eval"), exist_ok=True)
    for i, x in enumerate(ex):
        np.save(os.path.join(a.out, "eval", "%04d.npy" % i), x[None])
    overlap = set(ctexts) & set(etexts)
    np.savez(os.path.join(a.out, "eval.npz"), x=ex)
    np.save(os.path.join(a.out, "eval_labels.npy"), labels)
    with open(os.path.join(a.out, "eval_texts.txt"), "w") as f:
        f.write("\n".join(etexts) + "\n")
    print("%s: %d calibration lines, %d evaluation lines (%d texts in both sets, rendered differently), width %d"
          % (a.mode, a.calib, a.eval, len(overlap), width))


if __name__ == "__main__":
    sys.exit(main())
