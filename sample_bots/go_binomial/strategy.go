package main

import (
	"math"

	pb "gobinomial/perudov1"
)

// raiseSteps is how far above each face's smallest legal count the bot looks.
// Probability only falls as the count rises, so a higher count wins only on a
// tie (typically when the bot's own dice already make both bids certain).
const raiseSteps = 3

// tieEpsilon treats probabilities this close as equal, so float noise does
// not decide between bids that are equally likely in exact arithmetic.
const tieEpsilon = 1e-12

// bid is a candidate (count, face) together with its chance of being true.
type bid struct {
	count, face uint32
	p           float64
}

// Decide picks the action for one request. It needs nothing but the request:
// every field it reads is sent afresh each time.
func Decide(req *pb.ActionRequest) *pb.Action {
	if req.GetKind() == pb.RequestKind_REQUEST_KIND_CALZA_OFFER {
		// The plain binomial bot never calls calza.
		return &pb.Action{Kind: pb.ActionKind_ACTION_KIND_PASS}
	}

	best, ok := bestRaise(req)

	bids := req.GetBids()
	if len(bids) > 0 && req.GetDudoAllowed() {
		standing := bids[len(bids)-1]
		p := bidProbability(req, standing.GetCount(), standing.GetFace())
		// Challenge a bid that is more likely false than true, unless raising
		// is even riskier than being wrong about the challenge.
		if p < 0.5 && (!ok || p < best.p) {
			return &pb.Action{Kind: pb.ActionKind_ACTION_KIND_DUDO}
		}
	}
	if ok {
		return &pb.Action{Kind: pb.ActionKind_ACTION_KIND_BID, Count: best.count, Face: best.face}
	}
	// No legal raise is left: dudo is the only move, or calza if the
	// referee (unexpectedly) forbids dudo but allows calza.
	if !req.GetDudoAllowed() && req.GetCalzaAllowed() {
		return &pb.Action{Kind: pb.ActionKind_ACTION_KIND_CALZA}
	}
	return &pb.Action{Kind: pb.ActionKind_ACTION_KIND_DUDO}
}

// bestRaise returns the legal bid most likely to be true, preferring the
// higher count and then the higher face on a tie, since an equally safe but
// higher bid leaves the next player less room. ok is false when no face may
// be bid. Legality comes from min_count alone, so the bot never has to
// reimplement the raise table of RULES.md.
func bestRaise(req *pb.ActionRequest) (best bid, ok bool) {
	maxCount := req.GetDiceInPlay()
	for i, minCount := range req.GetMinCount() {
		face := uint32(i + 1)
		if face > 6 || minCount == 0 || minCount > maxCount {
			continue
		}
		for count := minCount; count <= maxCount && count <= minCount+raiseSteps; count++ {
			c := bid{count: count, face: face, p: bidProbability(req, count, face)}
			if !ok || better(c, best) {
				best, ok = c, true
			}
		}
	}
	return best, ok
}

// better reports whether a beats b: more likely, then higher count, then
// higher face.
func better(a, b bid) bool {
	if math.Abs(a.p-b.p) > tieEpsilon {
		return a.p > b.p
	}
	if a.count != b.count {
		return a.count > b.count
	}
	return a.face > b.face
}

// bidProbability is the chance that at least count dice count as face, given
// the bot's own dice and treating every unseen die as an independent roll.
func bidProbability(req *pb.ActionRequest, count, face uint32) float64 {
	palifico := req.GetPalifico()
	mine := req.GetMyDice()

	known := 0
	for _, d := range mine {
		if countsFor(d, face, palifico) {
			known++
		}
	}

	unseen := int(req.GetDiceInPlay()) - len(mine)
	if unseen < 0 {
		unseen = 0
	}
	// A face is rolled with chance 1/6; in an ordinary round a paco also
	// counts for any other face, doubling the chance.
	p := 1.0 / 6
	if face != 1 && !palifico {
		p = 1.0 / 3
	}
	return binomialAtLeast(unseen, p, int(count)-known)
}

// countsFor reports whether a die showing d counts towards a bid on face:
// pacos are wild except in a palifico round or when pacos themselves are bid.
func countsFor(d, face uint32, palifico bool) bool {
	return d == face || (!palifico && d == 1 && face != 1)
}

// binomialAtLeast returns P(X >= k) for X ~ Binomial(n, p). Terms are summed
// in log space so that large tables cannot underflow (1-p)^n to zero.
func binomialAtLeast(n int, p float64, k int) float64 {
	if k <= 0 {
		return 1
	}
	if k > n {
		return 0
	}
	lnN, _ := math.Lgamma(float64(n + 1))
	lp, lq := math.Log(p), math.Log1p(-p)
	sum := 0.0
	for i := k; i <= n; i++ {
		lnI, _ := math.Lgamma(float64(i + 1))
		lnRest, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lnN - lnI - lnRest + float64(i)*lp + float64(n-i)*lq)
	}
	return math.Min(sum, 1)
}
