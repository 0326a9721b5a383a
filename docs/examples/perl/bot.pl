#!/usr/bin/perl
# A minimal Perudo Arena bot in Perl, behind the JSON-lines bridge (arena.kit.bridge).
use strict;
use warnings;
use JSON::PP;

$| = 1;    # flush every answer at once: a buffered answer is a timeout
my $json = JSON::PP->new->canonical;

sub matches {    # how many of my dice count for $face
    my ($dice, $face, $palifico) = @_;
    my $wild = !$palifico && $face != 1;
    return scalar grep { $_ == $face || ($wild && $_ == 1) } @$dice;
}

sub decide {
    my ($r) = @_;
    return { action => 'pass' } if $r->{kind} eq 'calza_offer';
    my ($dice, $pal, $floor) = ($r->{my_dice}, $r->{palifico}, $r->{min_count});
    if ($r->{dudo_allowed}) {
        my $bid    = $r->{bids}[-1];
        my $unseen = $r->{dice_in_play} - @$dice;
        my $per    = (!$pal && $bid->{face} != 1) ? 3 : 6;
        my $expect = matches($dice, $bid->{face}, $pal) + $unseen / $per;
        return { action => 'dudo' } if $bid->{count} > $expect;
    }
    my ($best, $most) = (0, -1);
    for my $face (1 .. 6) {
        next unless $floor->[$face - 1] > 0;
        my $m = matches($dice, $face, $pal);
        ($best, $most) = ($face, $m) if $m >= $most;
    }
    return { action => 'dudo' } unless $best;    # no legal raise is left
    return { action => 'bid', count => $floor->[$best - 1], face => $best };
}

while (my $line = <STDIN>) {
    my $msg = decode_json($line);
    if ($msg->{type} eq 'request') {
        my $answer = decide($msg);
        $answer->{request_id} = $msg->{request_id};
        print $json->encode($answer), "\n";
    } elsif ($msg->{type} eq 'game_over' && $msg->{fault}) {
        print STDERR "fault in $msg->{game_id}: $msg->{fault}{kind}: $msg->{fault}{detail}\n";
    }
}
