"""Flash decoding (flash_decoding.py): the keys cut into splits, each reduced alone, then the partials combined;
its options say how many splits and what a partial holds."""

from .. import formulas
from ..algorithm import Algorithm, Option
from ..closed_forms import flash_decoding as closed
from ..flash_decoding import flash_decoding

ALGORITHM = Algorithm(
    name="flash-decoding",
    function=flash_decoding,
    options=(
        Option(
            "splits",
            int,
            formula=True,
            stray="splits is a flash-decoding size",
            lenient=True,
            counted_as=lambda s: min(s.get("splits") or 4, -(-s["N_kv"] // s["Bc"])),  # at most the tiles (4)
        ),
        Option(
            "partials",
            str,
            formula=True,
            choices=("unnormalized", "lse"),
            stray="partials is a flash-decoding option ('unnormalized' or 'lse')",
            help="its partials: O, m, l (default) or normalized O and one log-sum-exp a row",
        ),
    ),
    bytes=closed.hbm,
    flops=closed.flops,
    minimum=formulas.compulsory,
    ledger_records=lambda tr, tc, n_splits: tr * (2 * tc + 7 * n_splits + 1),
    memory=lambda s: {"partials": 8 * s.n_splits * s.bh * s.br * (s.d + 2)},
)
