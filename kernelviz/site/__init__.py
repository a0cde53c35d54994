"""The site: ``pages/*.md`` to a static site that needs nothing from outside its folder.

``build.build`` is the pipeline (collect pages → parse → run editors → render → copy assets → write → check links);
``serve.serve`` builds, serves on 127.0.0.1 and rebuilds on change. Each Markdown extension of the page format is a
module of ``extensions``; ``commands`` is the ``kernelviz build`` / ``kernelviz serve`` command line.
"""
