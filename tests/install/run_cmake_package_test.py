#!/usr/bin/env python3
"""The install test of the C++ side: install a build, then use it from another project.

    run_cmake_package_test.py --build-dir BUILD [--cmake CMAKE] [--keep]

1. ``cmake --install BUILD --prefix TMP/prefix`` (nothing is rebuilt: the build must be done);
   the headers, libraries, CLI and CMake package files must be there, no installed binary may
   keep a RUNPATH into the build tree, and the package files must not mention LLVM;
2. the installed ``minitvm`` CLI runs (``show`` on a TVMScript file), also after the prefix is
   moved elsewhere (its RUNPATH is relative: $ORIGIN/../lib);
3. tests/install/consumer, a separate project, is configured with ``find_package(minitvm)``
   against the prefix (with LLVM's package disabled: consumers must not need it), built and run:
   with stage 5 it compiles, exports and deploys a Relax model through the runtime API.

Prints ``OK: ...`` and exits with 0 when every step passed. The temporary folder is removed
unless --keep is given (or a step failed, when it is kept for inspection).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


class Failure(Exception):
    """A step of the test failed."""


def run(cmd, cwd=None, env=None):
    """Runs `cmd`; raises Failure with its output when it exits non-zero."""
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    if proc.returncode != 0:
        raise Failure(f"{' '.join(cmd)} exited with {proc.returncode}:\n{proc.stdout}")
    return proc.stdout


def cache_value(build_dir, name):
    """The value of `name` in BUILD/CMakeCache.txt, or None."""
    with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            m = re.match(rf"^{re.escape(name)}:[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                return m.group(1)
    return None


def clean_env():
    """The environment without variables that would let a broken install pass."""
    env = dict(os.environ)
    for var in ("LD_LIBRARY_PATH", "PYTHONPATH", "MINITVM_BUILD_DIR", "CMAKE_PREFIX_PATH"):
        env.pop(var, None)
    return env


def runpaths(path):
    """The RUNPATH/RPATH entries of an ELF file (via readelf), or None without readelf."""
    readelf = shutil.which("readelf")
    if readelf is None:
        return None
    out = run([readelf, "-d", path])
    found = []
    for m in re.finditer(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[(.*)\]", out):
        found.extend(m.group(1).split(":"))
    return found


def check_install(prefix, build_dir, max_stage):
    """Step 1: what the install wrote."""
    libdir = "lib"
    for candidate in ("lib", "lib64", os.path.join("lib", "x86_64-linux-gnu")):
        if os.path.exists(os.path.join(prefix, candidate, "cmake", "minitvm")):
            libdir = candidate
    stages = ["lownumpy", "tensorir", "schedule", "relax", "vm_codegen"][:max_stage]
    expected = [
        "include/minitvm/runtime/ndarray.h",
        "include/minitvm/lownumpy/lownumpy.h",
        f"{libdir}/cmake/minitvm/minitvmConfig.cmake",
        f"{libdir}/cmake/minitvm/minitvmConfigVersion.cmake",
        f"{libdir}/cmake/minitvm/minitvmTargets.cmake",
        f"{libdir}/libminitvm_lownumpy.so",
    ]
    if max_stage >= 2:
        expected += ["bin/minitvm", "include/minitvm/script/tir_parser.h",
                     f"{libdir}/libminitvm_tensorir.so"]
    if max_stage >= 5:
        expected += ["include/minitvm/relax_vm/build.h", f"{libdir}/libminitvm_vm_codegen.so"]
    missing = [p for p in expected if not os.path.exists(os.path.join(prefix, p))]
    if missing:
        raise Failure(f"not installed: {', '.join(missing)}")

    binaries = [os.path.join(prefix, libdir, f) for f in os.listdir(os.path.join(prefix, libdir))
                if f.startswith("libminitvm_")]
    if max_stage >= 2:
        binaries.append(os.path.join(prefix, "bin", "minitvm"))
    build_real = os.path.realpath(build_dir)
    for binary in binaries:
        paths = runpaths(binary)
        if paths is None:
            break
        if not any(p.startswith("$ORIGIN") for p in paths):
            raise Failure(f"{binary}: RUNPATH {paths} has no $ORIGIN entry")
        bad = [p for p in paths if os.path.isabs(p) and os.path.realpath(p).startswith(build_real)]
        if bad:
            raise Failure(f"{binary}: RUNPATH {paths} points into the build tree")

    cmake_dir = os.path.join(prefix, libdir, "cmake", "minitvm")
    targets_text = ""
    for name in sorted(os.listdir(cmake_dir)):
        with open(os.path.join(cmake_dir, name), encoding="utf-8") as f:
            text = f.read()
        if name.startswith("minitvmTargets"):
            targets_text += text
            # (IMPORTED_LINK_DEPENDENT_LIBRARIES may name it: CMake ignores non-targets there.)
            for line in text.splitlines():
                if line.strip().startswith("INTERFACE_") and "LLVM" in line:
                    raise Failure(f"{name} makes LLVM a usage requirement: {line.strip()}")
    for stage in stages:
        if f"minitvm::{stage}" not in targets_text:
            raise Failure(f"minitvmTargets.cmake does not export minitvm::{stage}")
    print(f"installed: {len(binaries)} binaries with relative RUNPATHs, "
          f"targets {', '.join('minitvm::' + s for s in stages)}")
    return libdir


def check_cli(prefix, env):
    """Step 2: the installed command-line tool runs."""
    script = os.path.join(REPO, "tests", "stage2", "ir_text", "course_vector_add_old.tvms")
    out = run([os.path.join(prefix, "bin", "minitvm"), "show", script], env=env)
    if "T.prim_func" not in out:
        raise Failure(f"minitvm show printed no PrimFunc:\n{out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--cmake", default=shutil.which("cmake") or "cmake")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build_dir)
    max_stage = int(cache_value(build_dir, "MINITVM_MAX_STAGE") or 5)
    env = clean_env()

    tmp = tempfile.mkdtemp(prefix="minitvm-install-")
    ok = False
    try:
        prefix = os.path.join(tmp, "prefix")
        run([args.cmake, "--install", build_dir, "--prefix", prefix], env=env)
        check_install(prefix, build_dir, max_stage)
        if max_stage >= 2:
            check_cli(prefix, env)
            moved = os.path.join(tmp, "moved-prefix")
            shutil.copytree(prefix, moved, symlinks=True)
            check_cli(moved, env)
            shutil.rmtree(moved)
            print("installed CLI runs (also from a moved copy of the prefix)")

        consumer_build = os.path.join(tmp, "consumer-build")
        configure = [args.cmake, "-S", os.path.join(HERE, "consumer"), "-B", consumer_build,
                     f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON",
                     "-DCMAKE_BUILD_TYPE="]
        for var in ("CMAKE_CXX_COMPILER", "CMAKE_MAKE_PROGRAM"):
            value = cache_value(build_dir, var)
            if value:
                configure.append(f"-D{var}={value}")
        generator = cache_value(build_dir, "CMAKE_GENERATOR")
        if generator:
            configure += ["-G", generator]
        ccache = shutil.which("ccache")
        if ccache:
            configure.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={ccache}")
        out = run(configure, env=env)
        found = [line for line in out.splitlines() if "-- minitvm " in line]
        print("consumer configured:", found[0].strip("- ") if found else "(no status line)")
        run([args.cmake, "--build", consumer_build], env=env)
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        out = run([os.path.join(consumer_build, "consumer"), work], cwd=work, env=env)
        sys.stdout.write(out)
        if "OK: " not in out:
            raise Failure("the consumer printed no OK line")
        ok = True
    except Failure as err:
        print(f"FAILED: {err}", file=sys.stderr)
    finally:
        if ok and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"(temporary files kept in {tmp})", file=sys.stderr)
    if ok:
        print("OK: installed minitvm and used it from a separate CMake project")
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
