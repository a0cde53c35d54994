"""fp16 and bf16 bits as fa2_mma.cu reads and writes them: ``kernelviz.attention.half``, which the tensor-core
algorithm of ``attention.fa2_mma`` rounds with too (attention sits below cuda), under the name the kernels' code
imports."""

from kernelviz.attention.half import DTYPES, UNIT_ROUNDOFF, bits, check, round, values  # noqa: A004, F401
