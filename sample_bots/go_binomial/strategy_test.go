package main

import (
	"math"
	"math/rand/v2"
	"testing"

	pb "gobinomial/perudov1"
)

// checkLegal fails the test unless action is one the referee would accept
// for req, using only what the request itself says is legal.
func checkLegal(t *testing.T, req *pb.ActionRequest, action *pb.Action) {
	t.Helper()
	switch action.GetKind() {
	case pb.ActionKind_ACTION_KIND_BID:
		if req.GetKind() != pb.RequestKind_REQUEST_KIND_TURN {
			t.Fatalf("bid answered to %v", req.GetKind())
		}
		f, c := action.GetFace(), action.GetCount()
		if f < 1 || f > 6 {
			t.Fatalf("bid on face %d", f)
		}
		minCount := req.GetMinCount()[f-1]
		if minCount == 0 || c < minCount || c > req.GetDiceInPlay() {
			t.Fatalf("illegal bid %d x %d (min_count %v, dice_in_play %d)",
				c, f, req.GetMinCount(), req.GetDiceInPlay())
		}
	case pb.ActionKind_ACTION_KIND_DUDO:
		if req.GetKind() != pb.RequestKind_REQUEST_KIND_TURN || !req.GetDudoAllowed() {
			t.Fatalf("dudo not allowed here")
		}
	case pb.ActionKind_ACTION_KIND_CALZA:
		if !req.GetCalzaAllowed() {
			t.Fatalf("calza not allowed here")
		}
	case pb.ActionKind_ACTION_KIND_PASS:
		if req.GetKind() != pb.RequestKind_REQUEST_KIND_CALZA_OFFER {
			t.Fatalf("pass answered to %v", req.GetKind())
		}
	default:
		t.Fatalf("action kind %v", action.GetKind())
	}
}

func turn(myDice []uint32, diceInPlay uint32, minCount []uint32, bids ...*pb.Bid) *pb.ActionRequest {
	return &pb.ActionRequest{
		RequestId:   7,
		Kind:        pb.RequestKind_REQUEST_KIND_TURN,
		MyDice:      myDice,
		DiceInPlay:  diceInPlay,
		MinCount:    minCount,
		Bids:        bids,
		DudoAllowed: len(bids) > 0,
	}
}

func TestDecide(t *testing.T) {
	palificoOpening := turn([]uint32{1}, 6, []uint32{1, 1, 1, 1, 1, 1})
	palificoOpening.Palifico = true
	palificoRaise := turn([]uint32{4}, 6, []uint32{0, 0, 0, 3, 0, 0}, &pb.Bid{Count: 2, Face: 4})
	palificoRaise.Palifico = true
	offer := turn([]uint32{2, 2}, 10, nil, &pb.Bid{Count: 3, Face: 2})
	offer.Kind = pb.RequestKind_REQUEST_KIND_CALZA_OFFER
	offer.DudoAllowed = false
	offer.CalzaAllowed = true

	tests := []struct {
		name string
		req  *pb.ActionRequest
		want *pb.Action // nil: any legal action
	}{
		{
			name: "opening bids, never pacos",
			req:  turn([]uint32{3, 3, 1, 5, 6}, 10, []uint32{0, 1, 1, 1, 1, 1}),
			// Three 3s are certain with own dice (two 3s and a paco), and no
			// other bid is both certain and higher.
			want: &pb.Action{Kind: pb.ActionKind_ACTION_KIND_BID, Count: 3, Face: 3},
		},
		{
			name: "impossible standing bid is challenged",
			req:  turn([]uint32{2, 3, 4, 5, 6}, 10, []uint32{5, 9, 9, 9, 9, 10}, &pb.Bid{Count: 9, Face: 5}),
			want: &pb.Action{Kind: pb.ActionKind_ACTION_KIND_DUDO},
		},
		{
			name: "certain standing bid is raised",
			req:  turn([]uint32{4, 4, 4, 1, 1}, 10, []uint32{2, 3, 3, 3, 2, 2}, &pb.Bid{Count: 2, Face: 4}),
		},
		{
			name: "after pacos",
			req:  turn([]uint32{1, 1, 2, 3, 4}, 15, []uint32{4, 7, 7, 7, 7, 7}, &pb.Bid{Count: 3, Face: 1}),
		},
		{
			name: "no raise left means dudo",
			req:  turn([]uint32{6}, 2, []uint32{0, 0, 0, 0, 0, 0}, &pb.Bid{Count: 2, Face: 6}),
			want: &pb.Action{Kind: pb.ActionKind_ACTION_KIND_DUDO},
		},
		{
			name: "min_count above dice in play is not bid",
			req:  turn([]uint32{6, 6}, 4, []uint32{2, 5, 5, 5, 5, 4}, &pb.Bid{Count: 4, Face: 5}),
		},
		{
			name: "palifico opening may be pacos",
			req:  palificoOpening,
			// Pacos are not wild: the one own die makes a single paco certain.
			want: &pb.Action{Kind: pb.ActionKind_ACTION_KIND_BID, Count: 1, Face: 1},
		},
		{
			name: "palifico keeps the face",
			req:  palificoRaise,
		},
		{
			name: "calza offer is passed",
			req:  offer,
			want: &pb.Action{Kind: pb.ActionKind_ACTION_KIND_PASS},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.req)
			checkLegal(t, tt.req, got)
			if tt.want != nil && (got.GetKind() != tt.want.GetKind() ||
				got.GetCount() != tt.want.GetCount() || got.GetFace() != tt.want.GetFace()) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDecideAlwaysLegal throws random, self-consistent requests at Decide.
func TestDecideAlwaysLegal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		mine := make([]uint32, 1+rng.IntN(5))
		for i := range mine {
			mine[i] = uint32(1 + rng.IntN(6))
		}
		inPlay := uint32(len(mine) + rng.IntN(25))
		minCount := make([]uint32, 6)
		for i := range minCount {
			if rng.IntN(4) > 0 {
				minCount[i] = uint32(1 + rng.IntN(int(inPlay)+2))
			}
		}
		var bids []*pb.Bid
		if rng.IntN(5) > 0 {
			bids = append(bids, &pb.Bid{Count: uint32(1 + rng.IntN(int(inPlay))), Face: uint32(1 + rng.IntN(6))})
		} else {
			// An opening always has a legal bid: dudo is not an option.
			minCount[1+rng.IntN(5)] = 1
		}
		req := turn(mine, inPlay, minCount, bids...)
		req.Palifico = rng.IntN(3) == 0
		if len(bids) > 0 && rng.IntN(4) == 0 {
			req.Kind = pb.RequestKind_REQUEST_KIND_CALZA_OFFER
			req.DudoAllowed = false
		}
		checkLegal(t, req, Decide(req))
	}
}

func TestBinomialAtLeast(t *testing.T) {
	tests := []struct {
		n    int
		p    float64
		k    int
		want float64
	}{
		{10, 1.0 / 3, 0, 1},
		{10, 1.0 / 3, -2, 1},
		{10, 1.0 / 3, 11, 0},
		{1, 1.0 / 6, 1, 1.0 / 6},
		{2, 0.5, 1, 0.75},
		{3, 1.0 / 3, 3, 1.0 / 27},
		{5000, 1.0 / 6, 1, 1},
	}
	for _, tt := range tests {
		if got := binomialAtLeast(tt.n, tt.p, tt.k); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("P(Bin(%d, %g) >= %d) = %g, want %g", tt.n, tt.p, tt.k, got, tt.want)
		}
	}
}
