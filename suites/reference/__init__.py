"""The reference (reference/): its step traces."""
