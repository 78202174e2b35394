import os
import sys

from . import quick

if quick.up_to_date(
    sys.argv[1:]
):  # a no-op told by stamps alone, before the imports below
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)

import gc  # noqa: E402

from .cli import main  # noqa: E402

# A command runs one compile and exits: its objects all live until then, so the cyclic collector, which would
# walk them all once the compile ends (a tenth of a second for 1,000 tools), has nothing to free.
gc.disable()
status = main()
# Nor is there anything to tidy at exit: freeing every object one by one took longer (0.15-0.3 s for 1,000
# tools) than the operating system takes to reclaim the whole process. Every file codegen writes is closed by
# then; only the standard streams are buffered.
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except (OSError, ValueError):  # a closed pipe: what was not read is lost either way
        pass
os._exit(status)
