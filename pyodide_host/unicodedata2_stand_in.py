"""Stand-in for the ``unicodedata2`` package inside Pyodide, where that package is not available.

The reference takes NFC from ``unicodedata2`` (reference/unicode_data.py). Pyodide ships no wheel of
it, so pyodide_host/load.js writes this module under that name (only there: the file is named
unicodedata2_stand_in.py so that it never shadows the real package on the host): it is Pyodide's own ``unicodedata``,
and ``unidata_version`` says which Unicode version that is (16.0.0 in Pyodide 314.0.7). The
reference's ``unicode_versions()`` then reports that version for normalization, and the harness
explains every divergence it causes as a Unicode version skew.
"""

from unicodedata import *  # noqa: F403  (the whole unicodedata API, under this name)
from unicodedata import unidata_version  # noqa: F401

STAND_IN = True  # lets the testee say so in its self-description
