package org.perudoarena.sample;

import java.util.List;
import org.perudoarena.v1.Action;
import org.perudoarena.v1.ActionKind;
import org.perudoarena.v1.ActionRequest;
import org.perudoarena.v1.Bid;
import org.perudoarena.v1.RequestKind;

/**
 * The binomial strategy (the Go sample's, with calza): each decision is a pure function of
 * the request, so the bot needs no memory between requests and every session may decide at
 * once on its own thread.
 *
 * <p>With U unseen dice and k of its own counting for face f, a bid of c dice of f is true
 * with probability P(Binomial(U, p) >= c - k), p being 1/3 (the face or a wild paco) or 1/6
 * (pacos themselves, or any face in a palifico round, where pacos are not wild). Legality
 * comes from the request's min_count, dice_in_play, dudo_allowed and calza_allowed alone, so
 * the bot never reimplements the raise rules.
 */
final class Strategy {
    /** How far above each face's smallest legal count the bot looks. */
    private static final int RAISE_STEPS = 3;

    /** Probabilities this close are equal: float noise does not pick between equal bids. */
    private static final double TIE = 1e-12;

    /** Call calza when the standing bid is exactly right at least this often. */
    private static final double CALZA_EXACT = 0.45;

    private Strategy() {}

    /** The action for one request. */
    static Action decide(ActionRequest req) {
        List<Bid> bids = req.getBidsList();
        Bid standing = bids.isEmpty() ? null : bids.get(bids.size() - 1);
        if (req.getKind() == RequestKind.REQUEST_KIND_CALZA_OFFER) {
            boolean call = standing != null && req.getCalzaAllowed() && !fullHand(req)
                    && exactly(req, standing.getCount(), standing.getFace()) >= CALZA_EXACT + 0.05;
            return call ? kind(ActionKind.ACTION_KIND_CALZA) : kind(ActionKind.ACTION_KIND_PASS);
        }
        Candidate best = bestRaise(req);
        if (standing != null) {
            double p = atLeast(req, standing.getCount(), standing.getFace());
            // Calza gains a die when right: worth it when an exact count is likely and the
            // bid is doubtful enough that raising on it is a gamble too.
            if (req.getCalzaAllowed() && !fullHand(req) && p < 0.75
                    && exactly(req, standing.getCount(), standing.getFace()) >= CALZA_EXACT) {
                return kind(ActionKind.ACTION_KIND_CALZA);
            }
            // Challenge a bid more likely false than true, unless raising is riskier still.
            if (req.getDudoAllowed() && p < 0.5 && (best == null || p < best.p)) {
                return kind(ActionKind.ACTION_KIND_DUDO);
            }
        }
        if (best != null) {
            return Action.newBuilder()
                    .setKind(ActionKind.ACTION_KIND_BID)
                    .setCount(best.count)
                    .setFace(best.face)
                    .build();
        }
        // No legal raise is left: dudo, or calza if the referee forbids dudo but allows it.
        if (!req.getDudoAllowed() && req.getCalzaAllowed()) {
            return kind(ActionKind.ACTION_KIND_CALZA);
        }
        return kind(ActionKind.ACTION_KIND_DUDO);
    }

    private static Action kind(ActionKind kind) {
        return Action.newBuilder().setKind(kind).build();
    }

    /** A candidate bid and its chance of being true. */
    private record Candidate(int count, int face, double p) {
        /** More likely, then the higher count, then the higher face: an equally safe but
         * higher bid leaves the next player less room. */
        boolean beats(Candidate other) {
            if (Math.abs(p - other.p) > TIE) {
                return p > other.p;
            }
            return count != other.count ? count > other.count : face > other.face;
        }
    }

    /** The legal raise most likely to be true, or null when no face may be bid. */
    private static Candidate bestRaise(ActionRequest req) {
        int maxCount = req.getDiceInPlay();
        Candidate best = null;
        List<Integer> minCounts = req.getMinCountList();
        for (int i = 0; i < Math.min(6, minCounts.size()); i++) {
            int minCount = minCounts.get(i);
            if (minCount == 0 || minCount > maxCount) {
                continue;
            }
            for (int count = minCount; count <= maxCount && count <= minCount + RAISE_STEPS; count++) {
                Candidate c = new Candidate(count, i + 1, atLeast(req, count, i + 1));
                if (best == null || c.beats(best)) {
                    best = c;
                }
            }
        }
        return best;
    }

    /** Whether the bot already holds every die a game starts with: a calza gains nothing. */
    private static boolean fullHand(ActionRequest req) {
        int most = req.getRuleset().getCalzaMaxDice();
        if (most == 0) {
            most = req.getRuleset().getDicePerPlayer();
        }
        return req.getMyDiceCount() >= most;
    }

    /** P(at least `count` dice count for `face`), given the bot's own dice. */
    static double atLeast(ActionRequest req, int count, int face) {
        int need = count - known(req, face);
        int unseen = unseen(req);
        double p = chance(req, face);
        double sum = 0;
        for (int i = Math.max(need, 0); i <= unseen; i++) {
            sum += binomial(unseen, i, p);
        }
        return Math.min(sum, 1);
    }

    /** P(exactly `count` dice count for `face`), given the bot's own dice. */
    static double exactly(ActionRequest req, int count, int face) {
        int need = count - known(req, face);
        int unseen = unseen(req);
        return need < 0 || need > unseen ? 0 : binomial(unseen, need, chance(req, face));
    }

    private static int known(ActionRequest req, int face) {
        int known = 0;
        for (int die : req.getMyDiceList()) {
            if (die == face || (!req.getPalifico() && die == 1 && face != 1)) {
                known++;
            }
        }
        return known;
    }

    private static int unseen(ActionRequest req) {
        return Math.max(req.getDiceInPlay() - req.getMyDiceCount(), 0);
    }

    /** A face is rolled 1 time in 6; in an ordinary round a paco counts for any other face. */
    private static double chance(ActionRequest req, int face) {
        return face != 1 && !req.getPalifico() ? 1.0 / 3 : 1.0 / 6;
    }

    /** P(X = k) for X ~ Binomial(n, p), in log space so that large tables do not underflow. */
    private static double binomial(int n, int k, double p) {
        double log = logFactorial(n) - logFactorial(k) - logFactorial(n - k)
                + k * Math.log(p) + (n - k) * Math.log1p(-p);
        return Math.exp(log);
    }

    private static double logFactorial(int n) {
        double sum = 0;
        for (int i = 2; i <= n; i++) {
            sum += Math.log(i);
        }
        return sum;
    }
}
