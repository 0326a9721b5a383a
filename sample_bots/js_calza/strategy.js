'use strict';
// The "calza" strategy: binomial odds on the unseen dice, a small nudge towards
// faces other players have bid, and a calza when a bid looks exactly right.
//
// Everything here is a pure function of one ActionRequest (as decoded by
// proto-loader with keepCase, enums as strings), so it needs no memory between
// requests and is easy to test.

const TURN = 'REQUEST_KIND_TURN';
const CALZA_OFFER = 'REQUEST_KIND_CALZA_OFFER';

// Tuning knobs.
const BONUS_PER_BIDDER = 0.5; // extra "known" dice per other seat that bid a face
const BONUS_CAP = 1.0; // reading bids is weak evidence: never worth more than a die
const CALZA_ON_TURN = 0.35; // least P(exact) to consider calza on our turn
const CALZA_ON_OFFER = 0.4; // least P(exact) to take an out-of-turn calza offer
const DUDO_BELOW = 0.45; // challenge only bids that are more likely false than true
const RAISE_STEPS = 3; // candidate counts: min_count .. min_count + 2

const bid = (count, face) => ({ kind: 'ACTION_KIND_BID', count, face });
const DUDO = { kind: 'ACTION_KIND_DUDO', count: 0, face: 0 };
const CALZA = { kind: 'ACTION_KIND_CALZA', count: 0, face: 0 };
const PASS = { kind: 'ACTION_KIND_PASS', count: 0, face: 0 };

// P(X = x) for X ~ Binomial(n, p), for every x in 0..n. Built by the ratio
// pmf[x+1]/pmf[x], which stays accurate for the few dozen dice of a table.
function binomialPmf(n, p) {
  const pmf = new Array(n + 1).fill(0);
  if (p <= 0) { pmf[0] = 1; return pmf; }
  pmf[0] = Math.pow(1 - p, n);
  for (let x = 0; x < n; x++) pmf[x + 1] = pmf[x] * ((n - x) / (x + 1)) * (p / (1 - p));
  return pmf;
}

// P(X >= need) and P(X == need), where `need` may be fractional (the bid
// reading bonus shifts it by halves): interpolate between the neighbouring
// whole numbers so a half-die of evidence counts half.
function odds(n, p, need) {
  const pmf = binomialPmf(n, p);
  const atLeast = (x) => (x <= 0 ? 1 : pmf.slice(x).reduce((a, b) => a + b, 0));
  const exactly = (x) => (x < 0 ? 0 : (pmf[x] || 0));
  const lo = Math.floor(need);
  const w = need - lo; // weight of the upper neighbour
  return {
    atLeast: (1 - w) * atLeast(lo) + w * atLeast(lo + 1),
    exactly: (1 - w) * exactly(lo) + w * exactly(lo + 1),
  };
}

// How many of my dice count for `face`: pacos are wild in ordinary rounds
// (unless the bid is on pacos), never in palifico rounds.
function myCount(myDice, face, palifico) {
  return myDice.filter((d) => d === face || (!palifico && face !== 1 && d === 1)).length;
}

// The weak evidence from bids: each other seat that named `face` this round
// probably holds some of it. Those dice are among the unseen ones, so the
// bonus can never exceed them (with nothing unseen, the count is known).
function bidBonus(req, face, unseen) {
  const seats = new Set(req.bids.filter((b) => b.face === face && b.seat !== req.seat).map((b) => b.seat));
  return Math.min(BONUS_CAP, BONUS_PER_BIDDER * seats.size, unseen);
}

// P(true) and P(exact) of the bid (count, face) from this seat's point of view.
function bidOdds(req, count, face) {
  const unseen = Math.max(0, req.dice_in_play - req.my_dice.length);
  const p = req.palifico || face === 1 ? 1 / 6 : 1 / 3;
  const need = count - myCount(req.my_dice, face, req.palifico) - bidBonus(req, face, unseen);
  const { atLeast, exactly } = odds(unseen, p, need);
  return { pTrue: atLeast, pExact: exactly };
}

// Every legal bid worth considering: the smallest legal count of each face and
// the next two, best first (highest P(true), then higher count, then higher face).
function candidateBids(req) {
  const out = [];
  for (let face = 1; face <= 6; face++) {
    const min = req.min_count[face - 1] || 0;
    if (min <= 0) continue;
    for (let count = min; count < min + RAISE_STEPS && count <= req.dice_in_play; count++) {
      out.push({ count, face, p: bidOdds(req, count, face).pTrue });
    }
  }
  const EPS = 1e-9; // probabilities equal up to rounding count as a tie
  return out.sort((a, b) =>
    Math.abs(a.p - b.p) > EPS ? b.p - a.p : b.count - a.count || b.face - a.face);
}

function decideTurn(req) {
  const best = candidateBids(req)[0];
  const standing = req.bids.length ? req.bids[req.bids.length - 1] : null;

  if (standing) {
    const { pTrue, pExact } = bidOdds(req, standing.count, standing.face);
    // Compare rough expected dice changes: a calza wins a die (if we are not
    // full) or loses one; a dudo loses one when the bid is true; a raise is
    // scored pessimistically as if it will be challenged.
    const perPlayer = (req.ruleset && req.ruleset.dice_per_player) || 5;
    const full = req.my_dice.length >= perPlayer;
    const calzaValue = pExact * (full ? 1 : 2) - 1;
    const others = [];
    if (req.dudo_allowed) others.push(-pTrue);
    if (best) others.push(best.p - 1);
    if (req.calza_allowed && pExact >= CALZA_ON_TURN && others.every((v) => calzaValue > v)) return CALZA;
    if (req.dudo_allowed && pTrue < DUDO_BELOW && (!best || pTrue < best.p)) return DUDO;
  }
  if (best) return bid(best.count, best.face);
  // No legal raise left (the bid already claims every die): challenge it.
  if (req.dudo_allowed) return DUDO;
  return req.calza_allowed ? CALZA : DUDO; // nothing legal exists; should not happen
}

function decideCalzaOffer(req) {
  const standing = req.bids[req.bids.length - 1];
  if (!req.calza_allowed || !standing) return PASS;
  return bidOdds(req, standing.count, standing.face).pExact >= CALZA_ON_OFFER ? CALZA : PASS;
}

// The action to answer `req` with; always legal for that request.
function decide(req) {
  return req.kind === CALZA_OFFER ? decideCalzaOffer(req) : decideTurn(req);
}

// Whether `action` is a legal answer to `req`, by the request's own
// min_count / dudo_allowed / calza_allowed (used by the tests and as a guard).
function isLegal(req, action) {
  if (req.kind === CALZA_OFFER) {
    return action.kind === 'ACTION_KIND_PASS' || (action.kind === 'ACTION_KIND_CALZA' && req.calza_allowed);
  }
  switch (action.kind) {
    case 'ACTION_KIND_BID': {
      const min = req.min_count[action.face - 1] || 0;
      return Number.isInteger(action.face) && action.face >= 1 && action.face <= 6 &&
        min > 0 && action.count >= min && action.count <= req.dice_in_play;
    }
    case 'ACTION_KIND_DUDO': return !!req.dudo_allowed;
    case 'ACTION_KIND_CALZA': return !!req.calza_allowed;
    default: return false;
  }
}

module.exports = { decide, isLegal, bidOdds, candidateBids, myCount, odds, TURN, CALZA_OFFER };
