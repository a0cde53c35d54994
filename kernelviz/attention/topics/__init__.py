"""The algorithms of kernelviz.attention, one record each (algorithm.Algorithm), in one list: the registry that
runs.py (``attention.run``), the command line (``kernelviz trace``) and the pages' ``{{ trace }}`` loop over.

To add an algorithm NAME:
  1. write it: a module of kernelviz/attention (say ``fa3.py``) with its function, f(q, k, v, *, Br, Bc, causal,
     dtype, scale, sram_budget, **its options) returning an AttentionResult whose ledger counts its traffic;
  2. describe it: a module here (``topics/fa3.py``) defining ``ALGORITHM = Algorithm(name="fa3", function=...,
     bytes=..., flops=..., ...)`` (see algorithm.py for each field: its options, closed forms, baseline, dtypes,
     extra numbers), and its closed forms in ``closed_forms/fa3.py`` (``hbm``, ``flops``, ``shared``: the browser
     gets them under its name, closed_forms/__init__.py), or, where it reuses another's, in its record's module;
  3. register it: import the module below and add ``fa3.ALGORITHM`` to ``TOPICS`` (the order is the command line's
     and ``attention.ALGORITHMS``'s).
Nothing else names it: tests/test_topics_named.py holds that no code of kernelviz/ does, outside its own modules,
this list, kernelviz/cuda/topics/__init__.py (its kernel) and kernelviz/site/nav.py (its page).
"""

from . import (
    fa1,
    fa2,
    fa2_backward,
    fa2_mma,
    fa2_pipe,
    fa3,
    flash_decoding,
    paged_decoding,
    softmax,
    standard,
    standard_backward,
)

TOPICS = (
    standard.ALGORITHM,
    fa1.ALGORITHM,
    fa2.ALGORITHM,
    flash_decoding.ALGORITHM,
    fa2_backward.ALGORITHM,
    standard_backward.ALGORITHM,
    fa2_mma.ALGORITHM,
    fa2_pipe.ALGORITHM,
    fa3.ALGORITHM,
    paged_decoding.ALGORITHM,
    softmax.NAIVE,
    softmax.SAFE,
    softmax.ONLINE,
    softmax.OUTPUT,
)

REGISTRY = {record.name: record for record in TOPICS}  # {name: algorithm.Algorithm}, in the registry's order


def baseline(record):
    """The record `record` is measured against: its family's baseline (algorithm.Algorithm.family), or None."""
    if record.family is None:
        return None
    return next((r for r in REGISTRY.values() if r.baseline and r.family == record.family), None)


__all__ = ["REGISTRY", "TOPICS", "baseline"]
