"""Time and peak memory of the FA2 reference against standard attention, both on NumPy with their ledgers.

    .venv/bin/python bench/attention.py [--N 1024 4096 8192] [--d 64] [--Br 64] [--Bc 64]

For each N: wall time (one run each, without tracing) and peak Python-heap memory under tracemalloc (a second
run; NumPy reports its buffers to tracemalloc), printed with FA2's ratio to standard. Standard attention holds
the N x N matrices S and P, FA2 only tiles, so the memory ratio falls as 1/N. Target at N = 8192: FA2 memory
<= 0.05x standard's, at no worse than 3x its time. Inputs are made before measuring and not counted.
"""

import argparse
import time
import tracemalloc

import numpy as np

from kernelviz.attention import flash_attention_2, standard_attention


def measure(f, q, k, v, options):
    start = time.perf_counter()
    f(q, k, v, **options)
    seconds = time.perf_counter() - start
    tracemalloc.start()
    f(q, k, v, **options)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--N", type=int, nargs="+", default=[1024, 4096, 8192])
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--Br", type=int, default=64)
    parser.add_argument("--Bc", type=int, default=64)
    args = parser.parse_args(argv)
    options = dict(Br=args.Br, Bc=args.Bc)
    print(f"FA2 reference vs standard attention, d={args.d}, Br={args.Br}, Bc={args.Bc}, float32, one head")
    print(f"{'N':>6} {'std s':>8} {'fa2 s':>8} {'time x':>7} {'std MiB':>9} {'fa2 MiB':>9} {'memory x':>9}")
    for n in args.N:
        rng = np.random.default_rng(n)
        q, k, v = (rng.standard_normal((1, n, args.d)).astype(np.float32) for _ in range(3))
        t_std, m_std = measure(standard_attention, q, k, v, options)
        t_fa2, m_fa2 = measure(flash_attention_2, q, k, v, options)
        print(
            f"{n:>6} {t_std:>8.3f} {t_fa2:>8.3f} {t_fa2 / t_std:>7.2f} "
            f"{m_std / 2**20:>9.1f} {m_fa2 / 2**20:>9.1f} {m_fa2 / m_std:>9.4f}"
        )


if __name__ == "__main__":
    main()
