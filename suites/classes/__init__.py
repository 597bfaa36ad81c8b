"""The classes layer (harness/classes/): class records, their JSON, merges, report kinds and diffs."""
