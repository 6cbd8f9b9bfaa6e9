#!/usr/bin/perl
# audit.pl get | set 0|1 — the kernel audit's "enabled" (AUDIT_GET, AUDIT_SET
# over NETLINK_AUDIT), for the tests of Landlock's refusal log (otons
# --log-fd), which needs the audit on. As root, in the initial pid namespace
# (the audit refuses any other: ECONNREFUSED). get prints 0, 1 or 2 (locked).
# Exit: 0; 1 when the kernel refused (its reason on stderr).
# perl-base, present on every Debian, even a minimal root.
use strict;
use warnings;
use Socket qw(SOCK_RAW);

my ($AF_NETLINK, $NETLINK_AUDIT, $NLMSG_ERROR) = (16, 9, 2);
my ($AUDIT_GET, $AUDIT_SET, $STATUS_ENABLED) = (1000, 1001, 1);
my ($REQUEST, $ACK) = (1, 4);

my $cmd = shift // '';
usage() unless $cmd eq 'get' || ($cmd eq 'set' && @ARGV == 1 && $ARGV[0] =~ /^[01]$/);
sub usage { print STDERR "usage: audit.pl get | set 0|1\n"; exit 2 }
socket(my $s, $AF_NETLINK, SOCK_RAW, $NETLINK_AUDIT) or die "audit.pl: socket: $!\n";
my $kernel = pack('S x2 L L', $AF_NETLINK, 0, 0);

# ask TYPE FLAGS DATA: the reply's type and data (an error's errno dies here).
sub ask {
	my ($type, $flags, $data) = @_;
	my $msg = pack('L S S L L', 16 + length($data), $type, $flags, 1, 0) . $data;
	send($s, $msg, 0, $kernel) or die "audit.pl: send: $!\n";
	for (1 .. 16) {
		my $buf = '';
		defined(recv($s, $buf, 65536, 0)) or die "audit.pl: recv: $!\n";
		my ($len, $t, undef, $seq) = unpack('L S S L', $buf);
		next unless $seq == 1;
		if ($t == $NLMSG_ERROR) {
			my $err = unpack('l', substr($buf, 16, 4));
			return ($t, '') if $err == 0;    # the ack
			$! = -$err;
			die "audit.pl: the kernel refused: $!\n";
		}
		return ($t, substr($buf, 16, $len - 16));
	}
	die "audit.pl: no reply\n";
}

if ($cmd eq 'get') {
	my ($t, $data) = ask($AUDIT_GET, $REQUEST, '');
	die "audit.pl: an unexpected reply ($t)\n" if $t != $AUDIT_GET;
	my (undef, $enabled) = unpack('L L', $data);
	print "$enabled\n";
} else {
	ask($AUDIT_SET, $REQUEST | $ACK, pack('L L', $STATUS_ENABLED, $ARGV[0]));
}
exit 0;
