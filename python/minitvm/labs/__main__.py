"""``python -m minitvm.labs check NN FILE``: grade a lab solution (see ``minitvm.labs``)."""
import sys

from . import main

sys.exit(main())
