"""The PEP 517 build backend of minitvm: ``pip install .`` and ``pip wheel .`` run it.

pyproject.toml names it (``build-backend = "minitvm_build_backend"``, ``backend-path =
["python/pep517_backend"]``) and it needs nothing but the standard library, CMake and a
compiler, so it works offline on a plain Debian 12 (docs/building.md says why this and not
scikit-build-core). What it does:

1. a build folder: the one named by ``MINITVM_BUILD_DIR`` or ``--config-settings
   build-dir=DIR`` is used as it is (it must be built already: nothing is recompiled — the
   tests package their build this way); otherwise ``<repo>/build-wheel`` is configured
   (Release, no tests or benchmarks, ``--config-settings max-stage=N`` or
   ``MINITVM_MAX_STAGE``, default 5) and built with CMake;
2. ``cmake --install`` of that folder into ``<tmp>/minitvm``: the libraries (``lib/``), the CLI
   (``bin/``), headers and CMake package, then the ``python`` component (the package sources,
   the extension, ``_build_info.py``) into the same folder, whose RUNPATHs are relative
   (``$ORIGIN/lib``), so the installed package needs no environment variable;
3. a wheel ``minitvm-<version>-<tag>.whl`` written with zipfile: the files, and the
   ``.dist-info`` folder with METADATA, WHEEL, entry_points.txt (the ``minitvm`` console
   script) and RECORD.

``build_sdist`` packs the tracked source files. Editable installs are not offered: use the
source tree with ``PYTHONPATH`` (README).
"""
import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "minitvm"


class BuildError(RuntimeError):
    """A step of the wheel build failed; the message says which and how to fix it."""


# ---- metadata -----------------------------------------------------------------------------
def _version():
    """``__version__`` of python/minitvm/__init__.py (the one source of the version)."""
    path = os.path.join(REPO_ROOT, "python", NAME, "__init__.py")
    with open(path, encoding="utf-8") as f:
        m = re.search(r'^__version__\s*=\s*"([^"]+)"', f.read(), re.M)
    if not m:
        raise BuildError(f"no __version__ = \"...\" line in {path}")
    return m.group(1)


def _project():
    """The [project] table of pyproject.toml."""
    import tomllib  # pylint: disable=import-outside-toplevel  (Python 3.11+)

    with open(os.path.join(REPO_ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f).get("project", {})


def _metadata_text():
    """The METADATA file (core metadata 2.1) from pyproject.toml's [project] table."""
    project = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project.get('name', NAME)}",
        f"Version: {_version()}",
    ]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    license_ = project.get("license", {})
    if isinstance(license_, dict) and "text" in license_:
        lines.append(f"License: {license_['text']}")
    for classifier in project.get("classifiers", []):
        lines.append(f"Classifier: {classifier}")
    for req in project.get("dependencies", []):
        lines.append(f"Requires-Dist: {req}")
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for req in reqs:
            lines.append(f'Requires-Dist: {req}; extra == "{extra}"')
    body = ""
    readme = project.get("readme")
    if isinstance(readme, str) and os.path.exists(os.path.join(REPO_ROOT, readme)):
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(REPO_ROOT, readme), encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def _entry_points_text():
    """entry_points.txt: [project.scripts] as console scripts."""
    scripts = _project().get("scripts", {})
    if not scripts:
        return ""
    return "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items()) + "\n"


def _wheel_tag():
    """cpXY-cpXY-<platform>: the extension is built for this interpreter and machine."""
    impl = {"cpython": "cp"}.get(sys.implementation.name, sys.implementation.name)
    version = f"{sys.version_info.major}{sys.version_info.minor}"
    plat = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{impl}{version}-{impl}{version}-{plat}"


def _dist_info_name():
    return f"{NAME}-{_version()}.dist-info"


def _write_dist_info_files(write):
    """Calls write(relative path, bytes) for each .dist-info file but RECORD."""
    dist_info = _dist_info_name()
    write(f"{dist_info}/METADATA", _metadata_text().encode())
    wheel = (
        "Wheel-Version: 1.0\n"
        "Generator: minitvm_build_backend\n"
        "Root-Is-Purelib: false\n"
        f"Tag: {_wheel_tag()}\n"
    )
    write(f"{dist_info}/WHEEL", wheel.encode())
    write(f"{dist_info}/top_level.txt", f"{NAME}\n".encode())
    entry_points = _entry_points_text()
    if entry_points:
        write(f"{dist_info}/entry_points.txt", entry_points.encode())


# ---- the build folder ---------------------------------------------------------------------
def _setting(config_settings, key, env=None):
    """-C key=value (pip's --config-settings) first, then the environment variable `env`."""
    value = (config_settings or {}).get(key)
    if value is None and env:
        value = os.environ.get(env)
    return value or None


def _run(cmd, what):
    print(f"minitvm_build_backend: {' '.join(cmd)}", file=sys.stderr, flush=True)
    # The build's output goes to stderr: pip shows it with -v, and stdout stays clean.
    proc = subprocess.run(cmd, stdout=sys.stderr, stderr=sys.stderr, check=False)
    if proc.returncode != 0:
        raise BuildError(f"{what} failed (exit status {proc.returncode}): {' '.join(cmd)}")


def _cmake():
    cmake = shutil.which("cmake")
    if cmake is None:
        raise BuildError("cmake is not on PATH: install CMake 3.20 or later (apt install cmake)")
    return cmake


def _prepare_build_dir(config_settings):
    """The build folder to package: a given one as it is, else build-wheel/ (configured and
    built here)."""
    given = _setting(config_settings, "build-dir", "MINITVM_BUILD_DIR")
    if given:
        build_dir = os.path.abspath(given)
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            raise BuildError(
                f"{build_dir} is not a configured CMake build folder (no CMakeCache.txt); "
                "build minitvm there first or leave MINITVM_BUILD_DIR unset"
            )
        return build_dir

    build_dir = os.path.join(REPO_ROOT, "build-wheel")
    cmake = _cmake()
    max_stage = _setting(config_settings, "max-stage", "MINITVM_MAX_STAGE") or "5"
    configure = [
        cmake, "-S", REPO_ROOT, "-B", build_dir,
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DMINITVM_MAX_STAGE={max_stage}",
        f"-DPython3_EXECUTABLE={sys.executable}",
        "-DMINITVM_BUILD_PYTHON=ON",
        "-DMINITVM_BUILD_TESTS=OFF",
        "-DMINITVM_BUILD_BENCH=OFF",
    ]
    if shutil.which("ninja") and not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        configure += ["-G", "Ninja"]
    _run(configure, "configuring minitvm")
    build = [cmake, "--build", build_dir]
    jobs = _setting(config_settings, "jobs", "CMAKE_BUILD_PARALLEL_LEVEL")
    if jobs:
        build += ["--parallel", jobs]
    _run(build, "building minitvm")
    return build_dir


def _stage_package(build_dir, staging):
    """cmake --install the build into staging/minitvm (every default component, then the
    python component); returns that folder."""
    cmake = _cmake()
    package_dir = os.path.join(staging, NAME)
    _run([cmake, "--install", build_dir, "--prefix", package_dir], "installing the libraries")
    _run(
        [cmake, "--install", build_dir, "--prefix", package_dir, "--component", "python"],
        "installing the Python package",
    )
    ext_suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    extensions = [f for f in os.listdir(package_dir) if f.startswith("_ffi_core")]
    if not extensions:
        raise BuildError(
            f"{build_dir} has no Python extension _ffi_core: configure it with "
            "-DMINITVM_BUILD_PYTHON=ON and build it"
        )
    if not any(f.endswith(ext_suffix) for f in extensions):
        raise BuildError(
            f"the extension {extensions[0]} of {build_dir} was built for another Python than "
            f"{sys.executable} (which wants *{ext_suffix}); configure the build with "
            f"-DPython3_EXECUTABLE={sys.executable}"
        )
    if not os.path.exists(os.path.join(package_dir, "_build_info.py")):
        raise BuildError(f"{build_dir} has no _build_info.py: re-run cmake on it")
    return package_dir


# ---- the wheel ----------------------------------------------------------------------------
def _zip_time():
    """Entry times: SOURCE_DATE_EPOCH when set (reproducible wheels), else 1980-01-01."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        return time.gmtime(max(int(epoch), 315532800))[:6]
    return (1980, 1, 1, 0, 0, 0)


def _record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def _write_wheel(staging, wheel_directory):
    """Zips the files under `staging` and the .dist-info folder; returns the wheel's name."""
    wheel_name = f"{NAME}-{_version()}-{_wheel_tag()}.whl"
    path = os.path.join(wheel_directory, wheel_name)
    date_time = _zip_time()
    records = []

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:

        def write(arcname, data, mode=0o644):
            info = zipfile.ZipInfo(arcname, date_time=date_time)
            info.external_attr = (0o100000 | mode) << 16  # a regular file, its permissions
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
            records.append((arcname, _record_hash(data), str(len(data))))

        for root, dirs, files in os.walk(staging):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(root, name)
                if os.path.islink(full):
                    # Library symlinks (libfoo.so -> libfoo.so.1): zip holds the target's bytes.
                    full = os.path.realpath(full)
                arcname = os.path.relpath(os.path.join(root, name), staging).replace(os.sep, "/")
                with open(full, "rb") as f:
                    data = f.read()
                mode = 0o755 if os.access(full, os.X_OK) else 0o644
                write(arcname, data, mode)
        _write_dist_info_files(write)
        record_name = f"{_dist_info_name()}/RECORD"
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerows(records)
        writer.writerow((record_name, "", ""))
        info = zipfile.ZipInfo(record_name, date_time=date_time)
        info.external_attr = (0o100000 | 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, out.getvalue())
    return wheel_name


# ---- PEP 517 hooks ------------------------------------------------------------------------
def get_requires_for_build_wheel(config_settings=None):
    """Nothing beyond the standard library (CMake and a compiler come from the system)."""
    return []


def get_requires_for_build_sdist(config_settings=None):
    """Nothing beyond the standard library."""
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """Writes the .dist-info folder (no build needed); returns its name."""
    dist_info = _dist_info_name()

    def write(relpath, data):
        target = os.path.join(metadata_directory, relpath)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)

    _write_dist_info_files(write)
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """Builds (or reuses) minitvm, stages the package and writes the wheel; returns its name."""
    build_dir = _prepare_build_dir(config_settings)
    os.makedirs(wheel_directory, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="minitvm-wheel-") as staging:
        _stage_package(build_dir, staging)
        name = _write_wheel(staging, wheel_directory)
    print(f"minitvm_build_backend: wrote {name} from {build_dir}", file=sys.stderr)
    return name


def _sdist_files():
    """The files of a source distribution: git's tracked files, else the tree without build
    folders and caches."""
    try:
        out = subprocess.run(
            ["git", "-C", REPO_ROOT, "ls-files", "-z"], capture_output=True, check=True
        ).stdout
        files = [f for f in out.decode().split("\0") if f]
        return [f for f in files if os.path.isfile(os.path.join(REPO_ROOT, f))]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for root, dirs, names in os.walk(REPO_ROOT):
        rel_root = os.path.relpath(root, REPO_ROOT)
        dirs[:] = sorted(
            d for d in dirs
            if not (rel_root == "." and d.startswith("build")) and d not in (".git", "__pycache__")
        )
        files.extend(os.path.normpath(os.path.join(rel_root, n)) for n in sorted(names))
    return files


def build_sdist(sdist_directory, config_settings=None):
    """Writes minitvm-<version>.tar.gz (the sources and PKG-INFO); returns its name."""
    base = f"{NAME}-{_version()}"
    name = f"{base}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for rel in _sdist_files():
            tf.add(os.path.join(REPO_ROOT, rel), arcname=f"{base}/{rel}", recursive=False)
        pkg_info = _metadata_text().encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        info.mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0") or 0)
        tf.addfile(info, io.BytesIO(pkg_info))
    return name
