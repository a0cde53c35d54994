"""figlib: the figure library of the kernel pages (standard library only, beside pie; runs in CPython and Pyodide).

from kernelviz.figlib import sizes
N, Br, Bc = sizes(N=8, Br=4, Bc=4)
"""

from .sizing import sizes

__all__ = ["sizes"]
