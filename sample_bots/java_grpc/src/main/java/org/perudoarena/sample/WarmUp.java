package org.perudoarena.sample;

import java.util.SplittableRandom;
import org.perudoarena.v1.Action;
import org.perudoarena.v1.ActionReply;
import org.perudoarena.v1.ActionRequest;
import org.perudoarena.v1.Bid;
import org.perudoarena.v1.BotMessage;
import org.perudoarena.v1.RefereeMessage;
import org.perudoarena.v1.RequestKind;
import org.perudoarena.v1.Ruleset;

/**
 * Runs the decision code on made-up positions before the bot dials the referee.
 *
 * <p>A JVM runs new code in its interpreter until the JIT has compiled it: the first
 * decisions of a cold JVM take tens or hundreds of milliseconds, and the first requests of
 * the night are the ones that time out. Start-up costs the bot nothing (only its joining is
 * later), so it pays for the compiling there: the strategy, and the protobuf code that
 * reads a request and writes a reply, each on a few hundred positions.
 */
final class WarmUp {
    private WarmUp() {}

    /** Decides `positions` made-up requests, each read from bytes and answered into bytes. */
    static long run(int positions) {
        SplittableRandom random = new SplittableRandom(38);
        long checksum = 0;
        for (int i = 0; i < positions; i++) {
            byte[] wire = RefereeMessage.newBuilder().setRequest(position(random, i)).build().toByteArray();
            try {
                ActionRequest req = RefereeMessage.parseFrom(wire).getRequest();
                Action action = Strategy.decide(req);
                BotMessage reply = BotMessage.newBuilder()
                        .setReply(ActionReply.newBuilder().setRequestId(req.getRequestId()).setAction(action))
                        .build();
                checksum += reply.toByteArray().length;
            } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                throw new IllegalStateException("a made-up request did not read back", e);
            }
        }
        return checksum;
    }

    /** A position that could happen: 2 to 6 seats, a few bids, min_count as the referee would. */
    private static ActionRequest position(SplittableRandom random, int id) {
        int seats = random.nextInt(2, 7);
        int diceInPlay = 0;
        ActionRequest.Builder req = ActionRequest.newBuilder()
                .setRequestId(id)
                .setKind(random.nextInt(5) == 0 ? RequestKind.REQUEST_KIND_CALZA_OFFER : RequestKind.REQUEST_KIND_TURN)
                .setGameId("warm-up")
                .setRuleset(Ruleset.newBuilder().setDicePerPlayer(5))
                .setTimeLeftMs(1000)
                .setPalifico(random.nextInt(10) == 0);
        for (int seat = 0; seat < seats; seat++) {
            int dice = random.nextInt(1, 6);
            req.addDiceCounts(dice);
            diceInPlay += dice;
        }
        for (int d = 0; d < req.getDiceCounts(0); d++) {
            req.addMyDice(random.nextInt(1, 7));
        }
        int count = 0;
        int face = 0;
        for (int b = random.nextInt(0, 4); b > 0 && count < diceInPlay; b--) {
            count += random.nextInt(1, 3);
            face = random.nextInt(2, 7);
            req.addBids(Bid.newBuilder().setSeat(b % seats).setCount(Math.min(count, diceInPlay)).setFace(face));
        }
        for (int f = 1; f <= 6; f++) {
            int least = count == 0 ? 1 : (f == 1 ? (count + 1) / 2 : (f > face ? count : count + 1));
            req.addMinCount(least <= diceInPlay && !(count == 0 && f == 1) ? least : 0);
        }
        return req.setDiceInPlay(diceInPlay)
                .setDudoAllowed(count > 0)
                .setCalzaAllowed(count > 0)
                .build();
    }
}
