"""pie's public surface: a snapshot, so a change to it is a visible decision; and it needs nothing but the stdlib."""

import inspect
import subprocess
import sys
import textwrap

from kernelviz import pie

API = {
    "clear": "()",
    "show_canvas": "(side='right')",
    "scalar": "(value, out=None)",
    "point": "(x, y, hidden=False, out=None)",
    "text": "(label, x, y, size=12, stroke='#27272a', fill=None, out=None)",
    "rectangle": "(corner, w, h, fill='none', stroke='#27272a', out=None)",
    "diagram": "(items_json, out=None)",
    "scene": "()",
    "ui.step_list": "(figure, steps, out=None)",
}


def test_public_names_and_signatures():
    public = {name for name in pie.__all__ if callable(getattr(pie, name)) and name not in ("Node",)}
    public = public - {"ui"} | {"ui.step_list"}
    signatures = {}
    for name in public:
        obj = pie.ui.step_list if name == "ui.step_list" else getattr(pie, name)
        signatures[name] = str(inspect.signature(obj))
    assert signatures == API
    assert sorted(pie.__all__) == sorted(["SETTINGS", "Node", "ui", *[n for n in API if "." not in n]])


def test_pie_imports_with_third_party_packages_blocked():
    """Only the standard library (and kernelviz.pie itself) may be imported: Pyodide ships nothing else."""
    script = textwrap.dedent(
        """
        import sys, importlib.abc

        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                top = name.split('.')[0]
                if top in sys.stdlib_module_names or name.startswith('kernelviz'):
                    return None
                raise ImportError(f'blocked third-party import: {name}')

        sys.meta_path.insert(0, Block())
        import kernelviz.pie as pie, kernelviz.runner as runner
        result = runner.run(["pie.rectangle(pie.point(0, 0), 1, 1)"])
        assert result.ok, result.error
        print(len(result.scene['nodes']))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2"
