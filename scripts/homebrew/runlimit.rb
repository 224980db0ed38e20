# Homebrew formula for runlimit, for the tap runlimit/homebrew-tap (brew install runlimit/tap/runlimit).
# This copy is the template: `make release` writes release/runlimit.rb from it with the
# release's URL and the tarball's SHA-256 filled in, and that file is the one a tap takes.
class Runlimit < Formula
  desc "Run a command with a time limit and end its whole process tree"
  homepage "https://github.com/runlimit/runlimit"
  url "https://github.com/runlimit/runlimit/releases/download/v0.2.0/runlimit-0.2.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "BSD-2-Clause"

  def install
    # The Makefile is GNU make's, which is macOS's make; prefix and mandir (the parent of
    # man1) place the binary and the manual, and the completions go where Homebrew's shells
    # look for them.
    system "make", "install", "prefix=#{prefix}", "mandir=#{man}",
           "bashcompdir=#{bash_completion}", "zshcompdir=#{zsh_completion}",
           "fishcompdir=#{fish_completion}"
  end

  def caveats
    <<~EOS
      runlimit behaves as GNU timeout when it is invoked as `timeout`. To add that name:
        ln -s #{opt_bin}/runlimit #{HOMEBREW_PREFIX}/bin/timeout
      Homebrew's coreutils installs GNU timeout as `gtimeout`, and as `timeout` in
      #{HOMEBREW_PREFIX}/opt/coreutils/libexec/gnubin: if that directory is on your PATH
      before #{HOMEBREW_PREFIX}/bin, its `timeout` is the one your shell finds.
    EOS
  end

  test do
    # A real time-out: the command is stopped at the deadline and the status is 124.
    shell_output("#{bin}/runlimit 1 sleep 30", 124)
    # Under the name timeout it answers as timeout does.
    ln_s bin/"runlimit", testpath/"timeout"
    # (the quotes are the locale's, as GNU's: curly ones in the UTF-8 locale brew runs in)
    assert_match(/^timeout: invalid time interval .x.$/,
                 shell_output("cd #{testpath} && PATH=#{testpath}:$PATH timeout x true 2>&1", 125))
    assert_equal "ok\n", shell_output("#{bin}/runlimit 10 echo ok")
    # The completions are where bash-completion, zsh and fish look under Homebrew.
    assert_predicate bash_completion/"runlimit", :exist?
    assert_predicate zsh_completion/"_runlimit", :exist?
    assert_predicate fish_completion/"runlimit.fish", :exist?
  end
end
