#!/bin/sh
# Test the GitHub Action's install (scripts/action-install.sh) against a made-up release in a
# local directory, through a file:// URL, as GitHub runs it: RUNNER_OS and RUNNER_ARCH as it
# sets them, a GITHUB_PATH and a GITHUB_OUTPUT file.  The release is laid out as
# scripts/release.sh lays one out (runlimit-VERSION-PLATFORM.tar.gz holding
# runlimit-VERSION-PLATFORM/{runlimit,runlimit.1,README.md,LICENSE}, and SHA256SUMS); each
# binary is a script that says its version and platform.  Each case runs under dash and
# bash, where they are (else sh).  Needs curl (file:// URLs).
set -eu
cd "$(dirname "$0")/.."
repo=$PWD
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0 cases=0
fail() { echo "action-test: FAIL: [$sh] $*" >&2; fails=$((fails + 1)); }
sum() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }

v=9.8.7
rel=$t/release
mkdir -p "$rel"
for p in linux-x86_64 linux-aarch64 freebsd-x86_64 freebsd-aarch64 macos-universal; do
	d=$t/stage/runlimit-$v-$p
	mkdir -p "$d"
	printf '#!/bin/sh\necho "runlimit (runlimit) %s"\necho "%s"\n' "$v" "$p" >"$d/runlimit"
	chmod 755 "$d/runlimit"
	cp man/runlimit.1 LICENSE README.md "$d/"
	tar -C "$t/stage" -cf - "runlimit-$v-$p" | gzip -n >"$rel/runlimit-$v-$p.tar.gz"
done
echo source >"$rel/runlimit-$v.tar.gz"
echo formula >"$rel/runlimit.rb"
(cd "$rel" && sum runlimit-*.tar.gz runlimit.rb >SHA256SUMS)

# install NAME [VAR=VALUE...]: run the install script in a fresh runner's environment
# (RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT under $t/NAME), the release's URL given unless
# the arguments give one; its status in $status, its stdout and stderr in $t/NAME/out, err.
install() {
	r=$t/$1
	shift
	rm -rf "$r"
	mkdir -p "$r/tmp"
	: >"$r/path"
	: >"$r/output"
	status=0
	env -u RUNLIMIT_VERSION -u RUNLIMIT_TIMEOUT_ALIAS RUNLIMIT_RELEASE_URL="file://$rel" \
		RUNNER_TEMP="$r/tmp" GITHUB_PATH="$r/path" GITHUB_OUTPUT="$r/output" "$@" \
		"$sh" "$repo/scripts/action-install.sh" >"$r/out" 2>"$r/err" || status=$?
	cases=$((cases + 1))
}
# installed NAME PLATFORM: the run succeeded, put PLATFORM's runlimit in its bin directory and
# that directory, once, in GITHUB_PATH.
installed() {
	r=$t/$1 bin=$t/$1/tmp/runlimit-action/$v/bin
	[ "$status" = 0 ] || { fail "$1: status $status: $(cat "$r/err")"; return 0; }
	[ -x "$bin/runlimit" ] || { fail "$1: no $bin/runlimit"; return 0; }
	[ "$("$bin/runlimit" --version | sed -n 2p)" = "$2" ] || fail "$1: not $2's binary"
	[ "$(cat "$r/path")" = "$bin" ] || fail "$1: GITHUB_PATH holds [$(cat "$r/path")], not $bin"
	grep -qx "version=$v" "$r/output" || fail "$1: no version=$v in GITHUB_OUTPUT"
	grep -qx "path=$bin/runlimit" "$r/output" || fail "$1: no path in GITHUB_OUTPUT"
}
# aliases NAME yes|no: timeout and gtimeout are links to runlimit there, or are not there.
aliases() {
	bin=$t/$1/tmp/runlimit-action/$v/bin
	for a in timeout gtimeout; do
		if [ "$2" = yes ]; then
			if [ ! -L "$bin/$a" ] || [ "$(readlink "$bin/$a")" != runlimit ]; then
				fail "$1: no $a link to runlimit"
			fi
		elif [ -e "$bin/$a" ] || [ -L "$bin/$a" ]; then
			fail "$1: a $a was made, not asked for"
		fi
	done
}
# refused NAME WORDS: the run failed with one line on stderr saying WORDS, and installed nothing.
refused() {
	r=$t/$1
	[ "$status" != 0 ] || fail "$1: succeeded"
	[ "$(wc -l <"$r/err")" -eq 1 ] || fail "$1: not one line on stderr: $(cat "$r/err")"
	case $(cat "$r/err") in "runlimit action: "*"$2"*) ;; *) fail "$1: says [$(cat "$r/err")], not [$2]" ;; esac
	[ ! -s "$r/path" ] || fail "$1: wrote GITHUB_PATH"
	[ ! -e "$r/tmp/runlimit-action/$v/bin/runlimit" ] || fail "$1: installed a runlimit"
}

shells=
for s in dash bash; do command -v "$s" >/dev/null 2>&1 && shells="$shells $s"; done
[ -n "$shells" ] || shells=" sh"
for sh in $shells; do
	install linux-x64 RUNNER_OS=Linux RUNNER_ARCH=X64
	installed linux-x64 linux-x86_64
	aliases linux-x64 no
	install linux-arm64 RUNNER_OS=Linux RUNNER_ARCH=ARM64
	installed linux-arm64 linux-aarch64
	aliases linux-arm64 no
	install macos-arm64 RUNNER_OS=macOS RUNNER_ARCH=ARM64
	installed macos-arm64 macos-universal
	aliases macos-arm64 yes
	"$t/macos-arm64/tmp/runlimit-action/$v/bin/timeout" --version 2>/dev/null | grep -qx "runlimit (runlimit) $v" ||
		fail "macos-arm64: the timeout link does not run runlimit"
	install macos-x64 RUNNER_OS=macOS RUNNER_ARCH=X64 RUNLIMIT_TIMEOUT_ALIAS=false
	installed macos-x64 macos-universal
	aliases macos-x64 no
	install linux-alias RUNNER_OS=Linux RUNNER_ARCH=X64 RUNLIMIT_TIMEOUT_ALIAS=true
	installed linux-alias linux-x86_64
	aliases linux-alias yes
	install version RUNNER_OS=Linux RUNNER_ARCH=X64 RUNLIMIT_VERSION=v$v
	installed version linux-x86_64

	install other-version RUNNER_OS=Linux RUNNER_ARCH=X64 RUNLIMIT_VERSION=1.0.0
	refused other-version "no linux-x86_64 archive for version 1.0.0"
	install bad-version RUNNER_OS=Linux RUNNER_ARCH=X64 RUNLIMIT_VERSION='1.0;rm'
	refused bad-version "version '1.0;rm' is not X.Y.Z or latest"
	install arm32 RUNNER_OS=Linux RUNNER_ARCH=ARM
	refused arm32 "no release binary for Linux on ARM"
	install windows RUNNER_OS=Windows RUNNER_ARCH=X64
	refused windows "no release binary for Windows on X64"
	install bad-alias RUNNER_OS=Linux RUNNER_ARCH=X64 RUNLIMIT_TIMEOUT_ALIAS=yes
	refused bad-alias "timeout-alias 'yes' is not true or false"
	install no-release RUNNER_OS=Linux RUNNER_ARCH=X64 RUNLIMIT_RELEASE_URL="file://$t/nowhere"
	refused no-release "could not download file://$t/nowhere/SHA256SUMS"
done

# A tampered archive: another one's bytes under its name, or a byte more.
sh=${shells# }
sh=${sh%% *}
cp "$rel/runlimit-$v-linux-x86_64.tar.gz" "$t/saved.tar.gz"
cp "$rel/runlimit-$v-linux-aarch64.tar.gz" "$rel/runlimit-$v-linux-x86_64.tar.gz"
install swapped RUNNER_OS=Linux RUNNER_ARCH=X64
refused swapped "runlimit-$v-linux-x86_64.tar.gz does not match SHA256SUMS"
cp "$t/saved.tar.gz" "$rel/runlimit-$v-linux-x86_64.tar.gz"
echo >>"$rel/runlimit-$v-linux-x86_64.tar.gz"
install appended RUNNER_OS=Linux RUNNER_ARCH=X64
refused appended "does not match SHA256SUMS"
# A missing archive (listed, not there).
rm "$rel/runlimit-$v-linux-x86_64.tar.gz"
install missing RUNNER_OS=Linux RUNNER_ARCH=X64
refused missing "could not download file://$rel/runlimit-$v-linux-x86_64.tar.gz"

# A release of this build (scripts/local-release.sh, what the workflow's jobs install with
# uses: ./ on every push): the action installs it, and it times out a command.
if [ -x ./runlimit ] && lv=$(scripts/local-release.sh "$t/localrel" ./runlimit 2>"$t/localrel.err"); then
	install local RUNLIMIT_VERSION="$lv" RUNLIMIT_RELEASE_URL="file://$t/localrel"
	got=0
	"$(cat "$t/local/path")/runlimit" 1 sleep 5 || got=$?
	if [ "$status" != 0 ] || [ "$got" != 124 ]; then
		fail "this build, released by local-release.sh: install $status, a time-out $got (want 0, 124): $(cat "$t/local/err")"
	fi
else
	echo "action-test: no release of this build here (make first): $(cat "$t/localrel.err" 2>/dev/null)"
fi

[ "$fails" = 0 ] || { echo "action-test: $fails of $cases cases failed" >&2; exit 1; }
echo "action-test: $cases cases passed under$shells"
