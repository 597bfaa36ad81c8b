"""Divergence classes, from sighting to report: the layer between the searches (harness/fuzzing: fuzz, sweep,
shard merges) and the classifier (harness/differential: what one input's disagreement is).

- ``key``: ``ClassKey``, what a class is known by (op, the implementations of its share, cause, detail, the
  step where the traces part, as ``class_step`` knows it); its identity across runs and its anchor.
- ``book``: ``ClassBook``, which class a sighting is when some inputs could not reach every implementation,
  and the one grow-and-move of a class whose key grew (the fuzzer, the sweep and the shard merge file their
  classes through it).
- ``record``: ``ClassRecord``, a class as a report holds it; a sighting is one at once (``of_sighting``, from what
  the classifier found), and ``examine`` makes one input's shares records.
- ``expected``: the expected lists; a record's coverage by them is a value (``cover``).
- ``replay``: the command that runs a class's witness again.
- ``rundiff``: what changed between two runs, class by class and case by case, and the one reader of the
  reports the harness shows.
"""
