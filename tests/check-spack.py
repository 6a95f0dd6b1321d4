#!/usr/bin/env python3
"""Check the Spack package (spack/packages/xchg/package.py) without Spack.

1. It parses, and it loads under a small stand-in for Spack's package DSL
   (spack.package): its versions, variants and dependencies are read.
2. For every combination of its variants (and with/without tests), the CMake
   arguments of cmake_args() name only options CMakeLists.txt declares
   (option(...)) or FindMPI's MPI_C_COMPILER, each with a boolean or a path.
3. With --cmake, CMake configures this source tree with the arguments of
   all variants on and of all off (each in a temporary build directory): the
   configuration must succeed and use every argument (no "Manually-specified
   variables were not used" warning),
   and with ~tuning the build must say it cannot read tuning files.

Usage: tests/check-spack.py [--cmake CMAKE --mpicc MPICC]
Prints "N passed, N failed"; exit status 1 if anything failed.
"""
import argparse
import ast
import itertools
import os
import re
import subprocess
import sys
import tempfile
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "spack", "packages", "xchg", "package.py")
REPO_YAML = os.path.join(ROOT, "spack", "repo.yaml")
VARIANTS = ["hwloc", "tuning", "python", "apps"]


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok


class Spec:
    """What cmake_args() and the install hook ask of a concretized spec."""

    def __init__(self, variants, mpicc):
        self.variants = variants
        self.mpicc = mpicc

    def satisfies(self, constraint):
        m = re.fullmatch(r"([+~])(\w+)", constraint)
        if not m:
            raise ValueError("stand-in spec: cannot evaluate " + constraint)
        return self.variants[m.group(2)] == (m.group(1) == "+")

    def __getitem__(self, name):
        if name == "mpi":
            return types.SimpleNamespace(mpicc=self.mpicc)
        raise KeyError(name)


def stand_in_spack(record):
    """A module spack.package with the directives package.py uses; each
    records what it declares into record."""
    module = types.ModuleType("spack.package")

    def directive(kind):
        def declare(*args, **kwargs):
            record.setdefault(kind, []).append((args, kwargs))
        return declare

    for kind in ("version", "variant", "depends_on", "extends", "license", "conflicts",
                 "maintainers", "requires", "provides", "patch", "resource"):
        setattr(module, kind, directive(kind))

    def run_after(*phases, **_):
        def decorate(function):
            record.setdefault("run_after", []).append((phases, function.__name__))
            return function
        return decorate

    class CMakePackage:
        run_tests = False

        def __init__(self, spec):
            self.spec = spec

        @staticmethod
        def define(name, value):
            if isinstance(value, bool):
                value = "ON" if value else "OFF"
            return "-D%s=%s" % (name, value)

        def define_from_variant(self, name, variant):
            if variant not in dict(self.variant_names()):
                raise KeyError("define_from_variant: no variant " + variant)
            return self.define(name, self.spec.variants[variant])

        @classmethod
        def variant_names(cls):
            return [(args[0], kw) for args, kw in record.get("variant", [])]

    module.CMakePackage = CMakePackage
    module.run_after = run_after
    module.working_dir = lambda path: None
    module.join_path = os.path.join
    module.__all__ = [n for n in dir(module) if not n.startswith("_")]
    spack = types.ModuleType("spack")
    spack.package = module
    return {"spack": spack, "spack.package": module}


def load_package(record):
    saved = {k: sys.modules.get(k) for k in ("spack", "spack.package")}
    sys.modules.update(stand_in_spack(record))
    try:
        namespace = {"__name__": "xchg_spack_package"}
        with open(PACKAGE) as f:
            exec(compile(f.read(), PACKAGE, "exec"), namespace)
        return namespace["Xchg"]
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def cmake_options():
    """The options CMakeLists.txt declares, and FindMPI's MPI_C_COMPILER."""
    names = {"MPI_C_COMPILER"}
    for dirpath, dirs, files in os.walk(ROOT):
        if dirpath == ROOT:  # not the build trees, not .git
            dirs[:] = [d for d in dirs if not d.startswith(("build", "."))]
        for f in files:
            if f == "CMakeLists.txt" or f.endswith(".cmake"):
                with open(os.path.join(dirpath, f)) as text:
                    names.update(re.findall(r"^\s*option\(\s*(\w+)", text.read(), re.M))
    return names


def arguments(cls, variants, mpicc, run_tests):
    package = cls(Spec(variants, mpicc))
    package.run_tests = run_tests
    return package.cmake_args()


def configure(cmake, args, label, results):
    """CMake must configure with args and use all of them."""
    with tempfile.TemporaryDirectory(prefix="xchg-spack-") as build:
        proc = subprocess.run([cmake, "-S", ROOT, "-B", build] + args,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout
    ok = results.check(proc.returncode == 0, "cmake configures with %s: %s" % (label, " ".join(args)))
    if not ok:
        print("\n".join("   | " + line for line in out.splitlines()[-25:]))
    # CMake warns of every -D the project never reads.
    unused = "Manually-specified variables were not used" in out
    if ok and not results.check(not unused, "cmake uses every argument (%s)" % label):
        print("\n".join("   | " + line for line in out.splitlines() if line.strip()))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cmake", help="configure with this cmake (step 3)")
    parser.add_argument("--mpicc", default="mpicc", help="the MPI compiler wrapper for step 3")
    opts = parser.parse_args()
    results = Results()

    with open(PACKAGE) as f:
        source = f.read()
    try:
        ast.parse(source, PACKAGE)
        results.check(True, "package.py parses")
    except SyntaxError as e:
        results.check(False, "package.py parses: %s" % e)
        return results
    with open(REPO_YAML) as f:
        namespace = re.search(r"^\s+namespace:\s*(\S+)", f.read(), re.M)
    results.check(namespace is not None and namespace.group(1) == "xchg",
                  "spack/repo.yaml names the namespace xchg")

    record = {}
    cls = load_package(record)
    results.check(any(base.__name__ == "CMakePackage" for base in cls.__mro__[1:]),
                  "class Xchg is a CMakePackage")
    declared = [args[0] for args, _ in record.get("variant", [])]
    results.check(sorted(declared) == sorted(VARIANTS),
                  "variants are %s (found %s)" % (", ".join(VARIANTS), ", ".join(declared)))
    deps = {args[0]: kw.get("when") for args, kw in record.get("depends_on", [])}
    results.check("mpi" in deps and deps["mpi"] is None, "depends on the mpi virtual")
    for dep, when in (("hwloc", "+hwloc"), ("jansson", "+tuning"), ("fftw+mpi", "+apps"),
                      ("hypre", "+apps"), ("py-mpi4py@3.1:", "+python")):
        results.check(deps.get(dep) == when, "depends on %s when %s" % (dep, when))
    versions = [args[0] for args, _ in record.get("version", [])]
    results.check(bool(versions), "declares versions: %s" % ", ".join(versions))

    known = cmake_options()
    bad = set()
    for values in itertools.product([False, True], repeat=len(VARIANTS)):
        variants = dict(zip(VARIANTS, values))
        for run_tests in (False, True):
            for arg in arguments(cls, variants, opts.mpicc, run_tests):
                m = re.fullmatch(r"-D(\w+)(?::\w+)?=(.*)", arg)
                if not m or m.group(1) not in known or (
                        m.group(1) != "MPI_C_COMPILER" and m.group(2) not in ("ON", "OFF")):
                    bad.add(arg)
    results.check(not bad, "cmake_args of all %d variant combinations name options of "
                  "CMakeLists.txt%s" % (2 ** len(VARIANTS), "; not: " + ", ".join(sorted(set(bad)))
                                        if bad else ""))
    on = dict.fromkeys(VARIANTS, True)
    off = dict.fromkeys(VARIANTS, False)
    results.check(arguments(cls, on, "mpicc", False) != arguments(cls, off, "mpicc", False),
                  "the variants change the CMake arguments")

    if opts.cmake:
        configure(opts.cmake, arguments(cls, on, opts.mpicc, False), "all variants on", results)
        out = configure(opts.cmake, arguments(cls, off, opts.mpicc, False), "all variants off",
                        results)
        results.check("cannot read tuning files" in out,
                      "~tuning: the build says it cannot read tuning files")
    return results


if __name__ == "__main__":
    r = main()
    print("%d passed, %d failed" % (r.passed, r.failed))
    sys.exit(1 if r.failed else 0)
