"""The builds of the implementations: the wasm toolchain and its faults, Pyodide, the wheel, cargo features, the
LTS Node."""
