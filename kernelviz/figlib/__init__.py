"""figlib: the figure library of the kernel pages. Standard library only, beside pie (CPython and Pyodide alike).

    from kernelviz.figlib import Figure, sizes

    N, Br, Bc = sizes(N=8, Br=4, Bc=4)  # the defaults, or the sizes the reader picked
    fig = Figure("Q, K and V wait in HBM")
    Q = fig.hbm("Q", rows=N, cols=4, tile=Br, kind="q")  # tiles Q0, Q1, ... in HBM
    Qi = fig.sram("Qi", rows=Br, cols=4, kind="q")  # a slot in a block's shared memory
    fig.blocks(1)
    fig.zoom(0, [Qi])
    fig.step("zoom", "block 0: its shared memory", i=0)  # (or fig.start(): the figure opens zoomed, as recorded)
    fig.copy(Q[0], Qi)
    fig.step("load Q", "load Q0: the block's query rows", i=0)
    fig.draw("fa2")

Modules: ``sizing`` (sizes), ``memory`` (slots, tensors, looks), ``record`` (Figure: the actions and steps),
``layout`` (where things go, from the sizes), ``draw`` (the record as a pie diagram and step list), ``answers``
(what each slot is, whose, and how its content came, for the page to answer a reader who points at it).

Step keys (what bullets ``[step: KEY]`` and CUDA blocks ``step="KEY"`` name): the action, then each loop index
as name=value, in loop order, e.g. ``load K,V i=0 j=1``. The pages use:
    all pages     start (step 0)
    Flash Attn 2  zoom i=I · load Q i=I · load K,V i=I j=J · fill Sij i=I j=J · update m,l,O i=I j=J · write O,L i=I
    Flash Attn 1  init O,l,m · load K,V j=J · load Q,O,l,m j=J i=I · fill Sij j=J i=I · update m,l,O j=J i=I
                  · write O,l,m j=J i=I
    Flash decod.  zoom s=S · load q s=S · load K,V s=S j=J · fill Sij s=S j=J · update m,l,O s=S j=J
                  · write partials s=S · zoom combine · combine m · combine l · combine O · write O
    Online softm. load x,V i=I · max i=I · update l,o i=I · write O
A step's ``at`` holds its loop indices ({"i": 0, "j": 1}); its ``caption`` says what it does in a sentence; its
``label`` names it in the step list in words with the tensors' names, as the seed pages do ("block 0 · j = 1 · load
K1, V1"): a page's bullets keep that label too, and bind by it when a figure has no keys (the seeds' own code).

``sizes`` returns ints that know their names, so that a loop past the last tile of a tensor says which size gives
more ("K[2]: K has 2 tiles at N = 8, Bc = 4 ..."); ``split_tiles(tiles, splits)`` is flash decoding's partition of
the K/V tiles (flash-attn's: ceil(tiles / splits) whole tiles a split, trailing splits maybe empty).

Colours are palette names (kernelviz/pie/palette.json): a tensor of kind K is drawn @K-fill outlined @K; a carry
of kind K darkens through @K-1 .. @K-4, one shade per tile folded in; stale values are @stale; scores alternate
@s-1 / @s-2 from one tile to the next. The HBM counter is the diagram item with kv "hbm-bytes", its label
``HBM <bytes> B``: float32 bytes read from and written to HBM so far, summed from the recorded copies.
"""

from . import layout
from .memory import look
from .record import Figure
from .sizing import sizes, split_tiles

__all__ = ["Figure", "layout", "look", "sizes", "split_tiles"]
