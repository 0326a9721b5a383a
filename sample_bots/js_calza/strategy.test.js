'use strict';
// Run with: node --test
const test = require('node:test');
const assert = require('node:assert/strict');
const { decide, isLegal, bidOdds, myCount, odds } = require('./strategy');

// A request as proto-loader decodes it (keepCase, enums as strings, defaults).
function request(over) {
  return {
    request_id: '7',
    kind: 'REQUEST_KIND_TURN',
    seat: 0,
    ruleset: { dice_per_player: 5 },
    my_dice: [2, 3, 3, 5, 1],
    dice_counts: [5, 5, 5],
    bids: [],
    palifico: false,
    min_count: [0, 1, 1, 1, 1, 1],
    dudo_allowed: false,
    calza_allowed: false,
    dice_in_play: 15,
    ...over,
  };
}

function assertLegal(req) {
  const action = decide(req);
  assert.ok(isLegal(req, action), `illegal ${JSON.stringify(action)}`);
  return action;
}

test('opening: a legal bid, never on pacos', () => {
  const a = assertLegal(request());
  assert.equal(a.kind, 'ACTION_KIND_BID');
  assert.notEqual(a.face, 1);
});

test('after a paco bid: a legal raise or dudo', () => {
  const req = request({
    bids: [{ seat: 2, count: 3, face: 4 }, { seat: 1, count: 2, face: 1 }],
    min_count: [3, 5, 5, 5, 5, 5],
    dudo_allowed: true,
    calza_allowed: true,
  });
  const a = assertLegal(req);
  if (a.kind === 'ACTION_KIND_BID') assert.ok(a.count >= req.min_count[a.face - 1]);
});

test('palifico: only the fixed face, and pacos are not wild', () => {
  const req = request({
    palifico: true,
    my_dice: [4, 1, 1],
    bids: [{ seat: 1, count: 2, face: 4 }],
    min_count: [0, 0, 0, 3, 0, 0],
    dudo_allowed: true,
    dice_in_play: 9,
  });
  const a = assertLegal(req);
  assert.ok(a.kind === 'ACTION_KIND_DUDO' || a.face === 4);
  assert.equal(myCount(req.my_dice, 4, true), 1);
  assert.equal(myCount(req.my_dice, 4, false), 3);
});

test('palifico opening may be on pacos', () => {
  const req = request({ palifico: true, my_dice: [1], min_count: [1, 1, 1, 1, 1, 1], dice_in_play: 8 });
  assertLegal(req);
});

test('calza offer: only CALZA or PASS, CALZA when the bid is surely exact', () => {
  // All dice are mine, so the count is known: three 3s (two 3s and a paco) is exact.
  const sure = request({
    kind: 'REQUEST_KIND_CALZA_OFFER',
    my_dice: [3, 3, 1, 6],
    dice_counts: [4, 0],
    bids: [{ seat: 1, count: 3, face: 3 }],
    min_count: [2, 3, 4, 4, 4, 4],
    dudo_allowed: false,
    calza_allowed: true,
    dice_in_play: 4,
  });
  assert.equal(assertLegal(sure).kind, 'ACTION_KIND_CALZA');
  const unlikely = { ...sure, bids: [{ seat: 1, count: 1, face: 6 }], dice_in_play: 4 };
  unlikely.my_dice = [2, 2, 3, 4];
  assert.equal(assertLegal(unlikely).kind, 'ACTION_KIND_PASS');
});

test('dudo on an impossible bid, and when nothing can be raised', () => {
  const hopeless = request({
    my_dice: [2, 2, 2, 2, 2],
    bids: [{ seat: 1, count: 9, face: 6 }],
    min_count: [5, 10, 10, 10, 10, 10],
    dudo_allowed: true,
    dice_in_play: 10,
  });
  assert.equal(assertLegal(hopeless).kind, 'ACTION_KIND_DUDO');
  const maxed = { ...hopeless, bids: [{ seat: 1, count: 10, face: 6 }], min_count: [0, 0, 0, 0, 0, 0] };
  assert.equal(assertLegal(maxed).kind, 'ACTION_KIND_DUDO');
});

test('odds: binomial tails, and other bidders make a face look likelier', () => {
  assert.equal(odds(3, 0.5, 0).atLeast, 1);
  assert.ok(Math.abs(odds(3, 0.5, 2).atLeast - 0.5) < 1e-12);
  assert.ok(Math.abs(odds(3, 0.5, 1).exactly - 0.375) < 1e-12);
  const plain = request({ bids: [] });
  const read = request({ bids: [{ seat: 1, count: 3, face: 6 }] });
  assert.ok(bidOdds(read, 5, 6).pTrue > bidOdds(plain, 5, 6).pTrue);
  // Our own bids are no evidence.
  const mine = request({ bids: [{ seat: 0, count: 3, face: 6 }] });
  assert.equal(bidOdds(mine, 5, 6).pTrue, bidOdds(plain, 5, 6).pTrue);
});

test('random requests always get a legal answer', () => {
  let seed = 12345; // small LCG so the test is reproducible
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (let i = 0; i < 2000; i++) {
    const mine = 1 + rnd(5);
    const inPlay = mine + 1 + rnd(25);
    const bids = [];
    for (let b = rnd(4); b > 0; b--) bids.push({ seat: rnd(4), count: 1 + rnd(inPlay), face: 1 + rnd(6) });
    const req = request({
      kind: rnd(4) === 0 ? 'REQUEST_KIND_CALZA_OFFER' : 'REQUEST_KIND_TURN',
      palifico: rnd(3) === 0,
      my_dice: Array.from({ length: mine }, () => 1 + rnd(6)),
      bids,
      min_count: Array.from({ length: 6 }, () => (rnd(3) === 0 ? 0 : 1 + rnd(inPlay + 2))),
      dudo_allowed: bids.length > 0,
      calza_allowed: bids.length > 0 && rnd(2) === 0,
      dice_in_play: inPlay,
    });
    const a = decide(req);
    // A turn with no legal bid and no dudo has no legal answer at all; skip it.
    const anyBid = req.min_count.some((m) => m > 0 && m <= inPlay);
    if (req.kind === 'REQUEST_KIND_TURN' && !anyBid && !req.dudo_allowed && !req.calza_allowed) continue;
    assert.ok(isLegal(req, a), `illegal ${JSON.stringify(a)} for ${JSON.stringify(req)}`);
  }
});
