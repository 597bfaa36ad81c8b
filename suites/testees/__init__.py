"""Implementations and the protocol (harness/testees/): the command client, hostile testees, deadlines,
declarations, outside implementations, chaos, trace claims."""
