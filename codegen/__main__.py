import gc
import sys

from .cli import main

# A command runs one compile and exits: its objects all live until then, so the cyclic collector, which would
# walk them all once the compile ends (a tenth of a second for 1,000 tools), has nothing to free.
gc.disable()
sys.exit(main())
