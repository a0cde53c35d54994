"""JavaScript at build time, in-process: ONE embedded V8 context (the mini-racer package) per process, kept warm.

    from kernelviz.site import js
    js.load(path)                         # evaluate a script once per process (again only when the file changes)
    js.call("kvTypeset", {"items": []})   # call a global function with JSON in, JSON out

Anything the builder runs in JavaScript (Temml, the figure renderer, the Scene checker, ...) shares this context, so
V8 starts once per build or ``kernelviz serve`` session, not once per page or formula. Scripts are classic scripts
(not ES modules): a UMD bundle sets its global on ``globalThis``. Calls are serialised by a lock (``serve`` rebuilds
from a watcher thread). No node, no subprocess.
"""

import json
import threading
from pathlib import Path

from .diagnostics import BuildError

_lock = threading.RLock()
_state = {"context": None, "loaded": {}}  # loaded: resolved path -> (mtime_ns, size) of the version evaluated


def context():
    """The process's V8 context, made on first use. Raises BuildError when mini-racer is not installed."""
    with _lock:
        if _state["context"] is None:
            try:
                from py_mini_racer import MiniRacer
            except ImportError as e:
                raise BuildError(
                    "JavaScript runs at build time in the embedded V8 of the mini-racer package, which is not "
                    f"installed ({e}): pip install mini-racer"
                ) from e
            _state["context"] = MiniRacer()
        return _state["context"]


def load(path):
    """Evaluate the script at `path` in the context, unless this version of it was evaluated already.
    Raises BuildError naming the file when it is missing or throws."""
    path = Path(path).resolve()
    try:
        stat = path.stat()
        version = (stat.st_mtime_ns, stat.st_size)
        with _lock:
            if _state["loaded"].get(path) == version:
                return
            source = path.read_text(encoding="utf-8")
            context().eval(source)
            _state["loaded"][path] = version
    except OSError as e:
        raise BuildError(f"cannot read the build-time script {path}: {e.strerror}") from e
    except BuildError:
        raise
    except Exception as e:  # mini-racer's JSEvalException and kin
        raise BuildError(f"the build-time script {path} failed in V8: {e}") from e


def runtime_script(web_dist, name, what):
    """The build-time script `name` that the runtime at `web_dist` carries (``build-time/NAME``, made by
    web/build.mjs); `what` names it in the BuildError raised when the runtime has none."""
    path = Path(web_dist) / "build-time" / name
    if not path.is_file():
        raise BuildError(
            f"{what} is not in the runtime: there is no {path}; rebuild the runtime (`make setup`, or "
            "`cd web && npm ci && node build.mjs`)"
        )
    return path


def call(function, argument):
    """Call the global JavaScript `function` with `argument` (JSON-able); it must return a JSON string, which is
    decoded. Raises BuildError with V8's message when the call throws."""
    with _lock:
        try:
            text = context().eval(f"{function}({json.dumps(argument)})")
        except BuildError:
            raise
        except Exception as e:
            raise BuildError(f"{function}(...) failed in V8: {e}") from e
    return json.loads(text)
