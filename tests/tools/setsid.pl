# setsid PROGRAM [ARG]...: a stand-in for util-linux's, installed by tests/helpers.bash's
# make_setsid_standin.
use POSIX ();
if (!defined POSIX::setsid()) {
	my $pid = fork;
	die "setsid: fork: $!\n" unless defined $pid;
	exit 0 if $pid;
	defined POSIX::setsid() or die "setsid: $!\n";
}
exec { $ARGV[0] } @ARGV or die "setsid: $ARGV[0]: $!\n";
