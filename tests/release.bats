#!/usr/bin/env bats
# make release's guards, which need no build: it empties RELEASE_DIR only if that is empty,
# absent or a previous release (scripts/release-dir.sh), and its notes are NEWS.md's entry
# for the version (scripts/release-notes.sh), without which there is no release.

load helpers

bats_require_minimum_version 1.5.0

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	D=$BATS_TEST_TMPDIR
	VERSION=$(sed -n 's/^#define RUNLIMIT_VERSION "\(.*\)"$/\1/p' "$REPO/src/cli.h")
}

# a previous release's files in DIR
previous_release() {
	mkdir -p "$1"
	local f
	for f in runlimit-0.1.0.tar.gz runlimit-0.1.0-linux-x86_64.tar.gz \
		runlimit-0.1.0-py3-none-macosx_10_12_universal2.whl runlimit.rb NOTES.md; do
		echo "$f" >"$1/$f"
	done
	(cd "$1" && cksum runlimit-* runlimit.rb >SHA256SUMS)
}

@test "RELEASE_DIR may be absent, empty, or a previous release" {
	run -0 "$REPO/scripts/release-dir.sh" "$D/absent"
	mkdir "$D/empty"
	run -0 "$REPO/scripts/release-dir.sh" "$D/empty"
	previous_release "$D/old"
	run -0 "$REPO/scripts/release-dir.sh" "$D/old"
	ln -s old "$D/link-to-old"
	run -0 "$REPO/scripts/release-dir.sh" "$D/link-to-old"
}

@test "RELEASE_DIR is refused, in one line, when it holds anything else" {
	refused() { # DIR WORDS: refused, one line on stderr that names DIR and says WORDS
		run -1 --separate-stderr "$REPO/scripts/release-dir.sh" "$1"
		echo "$stderr"
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" == "release: RELEASE_DIR=$1 "*"$2"* ]]
	}
	mkdir -p "$D/src/src" && echo x >"$D/src/Makefile"
	refused "$D/src" "holds Makefile"
	echo x >"$D/file"
	refused "$D/file" "is not a directory"
	previous_release "$D/no-sums" && rm "$D/no-sums/SHA256SUMS"
	refused "$D/no-sums" "has no SHA256SUMS"
	previous_release "$D/sub" && mkdir "$D/sub/runlimit-0.1.0-x.tar.gz"
	refused "$D/sub" "not a regular file"
	previous_release "$D/hidden" && echo x >"$D/hidden/.profile"
	refused "$D/hidden" "holds .profile"
	previous_release "$D/symlink" && ln -s /etc/passwd "$D/symlink/runlimit.rb.x"
	refused "$D/symlink" "holds runlimit.rb.x"
	previous_release "$D/symlink2" && rm "$D/symlink2/NOTES.md" && ln -s /etc/passwd "$D/symlink2/NOTES.md"
	refused "$D/symlink2" "holds NOTES.md, which is not a regular file"
}

@test "make release refuses such a RELEASE_DIR before it builds, and leaves it as it was" {
	mkdir -p "$D/home" && echo keep >"$D/home/notes.txt"
	run -1 --separate-stderr env LINUX_SRCS=x FREEBSD_SRCS=x DARWIN_SRCS=x FEATURES=x WARN=x \
		RELEASE_DIR="$D/home" "$REPO/scripts/release.sh"
	echo "$stderr"
	[[ "$stderr" == "release: RELEASE_DIR=$D/home holds notes.txt, which is no release file: "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "$(cat "$D/home/notes.txt")" = keep ]
	# and make passes RELEASE_DIR on to it
	run -0 "$(command -v gmake || command -v make)" -n -s -C "$REPO" release RELEASE_DIR="$D/home"
	[[ "$output" == *"scripts/release.sh"* ]]
}

@test "the release notes are NEWS.md's entry for the version, and there is one for this version" {
	run -0 "$REPO/scripts/release-notes.sh" "$VERSION"
	[ -n "$output" ]
	cat >"$D/NEWS.md" <<-'EOF'
		# News

		## 1.10.0

		- ten

		## 1.1.0 (2001-01-01)

		- one
		- more

		## 1.0.0

		- first
	EOF
	run -0 "$REPO/scripts/release-notes.sh" 1.1.0 "$D/NEWS.md"
	[ "$output" = "- one
- more" ]
	run -0 "$REPO/scripts/release-notes.sh" 1.0.0 "$D/NEWS.md"
	[ "$output" = "- first" ]
	run -1 --separate-stderr "$REPO/scripts/release-notes.sh" 1.1 "$D/NEWS.md"
	[[ "$stderr" == "release-notes: NEWS.md has no entry for 1.1 "* ]]
	printf '# News\n\n## 2.0.0\n\n## 1.0.0\n\n- x\n' >"$D/NEWS.md"
	run -1 "$REPO/scripts/release-notes.sh" 2.0.0 "$D/NEWS.md"
}

@test "make release fails without a NEWS.md entry for the version, before it builds" {
	# a copy of what release.sh reads before it builds, with the entry taken out of NEWS.md
	mkdir -p "$D/repo/scripts" "$D/repo/src"
	cp "$REPO"/scripts/release*.sh "$D/repo/scripts/"
	cp "$REPO/src/cli.h" "$D/repo/src/"
	awk -v v="$VERSION" '/^## / { skip = ($2 == v) } !skip' "$REPO/NEWS.md" >"$D/repo/NEWS.md"
	run -1 --separate-stderr env LINUX_SRCS=x FREEBSD_SRCS=x DARWIN_SRCS=x FEATURES=x WARN=x \
		RELEASE_DIR="$D/out" "$D/repo/scripts/release.sh"
	echo "$stderr"
	[ "$stderr" = "release-notes: NEWS.md has no entry for $VERSION (a \"## $VERSION\" heading and what changed)" ]
	[ ! -e "$D/out" ]
}
