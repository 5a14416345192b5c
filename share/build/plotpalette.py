#!/usr/bin/env python3
"""share/build/plotpalette.py: the colours of probe-plot's ranks, as the C table in lib/plot/plot.c.

Rank i (in numeric order) draws in the i-th colour.  The table is made so
that, for every n, its first n colours are as far apart as a greedy choice
makes them: each next colour is the candidate farthest (in OKLab) from all
those before it.  The first is the blue one rank has always had.

Candidates: a grid of OKLCH colours (lightness, chroma, hue) inside sRGB,
each dark enough to be seen as a thin line on white (a contrast of at least
3:1, WCAG's for graphics), none of the hues from 355 round to 85 degrees:
the reds and oranges of the marks (PLOT_RED, PLOT_ORANGE in plotmodel.h),
since a line must not read as a divergence.  Run with no argument: prints the
table; tests/cli/plot/palette.sh checks that plot.c holds what it prints.
"""
import math

COUNT = 64
FIRST = "#1f5fa8"
LIGHTNESS = (0.30, 0.36, 0.42, 0.48, 0.54, 0.60, 0.66, 0.72)
CHROMA = (0.05, 0.09, 0.13, 0.17, 0.21)
HUES = [h for h in range(0, 360, 5) if not (h >= 355 or h < 85)]
MIN_CONTRAST = 3.0


def oklch_to_linear(L, C, h):
    a, b = C * math.cos(math.radians(h)), C * math.sin(math.radians(h))
    l_ = L + 0.3963377774 * a + 0.2158037573 * b
    m_ = L - 0.1055613458 * a - 0.0638541728 * b
    s_ = L - 0.0894841775 * a - 1.2914855480 * b
    l, m, s = l_ ** 3, m_ ** 3, s_ ** 3
    return (4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
            -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
            -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s)


def encode(u):
    return 12.92 * u if u <= 0.0031308 else 1.055 * u ** (1 / 2.4) - 0.055


def decode(v):
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def to_hex(rgb):
    return "#%02x%02x%02x" % tuple(round(encode(min(max(u, 0.0), 1.0)) * 255) for u in rgb)


def linear_of(hexs):
    return tuple(decode(int(hexs[i:i + 2], 16) / 255) for i in (1, 3, 5))


def oklab_of(hexs):
    r, g, b = linear_of(hexs)
    l = 0.4122214708 * r + 0.5363374553 * g + 0.0514459929 * b
    m = 0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b
    s = 0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b
    l_, m_, s_ = (math.copysign(abs(x) ** (1 / 3), x) for x in (l, m, s))
    return (0.2104542553 * l_ + 0.7936177850 * m_ - 0.0040720468 * s_,
            1.9779984951 * l_ - 2.4285922050 * m_ + 0.4505937099 * s_,
            0.0259040371 * l_ + 0.7827717662 * m_ - 0.8086757660 * s_)


def contrast_on_white(hexs):
    r, g, b = linear_of(hexs)
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


def candidates():
    seen, out = set(), []
    for L in LIGHTNESS:
        for C in CHROMA:
            for h in HUES:
                rgb = oklch_to_linear(L, C, h)
                if not all(-1e-9 <= u <= 1 + 1e-9 for u in rgb):
                    continue
                hx = to_hex(rgb)
                if hx in seen or contrast_on_white(hx) < MIN_CONTRAST:
                    continue
                seen.add(hx)
                out.append(hx)
    return out


def palette():
    cands = candidates()
    lab = {c: oklab_of(c) for c in cands}
    lab[FIRST] = oklab_of(FIRST)
    chosen = [FIRST]
    nearest = {c: math.dist(lab[c], lab[FIRST]) for c in cands if c != FIRST}
    while len(chosen) < COUNT:
        best = max(nearest, key=lambda c: (nearest[c], c))
        chosen.append(best)
        del nearest[best]
        for c in nearest:
            nearest[c] = min(nearest[c], math.dist(lab[c], lab[best]))
    return chosen


def main():
    cols = palette()
    print("const char *const plot_palette[PLOT_NPALETTE] = {")
    for i in range(0, len(cols), 8):
        print("\t" + " ".join('"%s",' % c for c in cols[i:i + 8]))
    print("};")


if __name__ == "__main__":
    main()
