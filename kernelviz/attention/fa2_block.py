"""What one block of FlashAttention 2 (fa2.py) holds on chip in the teaching model, which keeps every tile of the
block in one fast memory: its record's ``block`` (algorithm.Algorithm), which ``fa2.py`` declares to its ledger
(``Ledger.shared``) and the explorer draws. Written in the subset of Python that js_port translates, so the browser
runs this function, generated (attention.js_topics), not a copy."""


def tiles(Br, Bc, d, itemsize):
    """{tile: bytes} of one block, in the order the ledger places them: Qi (Br x d), Kj and Vj (Bc x d) in the storage
    dtype of `itemsize` bytes, then in float32 the scores Sij (Br x Bc), the output accumulator Oi (Br x d) and the
    row statistics mi, li (Br each)."""
    s = itemsize
    return {
        "Qi": Br * d * s,
        "Kj": Bc * d * s,
        "Vj": Bc * d * s,
        "Sij": Br * Bc * 4,
        "Oi": Br * d * 4,
        "mi": Br * 4,
        "li": Br * 4,
    }
