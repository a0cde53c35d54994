"""Each algorithm's closed forms, beside its record: one module per algorithm, named as its record's module
(closed_forms/fa2.py for topics/fa2.py), defining whichever of these it has:

    hbm(sizes...)    -> {tensor: {"read": bytes, "write": bytes}}   HBM traffic: what its ledger adds up to
    flops(sizes...)  -> {"matmul": n, "exp": n, "other": n}          FLOPs by kind: what ``ledger.flops`` adds up to
    shared(sizes...) -> {tensor: {"store": bytes, "load": bytes}}    shared-memory traffic, where the ledger counts it

written in the subset of Python that js_port translates (integer arithmetic on the helpers of formulas.py and
flops.py). Its record names them (``bytes=fa2.hbm``). The browser gets each under a name made of its module's stem
(formulas.js ``fa2``, flops.js ``fa2``, shared.js ``fa2_mma_shared``: the ``JS_MODULES`` of formulas.py and
flops.py), and Python by the same names (``formulas.fa2``, ``flops.fa2``, ``formulas.fa2_mma_shared``: ``publish``
sets them when this package is imported, as kernelviz.attention does), so no shared module lists the algorithms.
"""

import importlib
import pkgutil

from .. import flops, formulas

FORMS = ("hbm", "flops", "shared")


def stems():
    """The stems of this package's modules, one per algorithm that has closed forms (sorted)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__))


def published(js_modules):
    """{name: closed form} that a module with these `js_modules` ({generated module: {"form", "as", "helpers"}})
    offers: for each algorithm's module here that defines ``form``, that function under the name ``as`` makes of
    its stem (``{stem}_shared``: fa2_mma_shared)."""
    out = {}
    for stem in stems():
        module = importlib.import_module(f"{__name__}.{stem}")
        for spec in js_modules.values():
            if hasattr(module, spec["form"]):
                out[spec["as"].format(stem=stem)] = getattr(module, spec["form"])
    return out


def publish(module):
    """Set on `module` (formulas or flops) each closed form its JS_MODULES exports to the browser, by that name;
    refuses a name the module already has for something else (a helper of the same name)."""
    for name, form in published(module.JS_MODULES).items():
        mine = getattr(module, name, form)
        if mine is not form:
            raise ValueError(f"closed_forms: {module.__name__}.{name} is a helper there, and {form.__module__} would "
                             f"publish its {form.__name__} under that name: rename the module")  # fmt: skip
        setattr(module, name, form)


publish(formulas)
publish(flops)
