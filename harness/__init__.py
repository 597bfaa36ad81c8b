"""Shared machinery of the parity harness: op registry, host-value encoding, protocol, fixtures, CLI."""
