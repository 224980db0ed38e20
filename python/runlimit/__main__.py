"""python -m runlimit ARGS: exec the located binary in this process's place, so that no
Python stays between the caller and runlimit (the caller's signals reach runlimit)."""

import os
import sys

from ._errors import RunlimitNotFound
from ._locate import find_runlimit


def main() -> None:
    try:
        path = find_runlimit()
    except RunlimitNotFound as e:
        sys.stderr.write("runlimit: %s\n" % e)
        sys.exit(127)
    os.execv(path, ["runlimit"] + sys.argv[1:])


if __name__ == "__main__":
    main()
