"""Bad input raises ValueError naming the argument, for every algorithm."""

import numpy as np
import pytest
from attention_cases import DENSE, qkv, run

from kernelviz.attention import attention_fp64, flash_decoding

q, k, v = qkv(2, 6, 4, 5)
CASES = [  # (q, k, v, options, the argument named)
    (q[0], k, v, {}, "q"),
    (q, k[:1], v, {}, "k, v"),
    (q, k[..., :3], v, {}, "k"),
    (q, k, v[..., :3], {}, "v"),
    (q, k, v[:, :4], {}, "v"),
    (np.zeros((2, 0, 4)), k, v, {}, "q"),
    (np.where(q > 1, np.nan, q), k, v, {}, "q"),
    (q, np.where(k > 1, np.inf, k), v, {}, "k"),
    (q, k, v.astype(complex), {}, "v"),
    (q, k, v, {"scale": np.inf}, "scale"),
    (q, k, v, {"scale": 0}, "scale"),
    (q, k, v, {"Br": 0}, "Br"),
    (q, k, v, {"Bc": -2}, "Bc"),
    (q, k, v, {"Br": 2.5}, "Br"),
    (q, k, v, {"Bc": True}, "Bc"),
    (q, k, v, {"dtype": "float64"}, "dtype"),
    (q * 1e6, k, v, {"dtype": "float16"}, "q"),
]


@pytest.mark.parametrize("name", DENSE)
@pytest.mark.parametrize("q_, k_, v_, options, arg", CASES)
def test_bad_input_names_the_argument(name, q_, k_, v_, options, arg):
    with pytest.raises(ValueError, match=f"^{arg}:"):
        run(name, q_, k_, v_, **options)


@pytest.mark.parametrize("q_, k_, v_, options, arg", [c for c in CASES if c[3].keys() <= {"scale"}])
def test_reference_checks_too(q_, k_, v_, options, arg):
    with pytest.raises(ValueError, match=f"^{arg}:"):
        attention_fp64(q_, k_, v_, **options)


@pytest.mark.parametrize("n_splits", [0, 4, 2.0])
def test_n_splits(n_splits):
    with pytest.raises(ValueError, match="^n_splits:"):
        flash_decoding(q, k, v, Bc=2, n_splits=n_splits)  # 5 keys in tiles of 2: at most 3 splits
