"""deltamatch: subgraph pattern match counts and listings, kept current on a changing graph.

The library (`count`, `matches`, `Matcher`) runs in this process on numpy + numba (CuPy
for the GPU); the service (`deltamatch serve`) adds REST, streams and Ray workers.
"""

__version__ = "0.1.0"

from deltamatch.api import Delta, Matcher, count, matches  # noqa: E402

__all__ = ["Delta", "Matcher", "__version__", "count", "matches"]
