//! The "calza" strategy, ported from `../js_calza/strategy.js`: binomial odds on
//! the unseen dice, a small nudge towards faces other players have bid, and a
//! calza when a bid looks exactly right.
//!
//! A decision is a pure function of one request and the `trust` put in each
//! seat's bids, so it is easy to test. `Reads` learns that trust from the hands
//! revealed at the end of rounds: by player name, over all games of a session.
//! With nothing learned, every seat's trust is 1 and the strategy is the
//! JavaScript one, apart from tuned constants and never taking a calza offer
//! with a full hand. The request types
//! mirror `ActionRequest` in `proto/perudo/v1/referee.proto` as the bridge
//! writes it (same field names, enum values as short lower-case words). Every
//! field has a default and unknown fields are ignored, so the bot keeps working
//! when the protocol grows.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Games whose end never arrived are forgotten past this many.
const MAX_GAMES: usize = 256;

/// `kind` of a request that is our turn (any kind but a calza offer is played as one).
#[allow(dead_code)]
pub const TURN: &str = "turn";
/// `kind` of an out-of-turn calza offer (calza rule "any").
pub const CALZA_OFFER: &str = "calza_offer";

// Tuning knobs.
/// Extra "known" dice per other seat that bid a face this round.
const BONUS_PER_BIDDER: f64 = 0.5;
/// Reading bids is weak evidence: never worth more than this many dice.
const BONUS_CAP: f64 = 1.5;
/// How many revealed dice at `HONEST_RATE` each player is credited with before
/// any of its own are seen (see `Reads`).
const PRIOR_DICE: f64 = 10.0;
/// The rate at which a player's dice count for the faces it bid, when its bids
/// deserve exactly `BONUS_PER_BIDDER` (chance alone gives 1/3).
const HONEST_RATE: f64 = 0.55;
/// The most a player's bids are trusted, as a multiple of `BONUS_PER_BIDDER`.
const TRUST_MAX: f64 = 2.0;
/// Least P(exact) to consider calza on our turn.
const CALZA_ON_TURN: f64 = 0.45;
/// Least P(exact) to take an out-of-turn calza offer (never with a full hand,
/// where an exact calza gains nothing).
const CALZA_ON_OFFER: f64 = 0.5;
/// Challenge only bids that are more likely false than true.
const DUDO_BELOW: f64 = 0.45;
/// Candidate counts of each face: min_count .. min_count + RAISE_STEPS - 1. The
/// odds only fall as the count rises, so a higher count wins only on a tie (a
/// bid our own dice make certain): that is how it opens on all it holds.
const RAISE_STEPS: u32 = 4;
/// Probabilities are compared rounded to this many steps of 1, so that values
/// equal up to floating-point noise tie (a total order, unlike an epsilon test).
const P_STEPS: f64 = 1e12;

/// The rules of the game (the fields this bot reads; others are ignored).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Ruleset {
    pub dice_per_player: u32,
    pub calza: String,
    pub palifico: bool,
}

/// A bid made in the current round.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Bid {
    pub seat: u32,
    pub count: u32,
    pub face: u32,
}

/// One seat's dice, as revealed at the end of a round.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Hand {
    pub dice: Vec<u32>,
}

/// What everyone learned when a round ended (the fields this bot reads).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RoundResult {
    pub round: u32,
    /// "dudo", "calza" or "fault".
    pub end: String,
    /// The standing bid that was challenged (absent after a fault with no bid).
    pub bid: Option<Bid>,
    /// Every seat's dice, by seat (all empty after a fault).
    pub hands: Vec<Hand>,
    pub palifico: bool,
}

/// One `GameOver`, as the bridge sends it (after `"type": "game_over"`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GameOver {
    pub game_id: String,
    pub seat: u32,
    pub order: Vec<u32>,
    pub players: Vec<String>,
    pub results: Vec<RoundResult>,
}

/// One `ActionRequest`, as the bridge sends it (after `"type": "request"`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Request {
    pub request_id: u64,
    /// "turn" or "calza_offer".
    pub kind: String,
    pub game_id: String,
    pub seat: u32,
    pub players: Vec<String>,
    pub ruleset: Ruleset,
    pub round: u32,
    pub my_dice: Vec<u32>,
    pub dice_counts: Vec<u32>,
    /// The bids of this round so far, oldest first; the last is standing.
    pub bids: Vec<Bid>,
    /// Pacos are not wild, and the face is fixed by the opening bid.
    pub palifico: bool,
    /// Rounds that ended since this session's last request in this game.
    pub results: Vec<RoundResult>,
    pub time_left_ms: u32,
    /// For each face 1..6: the smallest legal count of a bid on it, 0 if it may not be bid.
    pub min_count: Vec<u32>,
    pub dudo_allowed: bool,
    pub calza_allowed: bool,
    /// The number of dice in play: the largest legal count.
    pub dice_in_play: u32,
}

/// The kind of an answer, written as the bridge expects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionKind {
    Bid,
    Dudo,
    Calza,
    Pass,
}

/// An answer; `count` and `face` are used by bids only (0 otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    pub kind: ActionKind,
    pub count: u32,
    pub face: u32,
}

impl Action {
    pub const DUDO: Action = Action {
        kind: ActionKind::Dudo,
        count: 0,
        face: 0,
    };
    pub const CALZA: Action = Action {
        kind: ActionKind::Calza,
        count: 0,
        face: 0,
    };
    pub const PASS: Action = Action {
        kind: ActionKind::Pass,
        count: 0,
        face: 0,
    };

    pub fn bid(count: u32, face: u32) -> Action {
        Action {
            kind: ActionKind::Bid,
            count,
            face,
        }
    }
}

impl Request {
    fn is_calza_offer(&self) -> bool {
        self.kind == CALZA_OFFER
    }

    /// The smallest legal count of `face` (1..6), or 0 when it may not be bid.
    pub fn min_count_of(&self, face: u32) -> u32 {
        if !(1..=6).contains(&face) {
            return 0;
        }
        self.min_count.get(face as usize - 1).copied().unwrap_or(0)
    }

    fn standing(&self) -> Option<Bid> {
        self.bids.last().copied()
    }

    /// Whether we hold the most dice a player may: an exact calza gains nothing.
    fn full_hand(&self) -> bool {
        let per_player = if self.ruleset.dice_per_player > 0 {
            self.ruleset.dice_per_player
        } else {
            5
        };
        self.my_dice.len() as u32 >= per_player
    }

    fn unseen(&self) -> u32 {
        self.dice_in_play.saturating_sub(self.my_dice.len() as u32)
    }
}

/// P(X = x) for X ~ Binomial(n, p), for every x in 0..=n, computed in log
/// space so that it stays accurate (and free of underflow) for any table.
pub fn binomial_pmf(n: u32, p: f64) -> Vec<f64> {
    let n_us = n as usize;
    let mut pmf = vec![0.0; n_us + 1];
    if p <= 0.0 {
        pmf[0] = 1.0;
        return pmf;
    }
    if p >= 1.0 {
        pmf[n_us] = 1.0;
        return pmf;
    }
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    let mut ln_choose = 0.0; // ln C(n, x)
    for (x, slot) in pmf.iter_mut().enumerate() {
        *slot = (ln_choose + x as f64 * lp + (n_us - x) as f64 * lq).exp();
        if x < n_us {
            ln_choose += ((n_us - x) as f64).ln() - ((x + 1) as f64).ln();
        }
    }
    pmf
}

/// P(true) and P(exact) of a bid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Odds {
    pub p_true: f64,
    pub p_exact: f64,
}

/// P(X >= need) and P(X == need) for X ~ Binomial(n, p), where `need` may be
/// fractional (the bid-reading bonus shifts it by halves): interpolate between
/// the neighbouring whole numbers, so half a die of evidence counts half.
pub fn odds(n: u32, p: f64, need: f64) -> Odds {
    let pmf = binomial_pmf(n, p);
    let at_least = |x: i64| -> f64 {
        if x <= 0 {
            1.0
        } else if x as usize >= pmf.len() {
            0.0
        } else {
            pmf[x as usize..].iter().sum::<f64>().min(1.0)
        }
    };
    let exactly = |x: i64| -> f64 {
        if x < 0 || x as usize >= pmf.len() {
            0.0
        } else {
            pmf[x as usize]
        }
    };
    let lo = need.floor();
    let w = need - lo; // weight of the upper neighbour
    let lo = lo as i64;
    Odds {
        p_true: (1.0 - w) * at_least(lo) + w * at_least(lo + 1),
        p_exact: (1.0 - w) * exactly(lo) + w * exactly(lo + 1),
    }
}

/// How many of `dice` count for `face`: pacos are wild in ordinary rounds
/// (unless the bid is on pacos), never in palifico rounds.
pub fn my_count(dice: &[u32], face: u32, palifico: bool) -> u32 {
    dice.iter()
        .filter(|&&d| d == face || (!palifico && face != 1 && d == 1))
        .count() as u32
}

/// The weak evidence from bids: each other seat that named `face` this round
/// probably holds some of it, as much as its revealed bids earned it trust.
/// Those dice are among the unseen ones, so the bonus never exceeds them (with
/// nothing unseen, the count is known).
fn bid_bonus(req: &Request, trust: &[f64], face: u32, unseen: u32) -> f64 {
    let mut seats: Vec<u32> = req
        .bids
        .iter()
        .filter(|b| b.face == face && b.seat != req.seat)
        .map(|b| b.seat)
        .collect();
    seats.sort_unstable();
    seats.dedup();
    let evidence: f64 = seats
        .iter()
        .map(|&s| BONUS_PER_BIDDER * trust_of(trust, s))
        .sum();
    evidence.min(BONUS_CAP).min(unseen as f64)
}

/// How much a seat's bids are trusted; 1 (the default bonus) when nothing is known.
fn trust_of(trust: &[f64], seat: u32) -> f64 {
    trust.get(seat as usize).copied().unwrap_or(1.0)
}

/// What one session has learned of its opponents, by name, over all its
/// games: how many of a player's revealed dice counted for the ordinary faces
/// it had bid in that round. A player that bids what it holds shows those
/// faces more often than chance (1/3); a bluffer or a random bidder does not.
#[derive(Debug, Clone, Default)]
pub struct Reads {
    /// Per player name: (dice that counted for its bid faces, dice revealed).
    players: HashMap<String, (f64, f64)>,
    /// Per game still going: the round and bids of our latest request in it,
    /// whose hands the next results reveal.
    games: HashMap<String, (u32, Vec<Bid>)>,
}

impl Reads {
    /// Learn from a request's results, then remember its round and bids.
    pub fn update(&mut self, req: &Request) {
        self.learn(&req.game_id, req.seat, &req.players, &req.results);
        if self.games.len() >= MAX_GAMES && !self.games.contains_key(&req.game_id) {
            self.games.clear(); // games whose end never came
        }
        self.games
            .insert(req.game_id.clone(), (req.round, req.bids.clone()));
    }

    /// Learn from the last results of a game, and forget the game.
    pub fn game_over(&mut self, over: &GameOver) {
        self.learn(&over.game_id, over.seat, &over.players, &over.results);
        self.games.remove(&over.game_id);
    }

    fn learn(&mut self, game_id: &str, me: u32, players: &[String], results: &[RoundResult]) {
        for result in results {
            if result.palifico {
                continue; // pacos are not wild there: another scale, and rare
            }
            let mut bids: Vec<Bid> = match self.games.get(game_id) {
                Some((round, bids)) if *round == result.round => bids.clone(),
                _ => Vec::new(),
            };
            bids.extend(result.bid);
            let mut pairs: Vec<(u32, u32)> = bids
                .iter()
                .filter(|b| b.seat != me && (2..=6).contains(&b.face))
                .map(|b| (b.seat, b.face))
                .collect();
            pairs.sort_unstable();
            pairs.dedup();
            for (seat, face) in pairs {
                let (Some(name), Some(hand)) =
                    (players.get(seat as usize), result.hands.get(seat as usize))
                else {
                    continue;
                };
                if hand.dice.is_empty() {
                    continue;
                }
                let record = self.players.entry(name.clone()).or_default();
                record.0 += my_count(&hand.dice, face, false) as f64;
                record.1 += hand.dice.len() as f64;
            }
        }
    }

    /// For each seat of `req`, how much its bids are trusted: 1 with nothing
    /// seen (or when its dice match its bids at `HONEST_RATE`), 0 for a player
    /// whose bids say no more than chance, at most `TRUST_MAX`.
    pub fn trust(&self, req: &Request) -> Vec<f64> {
        req.players
            .iter()
            .map(|name| {
                let (held, seen) = self.players.get(name).copied().unwrap_or((0.0, 0.0));
                let rate = (held + PRIOR_DICE * HONEST_RATE) / (seen + PRIOR_DICE);
                ((rate - 1.0 / 3.0) / (HONEST_RATE - 1.0 / 3.0)).clamp(0.0, TRUST_MAX)
            })
            .collect()
    }
}

/// P(true) and P(exact) of the bid (count, face) from this seat's point of view.
pub fn bid_odds(req: &Request, trust: &[f64], count: u32, face: u32) -> Odds {
    let unseen = req.unseen();
    let p = if req.palifico || face == 1 {
        1.0 / 6.0
    } else {
        1.0 / 3.0
    };
    let need = count as f64
        - my_count(&req.my_dice, face, req.palifico) as f64
        - bid_bonus(req, trust, face, unseen);
    odds(unseen, p, need)
}

/// A legal bid worth considering, with its chance of being true.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub count: u32,
    pub face: u32,
    pub p: f64,
}

/// Every legal bid worth considering: the smallest legal count of each face
/// and the next three, best first (highest P(true), then the higher count, which
/// leaves the next player less room, then the higher face).
pub fn candidate_bids(req: &Request, trust: &[f64]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for face in 1..=6u32 {
        let min = req.min_count_of(face);
        if min == 0 {
            continue;
        }
        let top = req.dice_in_play.min(min.saturating_add(RAISE_STEPS - 1));
        for count in min..=top {
            out.push(Candidate {
                count,
                face,
                p: bid_odds(req, trust, count, face).p_true,
            });
        }
    }
    // NaN cannot arise, but `as` maps it to 0 anyway: the key is always total.
    out.sort_by_key(|c| std::cmp::Reverse(((c.p * P_STEPS).round() as i64, c.count, c.face)));
    out
}

fn decide_turn(req: &Request, trust: &[f64]) -> Action {
    let best = candidate_bids(req, trust).into_iter().next();

    if let Some(standing) = req.standing() {
        let o = bid_odds(req, trust, standing.count, standing.face);
        // Compare rough expected dice changes: a calza wins a die (if we are
        // not full) or loses one; a dudo loses one when the bid is true; a
        // raise is scored pessimistically as if it will be challenged.
        let calza_value = o.p_exact * if req.full_hand() { 1.0 } else { 2.0 } - 1.0;
        let mut others = Vec::new();
        if req.dudo_allowed {
            others.push(-o.p_true);
        }
        if let Some(b) = best {
            others.push(b.p - 1.0);
        }
        if req.calza_allowed
            && o.p_exact >= CALZA_ON_TURN
            && others.iter().all(|&v| calza_value > v)
        {
            return Action::CALZA;
        }
        if req.dudo_allowed && o.p_true < DUDO_BELOW && best.is_none_or(|b| o.p_true < b.p) {
            return Action::DUDO;
        }
    }
    if let Some(b) = best {
        return Action::bid(b.count, b.face);
    }
    // No legal raise left (the bid already claims every die): challenge it.
    if req.dudo_allowed {
        return Action::DUDO;
    }
    if req.calza_allowed {
        return Action::CALZA;
    }
    fallback(req) // nothing legal seems to exist; should not happen
}

fn decide_calza_offer(req: &Request, trust: &[f64]) -> Action {
    match req.standing() {
        Some(s) if req.calza_allowed && !req.full_hand() => {
            let p_exact = bid_odds(req, trust, s.count, s.face).p_exact;
            if p_exact >= CALZA_ON_OFFER {
                Action::CALZA
            } else {
                Action::PASS
            }
        }
        _ => Action::PASS,
    }
}

/// The strategy's choice, before the legality guard. `trust` is
/// `Reads::trust` for the request (empty when nothing is known).
pub fn choose(req: &Request, trust: &[f64]) -> Action {
    if req.is_calza_offer() {
        decide_calza_offer(req, trust)
    } else {
        decide_turn(req, trust)
    }
}

/// The action to answer `req` with; always legal for that request (by its own
/// `min_count`, `dudo_allowed` and `calza_allowed`).
pub fn decide(req: &Request, trust: &[f64]) -> Action {
    let action = choose(req, trust);
    if is_legal(req, &action) {
        action
    } else {
        fallback(req)
    }
}

/// A safe answer that needs no odds: pass on an offer; otherwise the smallest
/// legal bid (highest face first), else dudo, else calza.
pub fn fallback(req: &Request) -> Action {
    if req.is_calza_offer() {
        return Action::PASS;
    }
    for face in (1..=6u32).rev() {
        let min = req.min_count_of(face);
        if min > 0 && min <= req.dice_in_play {
            return Action::bid(min, face);
        }
    }
    if req.dudo_allowed {
        return Action::DUDO;
    }
    if req.calza_allowed {
        return Action::CALZA;
    }
    Action::DUDO // the request offers no legal answer at all
}

/// Whether `action` is a legal answer to `req`, by the request's own fields.
pub fn is_legal(req: &Request, action: &Action) -> bool {
    if req.is_calza_offer() {
        return action.kind == ActionKind::Pass
            || (action.kind == ActionKind::Calza && req.calza_allowed);
    }
    match action.kind {
        ActionKind::Bid => {
            let min = req.min_count_of(action.face);
            min > 0 && min <= action.count && action.count <= req.dice_in_play
        }
        ActionKind::Dudo => req.dudo_allowed,
        ActionKind::Calza => req.calza_allowed,
        ActionKind::Pass => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*), so tests need no crates.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u32) -> u32 {
            (self.next() % n as u64) as u32
        }
    }

    fn request(
        my_dice: &[u32],
        dice_counts: &[u32],
        bids: &[(u32, u32, u32)],
        min_count: [u32; 6],
    ) -> Request {
        Request {
            request_id: 7,
            kind: TURN.into(),
            seat: 0,
            ruleset: Ruleset {
                dice_per_player: 5,
                calza: "turn".into(),
                palifico: true,
            },
            round: 1,
            my_dice: my_dice.to_vec(),
            dice_counts: dice_counts.to_vec(),
            bids: bids
                .iter()
                .map(|&(seat, count, face)| Bid { seat, count, face })
                .collect(),
            min_count: min_count.to_vec(),
            dudo_allowed: !bids.is_empty(),
            calza_allowed: !bids.is_empty(),
            dice_in_play: dice_counts.iter().sum(),
            ..Request::default()
        }
    }

    fn assert_legal(req: &Request) -> Action {
        let action = decide(req, &[]);
        assert!(is_legal(req, &action), "illegal {action:?} for {req:?}");
        action
    }

    #[test]
    fn pmf_sums_to_one_and_matches_small_cases() {
        for n in [0, 1, 5, 30, 400] {
            let total: f64 = binomial_pmf(n, 1.0 / 3.0).iter().sum();
            assert!((total - 1.0).abs() < 1e-9, "n={n}: {total}");
        }
        let pmf = binomial_pmf(2, 0.5);
        assert!((pmf[0] - 0.25).abs() < 1e-12 && (pmf[1] - 0.5).abs() < 1e-12);
        let o = odds(2, 0.5, 1.0);
        assert!((o.p_true - 0.75).abs() < 1e-12 && (o.p_exact - 0.5).abs() < 1e-12);
        assert_eq!(odds(3, 0.5, -1.0).p_true, 1.0);
        assert_eq!(odds(3, 0.5, 4.0).p_true, 0.0);
    }

    #[test]
    fn pacos_are_wild_only_outside_palifico() {
        assert_eq!(my_count(&[1, 1, 4, 4, 6], 4, false), 4);
        assert_eq!(my_count(&[1, 1, 4, 4, 6], 4, true), 2);
        assert_eq!(my_count(&[1, 1, 4, 4, 6], 1, false), 2);
    }

    #[test]
    fn opening_bid_is_legal_and_not_on_pacos() {
        let req = request(&[2, 5, 1, 5, 3], &[5, 5, 5], &[], [0, 1, 1, 1, 1, 1]);
        let a = assert_legal(&req);
        assert_eq!(a.kind, ActionKind::Bid);
        assert_ne!(a.face, 1);
        // Opens on what it holds: three 5s (two 5s and a paco) are certain.
        assert_eq!((a.count, a.face), (3, 5));
    }

    #[test]
    fn legal_after_a_paco_bid() {
        // Standing: three pacos among 15 dice; other faces need at least 7.
        let req = request(
            &[1, 2, 3, 4, 6],
            &[5, 5, 5],
            &[(2, 3, 1)],
            [4, 7, 7, 7, 7, 7],
        );
        let a = assert_legal(&req);
        if a.kind == ActionKind::Bid {
            assert!(a.face == 1 && a.count >= 4 || a.count >= 7);
        }
    }

    #[test]
    fn legal_in_palifico() {
        // Palifico on 3s: only 3s may be bid, pacos are not wild.
        let mut req = request(&[1], &[1, 4, 3], &[(2, 2, 3)], [0, 0, 3, 0, 0, 0]);
        req.palifico = true;
        let a = assert_legal(&req);
        assert!(a.kind != ActionKind::Bid || a.face == 3);
        // The palifico opener may open on pacos.
        let mut open = request(&[1], &[1, 4, 3], &[], [1, 1, 1, 1, 1, 1]);
        open.palifico = true;
        assert_legal(&open);
        // With the bid at the top, only dudo (or calza) is left.
        let mut top = request(&[3], &[1, 1], &[(1, 2, 3)], [0, 0, 0, 0, 0, 0]);
        top.palifico = true;
        top.calza_allowed = false;
        assert_eq!(assert_legal(&top), Action::DUDO);
    }

    #[test]
    fn calza_offer_answers_only_calza_or_pass() {
        let mut req = request(
            &[4, 4, 1, 2, 6],
            &[5, 5, 5],
            &[(1, 5, 4)],
            [3, 6, 6, 6, 6, 6],
        );
        req.kind = CALZA_OFFER.into();
        req.dudo_allowed = false;
        let a = assert_legal(&req);
        assert!(matches!(a.kind, ActionKind::Calza | ActionKind::Pass));
        req.calza_allowed = false;
        assert_eq!(assert_legal(&req), Action::PASS);
        // Even with nothing else in the request.
        let bare = Request {
            kind: CALZA_OFFER.into(),
            ..Request::default()
        };
        assert_eq!(assert_legal(&bare), Action::PASS);
    }

    #[test]
    fn dudo_on_an_impossible_bid_and_calza_on_a_sure_one() {
        // 14 of 15 dice claimed to be 6s while we hold none: dudo.
        let req = request(
            &[2, 3, 4, 5, 2],
            &[5, 5, 5],
            &[(2, 14, 6)],
            [7, 15, 15, 15, 15, 15],
        );
        assert_eq!(assert_legal(&req), Action::DUDO);
        // Two players with one die each; we hold a 4 and the other bid one 4.
        // The bid is certainly true; a calza is exact with P = 1/3 + ... ;
        // whatever it picks, it must be legal.
        let req = request(&[4], &[1, 1], &[(1, 1, 4)], [1, 2, 2, 2, 2, 2]);
        assert_legal(&req);
    }

    #[test]
    fn guard_replaces_an_illegal_choice() {
        // A request that claims nothing is legal to bid and no dudo: the
        // strategy must still not bid; calza is the only legal answer.
        let mut req = request(&[2, 2], &[2, 2], &[(1, 4, 2)], [0; 6]);
        req.dudo_allowed = false;
        assert_eq!(assert_legal(&req), Action::CALZA);
        // Short or empty min_count never panics.
        let mut short = request(&[2], &[1, 1], &[], [0; 6]);
        short.min_count = vec![0, 1];
        assert_eq!(assert_legal(&short), Action::bid(1, 2));
        let empty = Request {
            kind: TURN.into(),
            ..Request::default()
        };
        decide(&empty, &[]); // no legal answer exists; it must not panic
    }

    /// The smallest legal count of each face after the standing bid, by the
    /// rules (lower face with higher count allowed), for random requests.
    fn floors(standing: Option<(u32, u32)>, palifico: bool, total: u32) -> [u32; 6] {
        let mut m = [0u32; 6];
        for face in 1..=6u32 {
            let floor = match standing {
                None => {
                    if face == 1 && !palifico {
                        0
                    } else {
                        1
                    }
                }
                Some((c, f)) if palifico => {
                    if face == f {
                        c + 1
                    } else {
                        0
                    }
                }
                Some((c, 1)) => {
                    if face == 1 {
                        c + 1
                    } else {
                        2 * c + 1
                    }
                }
                Some((c, f)) => {
                    if face == 1 {
                        c.div_ceil(2)
                    } else if face > f {
                        c
                    } else {
                        c + 1
                    }
                }
            };
            m[face as usize - 1] = if floor > total { 0 } else { floor };
        }
        m
    }

    #[test]
    fn many_random_requests_get_legal_answers() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for i in 0..20_000 {
            let players = 2 + rng.below(7);
            let counts: Vec<u32> = (0..players).map(|_| rng.below(6)).collect();
            let seat = rng.below(players);
            let mut counts = counts;
            if counts[seat as usize] == 0 {
                counts[seat as usize] = 1;
            }
            let total: u32 = counts.iter().sum();
            let my_dice: Vec<u32> = (0..counts[seat as usize])
                .map(|_| 1 + rng.below(6))
                .collect();
            let palifico = rng.below(5) == 0;
            let mut bids = Vec::new();
            let mut standing = None;
            for _ in 0..rng.below(6) {
                let m = floors(standing, palifico, total);
                let faces: Vec<u32> = (1..=6).filter(|&f| m[f as usize - 1] > 0).collect();
                if faces.is_empty() {
                    break;
                }
                let face = faces[rng.below(faces.len() as u32) as usize];
                let lo = m[face as usize - 1];
                let count = lo + rng.below(total - lo + 1);
                bids.push(Bid {
                    seat: rng.below(players),
                    count,
                    face,
                });
                standing = Some((count, face));
            }
            let offer = !bids.is_empty() && rng.below(4) == 0;
            let req = Request {
                request_id: i,
                kind: if offer { CALZA_OFFER } else { TURN }.into(),
                seat,
                ruleset: Ruleset {
                    dice_per_player: 5,
                    calza: "any".into(),
                    palifico: true,
                },
                my_dice,
                dice_counts: counts,
                bids,
                palifico,
                min_count: if offer {
                    vec![0; 6]
                } else {
                    floors(standing, palifico, total).to_vec()
                },
                dudo_allowed: !offer && standing.is_some(),
                calza_allowed: standing.is_some() && rng.below(3) != 0,
                dice_in_play: total,
                ..Request::default()
            };
            let trust: Vec<f64> = (0..players).map(|_| rng.below(16) as f64 / 10.0).collect();
            let a = decide(&req, &trust);
            assert!(is_legal(&req, &a), "illegal {a:?} for {req:?}");
            // The strategy itself (not only the guard) should be legal here.
            assert!(
                is_legal(&req, &choose(&req, &trust)),
                "strategy chose {a:?} for {req:?}"
            );
        }
    }

    #[test]
    fn reads_learn_who_bids_what_they_hold() {
        let hand = |dice: &[u32]| Hand {
            dice: dice.to_vec(),
        };
        let names = |v: &[&str]| v.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let mut reads = Reads::default();
        // Round 1: seat 1 bid 4s and seat 2 bid 5s; we (seat 0) saw those bids.
        let mut req = request(
            &[2, 3],
            &[2, 5, 5],
            &[(1, 2, 4), (2, 3, 5)],
            [2, 4, 4, 4, 3, 3],
        );
        req.game_id = "g1".into();
        req.players = names(&["me", "honest", "bluffer"]);
        req.round = 1;
        reads.update(&req);
        assert_eq!(reads.trust(&req), vec![1.0; 3]); // nothing known yet
                                                     // Round 2: the results show seat 1 held 4s and pacos, seat 2 no 5s.
        req.round = 2;
        req.bids.clear();
        req.results = vec![RoundResult {
            round: 1,
            end: "dudo".into(),
            bid: Some(Bid {
                seat: 2,
                count: 3,
                face: 5,
            }),
            hands: vec![
                hand(&[2, 3]),
                hand(&[4, 4, 1, 4, 4]),
                hand(&[2, 2, 3, 6, 6]),
            ],
            palifico: false,
        }];
        reads.update(&req);
        let trust = reads.trust(&req);
        assert!(trust[1] > 1.0 && trust[1] <= TRUST_MAX, "{trust:?}");
        assert!(trust[2] < 1.0, "{trust:?}");
        // The reads follow the names into the next game, whatever the seats.
        reads.game_over(&GameOver {
            game_id: "g1".into(),
            ..GameOver::default()
        });
        let mut next = request(&[2, 3], &[5, 5, 2], &[(1, 3, 6)], [2, 4, 4, 4, 4, 4]);
        next.game_id = "g2".into();
        next.players = names(&["bluffer", "honest", "me"]);
        next.seat = 2;
        reads.update(&next);
        assert_eq!(reads.trust(&next), vec![trust[2], trust[1], 1.0]);
        // A trusted bidder makes its face look likelier than an untrusted one.
        let p = |t: &[f64]| bid_odds(&next, t, 4, 6).p_true;
        assert!(p(&[1.0, 1.5, 1.0]) > p(&[1.0, 0.0, 1.0]));
        assert_legal(&next);
    }

    #[test]
    fn parses_a_bridge_line_with_unknown_fields() {
        let line = r#"{"type":"request","request_id":7,"kind":"turn","game_id":"g","seat":1,
            "players":["a","b"],"ruleset":{"dice_per_player":5,"opener":"rolloff","calza":"turn",
            "palifico":true,"new_field":3},"round":1,"my_dice":[2,5,1],"dice_counts":[3,3],
            "bids":[{"seat":0,"count":2,"face":5}],"palifico":false,"results":[],"time_left_ms":1000,
            "min_count":[1,3,3,3,3,2],"dudo_allowed":true,"calza_allowed":true,"dice_in_play":6,
            "something_new":{"x":[1,2]}}"#;
        let req: Request = serde_json::from_str(line).unwrap();
        assert_eq!(req.request_id, 7);
        assert_eq!(
            req.bids,
            vec![Bid {
                seat: 0,
                count: 2,
                face: 5
            }]
        );
        assert_legal(&req);
    }
}
