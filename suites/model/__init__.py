"""The contract as data (harness/model/): host values, the protocol, the untrusted reader, atomic writes, Unicode
tables, the specification."""
