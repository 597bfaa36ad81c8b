"""Planted bugs: each one is a small source edit that a check must catch.

``python -m harness.tools.mutants`` applies each mutation to a scratch copy of the reference, runs every
fixture case on it (``python -m harness check --impl reference``) and prints the case ids that fail.
``suites/tools/test_mutants.py`` asserts that every mutation is caught by the cases listed here.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to the repository root
    old: str
    new: str
    must_fail: tuple[str, ...]  # fixture cases (fixture/id) that must catch it
    needs: tuple[str, ...] = ()  # modules the mutated code imports
    more: tuple[tuple[str, str], ...] = ()  # further (old, new) edits in the same file


def apply(mutation: Mutation, tree: Path) -> None:
    """Edit the scratch copy; every text to replace must occur exactly once."""
    target = tree / mutation.file
    source = target.read_text(encoding="utf-8")
    for old, new in ((mutation.old, mutation.new), *mutation.more):
        if source.count(old) != 1:
            raise AssertionError(f"{mutation.name}: the text to replace occurs {source.count(old)} times "
                                 f"in {mutation.file}; update the mutation")
        source = source.replace(old, new)
    target.write_text(source, encoding="utf-8")


REFERENCE_MUTATIONS = [
    Mutation("str-strip-as-trim (normalize)", "reference/normalize.py",
             "    text = strip_edges(text)  # step 7", "    text = strip_edges(text.strip())  # step 7",
             ("write-gate-v1/norm-not-ws-u001c", "write-gate-v1/norm-not-ws-u001f")),
    Mutation("str-strip-as-trim (dedup context)", "reference/dedup_context.py",
             "    trimmed = [piece.strip(WHITE_SPACE_CHARS) for piece in pieces]",
             "    trimmed = [piece.strip() for piece in pieces]",
             ("dedup-context-v1/ctx-u001c-line-edges",)),
    Mutation("greater-than-for-at-least", "reference/write_gate.py",
             "best_sim >= threshold", "best_sim > threshold",
             ("write-gate-v1/gate-threshold-exactly-default", "write-gate-v1/gate-threshold-exact-3-4-5")),
    Mutation("numpy-dot-similarity", "reference/write_gate.py",
             "    total = 0.0\n    for x, y in zip(a, b, strict=True):\n        total += x * y\n    return total",
             "    import numpy\n\n    return float(numpy.dot(numpy.array(a), numpy.array(b)))",
             ("write-gate-v1/gate-summation-order-16d",), needs=("numpy",)),
    Mutation("math-fsum-similarity", "reference/write_gate.py",
             "    total = 0.0\n    for x, y in zip(a, b, strict=True):\n        total += x * y\n    return total",
             "    return math.fsum(x * y for x, y in zip(a, b))",
             ("write-gate-v1/gate-summation-order-16d", "write-gate-v1/gate-summation-cancellation")),
    Mutation("threshold-as-binary32", "reference/write_gate.py",
             "best_sim >= threshold", "best_sim >= to_binary32(threshold)",
             ("write-gate-v1/gate-threshold-exactly-default",)),
    Mutation("pinned-kept-in-auto", "reference/write_gate.py",
             '(mode == "auto" and candidate.pinned)', "False",
             ("write-gate-v1/gate-pinned-near-auto", "write-gate-v1/gate-pinned-best-skipped-auto")),
    Mutation("nfc-skipped-after-lowercasing", "reference/normalize.py",
             "    text = nfc(text)  # step 5\n", "",
             ("write-gate-v1/norm-nfc-after-lower-h-macron-below", "write-gate-v1/norm-nfc-after-lower-j-caron",
              "write-gate-v1/norm-nfc-after-lower-dotted-i-mark")),
    Mutation("negative-cap-accepted", "reference/host.py",
             "if not 0 <= cap_int <= CAP_MAX:", "if not cap_int <= CAP_MAX:",
             ("dedup-context-v1/ctx-error-cap-negative",)),
]


def check_failing(impl: str, cwd: Path, env: dict[str, str], timeout: float) -> tuple[list[str], str]:
    """(the fixture cases ``python -m harness check --impl IMPL`` fails, read from its results file; its
    output). The results go to a temporary file: a mutant's results never land in reports/."""
    with tempfile.TemporaryDirectory(prefix="check-") as scratch:
        results = Path(scratch) / "results.json"
        proc = subprocess.run([sys.executable, "-m", "harness", "check", "--impl", impl, "--results", str(results)],
                              cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
        try:
            rows = json.loads(results.read_text(encoding="utf-8"))["results"]
        except (OSError, ValueError, KeyError) as exc:
            raise AssertionError(f"check --impl {impl} wrote no results ({exc}):\n{proc.stdout[-2000:]}"
                                 f"{proc.stderr[-2000:]}") from None
    return [f"{row['fixture']}/{row['case']}" for row in rows if row["state"] == "fail"], proc.stdout + proc.stderr


def run_mutation(mutation: Mutation) -> tuple[list[str], str]:
    """Apply ``mutation`` in a scratch tree and return (failing case ids, output)."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as scratch:
        tree = Path(scratch)
        shutil.copytree(ROOT / "reference", tree / "reference")
        for name in ("harness", "fixtures"):
            os.symlink(ROOT / name, tree / name)
        apply(mutation, tree)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree)] + sys.path[1:]))
        return check_failing("reference", tree, env, 300)


# The bindings convert every argument in one generic place: memgate_ops! (rust_core/core/src/host.rs) expands one
# exported function per op in each binding, and each binding's `trace` converts an op's arguments by its parameter
# names. A bug of one parameter is planted there, conditioned on that parameter's name (and the op's, where another
# op has a parameter of the same name), so that the op and its trace both carry it, as the per-op conversion
# functions the bindings once had (before 41209ae) carried it to both.
PYO3_LIB = "rust_core/python/src/lib.rs"
WASM_LIB = "rust_core/wasm/src/lib.rs"
_PYO3_RAISE = "fn raise<T>(r: Result<T, Error>) -> PyResult<T> {\n"
_PYO3_OPS = "raise(host::$name($(optional(&$req),)* $(optional(&$opt)),*))"
_PYO3_TRACE = "let values: Vec<HostValue<'_>> = given.iter().map(optional).collect();"
_WASM_THROW = "fn throw(r: Result<String, Error>) -> Result<String, JsError> {\n"
_WASM_OPS = "throw(host::$name($(host_value(&$req),)* $(host_value(&$opt)),*))"
_WASM_TRACE = "        .take(count)\n        .map(host_value)\n"
_WASM_MACRO = "macro_rules! wasm_ops {\n"
_WASM_TYPES = ("$(#[wasm_bindgen(js_name = $req_js)] $req: JsValue,)*\n"
               "                $(#[wasm_bindgen(js_name = $opt_js)] $opt: JsValue),*")


def pyo3_param_mutation(name: str, body: str, must_fail: tuple[str, ...] = (), needs: tuple[str, ...] = ()) -> Mutation:
    """A bug of the PyO3 binding's conversion of one parameter: ``body`` is the Rust body of
    ``fn planted_param<'a>(param: &str, arg: &'a HostArg<'_>) -> PyResult<HostValue<'a>>``, which every op's
    function and ``trace`` call for each argument in place of ``optional(arg)`` (and may fail, raised as is)."""
    hook = (f"fn planted_param<'a>(param: &str, arg: &'a HostArg<'_>) -> PyResult<HostValue<'a>> {{\n{body}}}\n\n")
    return Mutation(name, PYO3_LIB, _PYO3_RAISE, hook + _PYO3_RAISE, must_fail, needs, more=(
        (_PYO3_OPS, "raise(host::$name($(planted_param(stringify!($req), &$req)?,)* "
                    "$(planted_param(stringify!($opt), &$opt)?),*))"),
        (_PYO3_TRACE, "let values = given.iter().zip(signature.params).map(|(arg, param)| planted_param(param, arg))\n"
                      "        .collect::<PyResult<Vec<HostValue<'_>>>>()?;"),
    ))


def wasm_param_mutation(name: str, body: str, must_fail: tuple[str, ...] = ()) -> Mutation:
    """A bug of the WASM binding's conversion of one parameter: ``body`` is the Rust body of
    ``fn planted_param(param: &str, value: &JsValue) -> HostValue<'static>``, which every op's function and
    ``trace`` call for each argument in place of ``host_value(value)``."""
    hook = f"fn planted_param(param: &str, value: &JsValue) -> HostValue<'static> {{\n{body}}}\n\n"
    return Mutation(name, WASM_LIB, _WASM_THROW, hook + _WASM_THROW, must_fail, more=(
        (_WASM_OPS, "throw(host::$name($(planted_param(stringify!($req), &$req),)* "
                    "$(planted_param(stringify!($opt), &$opt)),*))"),
        (_WASM_TRACE, "        .take(count)\n"
                      "        .zip(host::op(&name).map_or(&[][..], |signature| signature.params))\n"
                      "        .map(|(value, param)| planted_param(param, value))\n"),
    ))


def wasm_typed_mutation(name: str, op: str, param: str, rust_type: str, value: str,
                        must_fail: tuple[str, ...]) -> Mutation:
    """One parameter of one op declared to wasm-bindgen as ``rust_type`` in place of ``JsValue``, so the generated
    glue converts the JavaScript value before this binding sees it; ``value`` is the Rust expression of its host
    value, ``$value`` the argument. Only that op's exported function changes (its trace takes ``JsValue``s, as
    before 41209ae)."""
    helpers = ("macro_rules! planted_type {\n"
               f"    ({op} {param}) => {{ {rust_type} }};\n"
               "    ($op:ident $param:ident) => { JsValue };\n}\n\n"
               "macro_rules! planted_value {\n"
               f"    ({op} {param} $value:ident) => {{ {value} }};\n"
               "    ($op:ident $param:ident $value:ident) => { host_value(&$value) };\n}\n\n")
    return Mutation(name, WASM_LIB, _WASM_MACRO, helpers + _WASM_MACRO, must_fail, more=(
        (_WASM_TYPES, "$(#[wasm_bindgen(js_name = $req_js)] $req: planted_type!($name $req),)*\n"
                      "                $(#[wasm_bindgen(js_name = $opt_js)] $opt: planted_type!($name $opt)),*"),
        (_WASM_OPS, "throw(host::$name($(planted_value!($name $req $req),)* $(planted_value!($name $opt $opt)),*))"),
    ))


RUST_WS = "        '\\u{9}'..='\\u{D}'\n            | '\\u{20}'\n            | '\\u{85}'\n"
RUST_SUMS = (
    "    let mut dot = 0.0_f64;\n    let mut na = 0.0_f64;\n    let mut nb = 0.0_f64;\n"
    "    for (x, y) in a.iter().zip(b) {\n        dot += x * y;\n        na += x * x;\n        nb += y * y;\n    }\n"
)
RUST_MUTATIONS = [
    Mutation("white-space-accepts-u001c-u001f", "rust_core/core/src/normalize.rs", RUST_WS,
             RUST_WS.replace("| '\\u{20}'", "| '\\u{1C}'..='\\u{1F}'\n            | '\\u{20}'"),
             ("write-gate-v1/norm-not-ws-u001c", "dedup-context-v1/ctx-u001c-line-edges")),
    Mutation("white-space-accepts-ufeff", "rust_core/core/src/normalize.rs", RUST_WS,
             RUST_WS.replace("| '\\u{20}'", "| '\\u{FEFF}'\n            | '\\u{20}'"),
             ("write-gate-v1/norm-not-ws-ufeff",)),
    Mutation("white-space-misses-u0085", "rust_core/core/src/normalize.rs", RUST_WS,
             RUST_WS.replace("            | '\\u{85}'\n", ""),
             ("write-gate-v1/norm-ws-inside-u0085", "write-gate-v1/norm-ws-edges-u0085")),
    Mutation("greater-than-for-at-least", "rust_core/core/src/write_gate.rs",
             "*sim >= threshold", "*sim > threshold", ("write-gate-v1/gate-threshold-exactly-default",)),
    Mutation("binary32-accumulation", "rust_core/core/src/write_gate.rs", RUST_SUMS,
             "    let mut dot = 0.0_f32;\n    let mut na = 0.0_f32;\n    let mut nb = 0.0_f32;\n"
             "    for (x, y) in a.iter().zip(b) {\n        let (x, y) = (*x as f32, *y as f32);\n"
             "        dot += x * y;\n        na += x * x;\n        nb += y * y;\n    }\n"
             "    let (dot, na, nb) = (f64::from(dot), f64::from(na), f64::from(nb));\n",
             ("write-gate-v1/gate-summation-order-16d",)),
    Mutation("pinned-kept-in-auto", "rust_core/core/src/write_gate.rs",
             "if mode == Mode::Auto && c.pinned {", "if mode == Mode::Auto && c.pinned && false {",
             ("write-gate-v1/gate-pinned-near-auto",)),
    Mutation("cap-off-by-one", "rust_core/core/src/dedup_context.rs",
             "if lines.len() >= cap {", "if lines.len() > cap {", ("dedup-context-v1/ctx-cap-after-pinned",)),
    Mutation("cap-wrapped-in-host-helper", "rust_core/core/src/host.rs",
             "    u32::try_from(v).map_err(|_| cap_error(v))\n",
             ("    if v < i128::MAX {\n        return Ok(v as u32);\n    }\n"
              "    u32::try_from(v).map_err(|_| cap_error(v))\n"),
             ("dedup-context-v1/ctx-error-cap-negative", "dedup-context-v1/ctx-error-cap-two-pow-32")),
    # What the sweep found in the PyO3 binding (a str's code points read as UTF-16): a high lone
    # surrogate followed by a low one became U+10000.
    Mutation("code-points-paired-as-utf16", "rust_core/core/src/host.rs",
             "    let decoded = points.iter().map(|&p| char::from_u32(p).ok_or(p));\n",
             "    let units: Vec<u16> = points.iter().map(|&p| p as u16).collect();\n"
             "    if points.iter().all(|&p| p <= 0xFFFF) {\n        if let Ok(s) = String::from_utf16(&units) {\n"
             "            return Ok(s);\n        }\n    }\n"
             "    let decoded = points.iter().map(|&p| char::from_u32(p).ok_or(p));\n",
             ("write-gate-v1/norm-error-adjacent-high-low-surrogates",
              "write-gate-v1/gate-error-json-raw-adjacent-high-low-surrogates")),
    # Binding-only: the Rust fixture test drives the core, not the PyO3 crate, so only Python sees it.
    pyo3_param_mutation("pyo3-cap-as-usize-unchecked",
                        "    Ok(match (param, arg) {\n"
                        "        (\"cap\", HostArg::Given(obj)) => {\n"
                        "            HostValue::Int(Some(obj.extract::<usize>()? as i128))\n        }\n"
                        "        _ => optional(arg),\n    })\n",
                        ("dedup-context-v1/ctx-error-cap-negative", "dedup-context-v1/ctx-error-cap-boolean"),
                        needs=("binding-only",)),
]
WASM_MUTATIONS = [
    wasm_typed_mutation("wasm-cap-as-usize", "build_dedup_context", "cap", "Option<usize>",
                        "host_value(&$value.map_or(JsValue::UNDEFINED, |c| JsValue::from_f64(c as f64)))",
                        ("dedup-context-v1/ctx-error-cap-negative", "dedup-context-v1/ctx-error-cap-fractional")),
    wasm_typed_mutation("wasm-text-as-rust-string", "normalize_fact_text", "text", "String",
                        "HostValue::Str(Cow::Owned($value))",
                        ("write-gate-v1/norm-error-lone-high-surrogate",
                         "write-gate-v1/norm-error-lone-low-surrogate")),
    Mutation("panic-on-empty-candidate-list", "rust_core/core/src/write_gate.rs",
             "    let candidates = candidates_from(&candidates_doc, obs)?;\n",
             "    let candidates = candidates_from(&candidates_doc, obs)?;\n"
             "    if candidates.is_empty() {\n        panic!(\"no candidates\");\n    }\n",
             ("write-gate-v1/gate-no-candidates-empty", "write-gate-v1/gate-no-candidates-null")),
]
RUST_FAIL = re.compile(r"^(?P<case>[a-z0-9-]+-v[0-9]+/[a-z0-9-]+) \(")


def copy_rust_core(dest: Path) -> None:
    """rust_core/ (without its target folder) copied to ``dest``, every file stamped now.

    The planted builds share cargo target folders, and cargo names a path package's artifacts by its path
    relative to the workspace, the same in every scratch copy; it rebuilds only what changed after the last
    build. A copy keeping the files' own times would look older than the last planted build, and a file
    planted last time but not this time would not be rebuilt: the earlier bug would ride along (a CI plant
    run showed another plant's JSON bug in a binding plant).

    The folders next to rust_core/ that its sources read (the core's tests include families/memgate.json) are
    linked next to the copy, unless the copy's tree has them already: without them the core's tests do not
    compile, and a planted test run would fail for that rather than for the plant."""
    shutil.copytree(ROOT / "rust_core", dest, ignore=shutil.ignore_patterns("target"))
    for path in dest.rglob("*"):
        if path.is_file():
            os.utime(path)
    link_rust_core_reads(dest)


RUST_CORE_READS = ("families",)  # folders beside rust_core/ that its sources read (include_str!)


def link_rust_core_reads(dest: Path) -> None:
    """Link each folder of RUST_CORE_READS beside ``dest`` (a copy of rust_core/) unless one is there."""
    for name in RUST_CORE_READS:
        beside = dest.parent / name
        if not beside.exists() and not beside.is_symlink():
            os.symlink(ROOT / name, beside)


def _rust_tree(mutation: Mutation, scratch: Path) -> Path:
    tree = scratch / "tree"
    copy_rust_core(tree / "rust_core")
    os.symlink(ROOT / "fixtures", tree / "fixtures")
    apply(mutation, tree)
    return tree


def maturin() -> str:
    """maturin next to this interpreter (its virtualenv's scripts: a venv's python run without activating it), else
    the one on PATH."""
    beside = Path(sys.executable).parent / "maturin"
    found = str(beside) if beside.is_file() else shutil.which("maturin")
    if found is None:
        raise AssertionError("maturin is not installed next to this Python nor on PATH (pip install maturin)")
    return found


def run_rust_mutation(mutation: Mutation) -> tuple[list[str] | None, list[str], str]:
    """(failing ids in cargo test, or None for a binding-only mutation; failing ids through PyO3; output)."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(ROOT / "rust_core" / "target" / "mutants"))
    with tempfile.TemporaryDirectory(prefix="mutant-rs-") as scratch_name:
        scratch = Path(scratch_name)
        tree = _rust_tree(mutation, scratch)
        manifest = str(tree / "rust_core" / "Cargo.toml")
        output = ""
        rust_failing: list[str] | None = None
        if "binding-only" not in mutation.needs:
            proc = subprocess.run(["cargo", "test", "--manifest-path", manifest, "-p", "memgate-fixture-tests",
                                   "--test", "fixtures"], env=env,
                                  capture_output=True, text=True, timeout=1800, check=False)
            output += proc.stdout + proc.stderr
            if "error[E" in proc.stderr or "could not compile" in proc.stderr:
                raise AssertionError(f"{mutation.name}: the mutant does not compile:\n{proc.stderr[-3000:]}")
            rust_failing = [m["case"] for line in output.splitlines() if (m := RUST_FAIL.match(line))]
        wheels = scratch / "wheels"
        proc = subprocess.run([maturin(), "build", "--manifest-path", str(tree / "rust_core" / "python" / "Cargo.toml"),
                               "--out", str(wheels),
                               "--interpreter", sys.executable], env=env, capture_output=True, text=True, timeout=1800,
                              check=False)
        if proc.returncode != 0:
            raise AssertionError(f"{mutation.name}: maturin build failed:\n{proc.stderr[-3000:]}")
        site = scratch / "site"
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                        *map(str, wheels.glob("*.whl"))], check=True, capture_output=True)
        py_env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
        py_failing, checked = check_failing("pyo3", ROOT, py_env, 600)
        output += checked
    return rust_failing, py_failing, output


def run_wasm_mutation(mutation: Mutation) -> tuple[list[str], str]:
    """Build the WASM package from a mutated copy and run every fixture case on it through the testee."""
    with tempfile.TemporaryDirectory(prefix="mutant-wasm-") as scratch_name:
        scratch = Path(scratch_name)
        tree = _rust_tree(mutation, scratch)
        pkg = scratch / "pkg"
        proc = subprocess.run([sys.executable, str(ROOT / "wasm_host" / "build.py"), "--crate", str(tree / "rust_core"),
                               "--target-dir", str(ROOT / "rust_core" / "target" / "wasm-mutants"), "--out", str(pkg)],
                              capture_output=True, text=True, timeout=3600, check=False)
        if proc.returncode != 0:
            raise AssertionError(f"{mutation.name}: the wasm build failed:\n{proc.stderr[-3000:]}")
        env = dict(os.environ, MEMGATE_WASM_PKG=str(pkg), PARITY_REQUEST_TIMEOUT="10")
        return check_failing("wasm", ROOT, env, 900)


def _show(label: str, failing: list[str]) -> None:
    print(f"  {label}: {'CAUGHT' if failing else 'NOT CAUGHT'} by {len(failing)} case(s)")
    for case_id in failing[:12]:
        print(f"    {case_id}")
    if len(failing) > 12:
        print(f"    ... and {len(failing) - 12} more")


def caught(mutation: Mutation, *failing: list[str] | None) -> bool:
    """Every suite that can see the mutation fails, each on at least the cases the mutation names."""
    return all(ids and set(mutation.must_fail) <= set(ids) for ids in failing if ids is not None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.tools.mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rust", action="store_true", help="also plant the Rust mutations (slow: one build each)")
    parser.add_argument("--wasm", action="store_true", help="also plant the WASM binding mutations (one build each)")
    parser.add_argument("--only", default=None, help="run only mutations whose name contains this text")
    args = parser.parse_args(argv)
    plans: list[tuple[str, list[Mutation]]] = [("reference", REFERENCE_MUTATIONS)]
    plans += [("rust core", RUST_MUTATIONS)] if args.rust else []
    plans += [("wasm binding", WASM_MUTATIONS)] if args.wasm else []
    status = 0
    for layer, mutations in plans:
        for mutation in mutations:
            if args.only and args.only not in mutation.name:
                continue
            missing = [n for n in mutation.needs if n != "binding-only" and importlib.util.find_spec(n) is None]
            if missing:  # never a silent pass: the mutants session installs the extra that has them
                print(f"{layer} / {mutation.name}: NOT RUN, needs {', '.join(missing)} "
                      "(pip install -e '.[mutants]'; nox -s mutants does)")
                status = 1
                continue
            print(f"{layer} / {mutation.name}")
            if layer == "reference":
                failing, output = run_mutation(mutation)
                results: list[tuple[str, list[str] | None]] = [("fixture suite", failing)]
            elif layer == "rust core":
                rust_failing, py_failing, output = run_rust_mutation(mutation)
                results = [("cargo test", rust_failing), ("Python fixture suite via PyO3", py_failing)]
            else:
                failing, output = run_wasm_mutation(mutation)
                results = [("fixture suite via the WASM testee", failing)]
            for label, ids in results:
                if ids is None:
                    print(f"  {label}: not applicable (binding-only mutation)")
                else:
                    _show(label, ids)
            if not caught(mutation, *(ids for _, ids in results)):
                status = 1
                print(f"  NOT CAUGHT as required: each suite must fail at least {', '.join(mutation.must_fail)}")
                print(output[-3000:])
    return status


if __name__ == "__main__":
    from harness.model.status import exit_with

    exit_with(main)
