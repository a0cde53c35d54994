"""``kernelviz serve``: build, serve the site on 127.0.0.1, and rebuild when something it is built from changes.

Watched: the pages folder, ``kernelviz/cuda/*.cu`` and ``*.h`` (the cited regions) and ``web/dist`` (the runtime,
rebuilt by ``cd web && node build.mjs``). A build writes beside the site and replaces it only when it succeeds, so a
failed rebuild prints its error and the last good site stays served; a good one tells the open pages to reload. The HTTP
side (load, compression, the reload events) is ``server``.
"""

import sys
import threading
from pathlib import Path

from .build import PAGES, WEB_DIST, build
from .diagnostics import BuildError
from .locations import CUDA
from .server import make_server

__all__ = ["make_server", "rebuild", "serve", "watch"]


def rebuild(pages_dir, out, log=print, **options):
    """Build once; on failure print the error and keep the site there. Returns True when it succeeded."""
    try:
        build(pages_dir, out, log=log, **options)
        return True
    except BuildError as e:
        log(f"build failed; still serving the last good site:\n{e}")
        return False
    except Exception as e:  # noqa: BLE001 - a bug in a page must not stop the server
        log(f"build failed ({type(e).__name__}: {e}); still serving the last good site")
        return False


def watched(pages_dir, web_dist):
    """The folders to watch that exist now."""
    return [p for p in (Path(pages_dir), CUDA, Path(web_dist)) if p.is_dir()]


def _relevant(pages_dir, web_dist):
    pages_dir, web_dist = Path(pages_dir).resolve(), Path(web_dist).resolve()

    def keep(change, path):
        path = Path(path)
        if path.is_relative_to(CUDA):
            return path.suffix in (".cu", ".h")  # a kernel, or a header it includes (mma_sm80.h)
        if path.is_relative_to(pages_dir):
            return path.suffix == ".md"
        return path.is_relative_to(web_dist)

    return keep


def watch(pages_dir, out, stop, log=print, on_built=None, **options):
    """Rebuild on every relevant change until `stop` (a threading.Event) is set. The watch restarts when a watched
    folder is replaced (web/dist is deleted and written again by each runtime build)."""
    import watchfiles

    web_dist = options.get("web_dist", WEB_DIST)
    keep = _relevant(pages_dir, web_dist)
    while not stop.is_set():
        folders = watched(pages_dir, web_dist)
        identity = _identity(folders)
        for changes in watchfiles.watch(
            *folders, watch_filter=keep, stop_event=stop, yield_on_timeout=True, rust_timeout=1000
        ):
            replaced = _identity(watched(pages_dir, web_dist)) != identity
            if changes or replaced:
                names = sorted({Path(path).name for _, path in changes}) or ["a replaced folder"]
                log(f"changed: {', '.join(names)}; rebuilding")
                if rebuild(pages_dir, out, log=log, **options) and on_built:
                    on_built()
            if replaced:
                break


def _identity(folders):
    """Which folders exist, and which inode each is: a folder deleted and made again is another folder."""
    out = []
    for p in folders:
        try:
            out.append((p, p.stat().st_ino))
        except OSError:
            out.append((p, None))
    return out


def serve(pages_dir=PAGES, out="site", *, host="127.0.0.1", port=8000, log=print, **options):
    """Build, serve and rebuild on change until interrupted. Returns an exit status."""
    if not rebuild(pages_dir, out, log=log, **options) and not Path(out).is_dir():
        log("kernelviz serve: the first build failed and there is no earlier site to serve")
        return 1
    try:
        server = make_server(out, host, port)
    except OSError as e:
        log(f"kernelviz serve: cannot listen on {host}:{port}: {e.strerror} (try --port 0, or another port)")
        return 1
    threading.Thread(target=server.serve_forever, daemon=True).start()
    log(f"serving {Path(out).resolve()} at http://{host}:{server.server_address[1]}/  (Ctrl-C stops)")
    sys.stdout.flush()
    stop = threading.Event()
    try:
        watch(pages_dir, out, stop, log=log, on_built=server.reload, **options)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.shutdown()
    return 0
