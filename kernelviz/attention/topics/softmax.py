"""The softmax variants of the Online softmax page (softmax.py), on scores x (rows, N) streamed in tiles of Bc;
the last one carries the output o = softmax(x) V as well."""

from ..algorithm import SCORES, SCORES_AND_VALUES, Algorithm
from ..softmax import naive_softmax, online_softmax, online_softmax_output, safe_softmax

NAIVE = Algorithm(name="naive-softmax", function=naive_softmax, inputs=SCORES, dtypes=("float32",), family=None)
SAFE = Algorithm(name="safe-softmax", function=safe_softmax, inputs=SCORES, dtypes=("float32",), family=None)
ONLINE = Algorithm(name="online-softmax", function=online_softmax, inputs=SCORES, dtypes=("float32",), family=None)
OUTPUT = Algorithm(
    name="online-softmax-output",
    function=online_softmax_output,
    inputs=SCORES_AND_VALUES,
    dtypes=("float32",),
    family=None,
)
