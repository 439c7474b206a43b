"""``python -m minitvm ARGS`` and the ``minitvm`` console script: run the command-line program.

The program is C++ (``tools/minitvm``); an installed package carries it as ``minitvm/bin/minitvm``,
a source-tree checkout finds it in ``<build>/bin`` (see :func:`minitvm.libinfo.find_cli`). The
arguments are passed on unchanged and its exit status is returned, e.g.::

    python -m minitvm show kernel.py
    minitvm schedule kernel.py --trace=trace.json
"""
import subprocess
import sys

from . import libinfo


def main(argv=None):
    """Runs the CLI with ``argv`` (default ``sys.argv[1:]``); returns its exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    cli = libinfo.find_cli()
    if cli is None:
        where = "the installed package" if libinfo.is_installed() else libinfo.build_dir()
        print(
            f"minitvm: the command-line program is not in {where} (it is built with stage 2 "
            "and later: ninja minitvm)",
            file=sys.stderr,
        )
        return 2
    try:
        return subprocess.call([cli] + args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
