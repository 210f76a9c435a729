#!/usr/bin/env python3
"""Expected FPR of the small form (docs/format.md) against LevelDB's own
Bloom filter in LevelDB's budget, from the formulas alone (no filters are
built): for each bits/key, the worst ratio over 1..1024 keys per filter.

    python3 tools/research/small_filter_model.py [bits/key ...]

LevelDB 1.23: max(64, floor(n * b)) bits plus one byte, k = int(0.69 b)
probes; its FPR here is the textbook (1 - (1 - 1/m)^(kn))^k. Small form:
a 2-byte trailer up to 16 keys, else 3; FPR = n / N.
"""
import sys


def leveldb(n, b):
    m = max(64, int(n * b))
    k = max(1, min(30, int(b * 0.69)))
    return (1 - (1 - 1 / m) ** (k * n)) ** k, (m + 7) // 8 + 1


def small(n, size):
    p = 8 * (size - (2 if n <= 16 else 3))
    if n > 1024 or p < n or p > 128 * n + 64:
        return None
    k = min(56, max(0, -(-(p + 1) // n) - 3))
    buckets = min(p - n * (k + 1) + 1, 2 ** (64 - k) - 1)
    return n / (buckets << k)


def main():
    bits = [float(a) for a in sys.argv[1:]] or [8, 9, 10, 12, 16, 20]
    print("| bits/key | worst small/LevelDB FPR | at keys/filter | 35 keys: small | 35 keys: LevelDB |")
    print("|---:|---:|---:|---:|---:|")
    for b in bits:
        worst = (0.0, 0)
        for n in range(1, 1025):
            theirs, size = leveldb(n, b)
            ours = small(n, size)
            if ours is not None and theirs > 0 and ours / theirs > worst[0]:
                worst = (ours / theirs, n)
        theirs, size = leveldb(35, b)
        print("| %g | %.2f | %d | %.3f%% | %.3f%% |" % (b, worst[0], worst[1], 100 * small(35, size), 100 * theirs))


if __name__ == "__main__":
    main()
