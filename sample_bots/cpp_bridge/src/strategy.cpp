#include "strategy.hpp"

#include <algorithm>
#include <cmath>

namespace strategy {

namespace {

/// How far above each face's smallest legal count the bot looks for a raise.
constexpr uint32_t kRaiseSteps = 3;
/// Each other seat that bid a face this round is taken as holding this many of it...
constexpr double kPerBidder = 0.5;
/// ...up to this many in all: bids are cheap, and bluffers exist.
constexpr double kMostRead = 1.5;
/// Dudo below this chance that the standing bid is true.
constexpr double kDudoBelow = 0.45;
/// Calza at or above this chance that the standing bid is exactly right.
constexpr double kCalzaAt = 0.42;

bool counts_for(uint32_t die, uint32_t face, bool palifico) {
    return die == face || (!palifico && die == 1 && face != 1);
}

/// P(X = k) for X ~ Binomial(n, p), summed in log space: large tables do not underflow.
double pmf(uint32_t n, uint32_t k, double p) {
    return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                    k * std::log(p) + (n - k) * std::log1p(-p));
}

/// The dice the other seats' bids this round suggest they hold of `face`.
double read_bids(const Request& req, uint32_t face) {
    std::vector<uint32_t> seen;
    for (const Bid& bid : req.bids) {
        bool same = bid.face == face || (!req.palifico && bid.face == 1 && face != 1);
        if (same && bid.seat != req.seat && std::find(seen.begin(), seen.end(), bid.seat) == seen.end()) {
            seen.push_back(bid.seat);
        }
    }
    return std::min(kMostRead, kPerBidder * seen.size());
}

Action make(Kind kind, uint32_t count = 0, uint32_t face = 0) { return Action{kind, count, face}; }

}  // namespace

Request Request::from(const json::Value& v) {
    Request req;
    req.request_id = v["request_id"].exact ? v["request_id"].integer : 0;
    req.calza_offer = v["kind"].as_string() == "calza_offer";
    req.seat = v["seat"].as_uint();
    req.my_dice = v["my_dice"].as_uints();
    for (const json::Value& bid : v["bids"].items) {
        req.bids.push_back(Bid{bid["seat"].as_uint(), bid["count"].as_uint(), bid["face"].as_uint()});
    }
    req.min_count = v["min_count"].as_uints();
    req.dudo_allowed = v["dudo_allowed"].as_bool();
    req.calza_allowed = v["calza_allowed"].as_bool();
    req.palifico = v["palifico"].as_bool();
    req.dice_in_play = v["dice_in_play"].as_uint();
    uint32_t most = v["ruleset"]["calza_max_dice"].as_uint();
    req.most_dice = most ? most : v["ruleset"]["dice_per_player"].as_uint(5);
    return req;
}

Odds odds(const Request& req, uint32_t count, uint32_t face) {
    uint32_t mine = 0;
    for (uint32_t die : req.my_dice) mine += counts_for(die, face, req.palifico);
    uint32_t unseen = req.dice_in_play > req.my_dice.size() ? req.dice_in_play - req.my_dice.size() : 0;
    double p = (face == 1 || req.palifico) ? 1.0 / 6 : 1.0 / 3;
    // What the bids suggest moves the odds part-way between whole counts.
    double need = static_cast<double>(count) - mine - read_bids(req, face);
    auto at_least = [&](double k) {
        if (k <= 0) return 1.0;
        double sum = 0;
        for (uint32_t i = static_cast<uint32_t>(std::ceil(k)); i <= unseen; ++i) sum += pmf(unseen, i, p);
        return std::min(sum, 1.0);
    };
    auto exactly = [&](double k) {
        return k < 0 || k > unseen ? 0.0 : pmf(unseen, static_cast<uint32_t>(k), p);
    };
    double low = std::floor(need), part = need - low;
    Odds o;
    o.at_least = (1 - part) * at_least(low) + part * at_least(low + 1);
    o.exactly = (1 - part) * exactly(low) + part * exactly(low + 1);
    return o;
}

bool legal(const Request& req, const Action& a) {
    switch (a.kind) {
        case Kind::Pass: return req.calza_offer;
        case Kind::Calza: return req.calza_allowed;
        case Kind::Dudo: return !req.calza_offer && req.dudo_allowed;
        case Kind::Bid:
            if (req.calza_offer || a.face < 1 || a.face > 6 || a.face > req.min_count.size()) return false;
            return req.min_count[a.face - 1] > 0 && req.min_count[a.face - 1] <= a.count &&
                   a.count <= req.dice_in_play;
    }
    return false;
}

Action fallback(const Request& req) {
    if (req.calza_offer) return make(Kind::Pass);
    for (uint32_t face = 1; face <= req.min_count.size() && face <= 6; ++face) {
        Action bid = make(Kind::Bid, req.min_count[face - 1], face);
        if (legal(req, bid)) return bid;
    }
    return req.dudo_allowed ? make(Kind::Dudo) : make(Kind::Calza);
}

Action decide(const Request& req) {
    const Bid* standing = req.bids.empty() ? nullptr : &req.bids.back();
    Odds now = standing ? odds(req, standing->count, standing->face) : Odds{1, 0};
    bool calza_gains = req.my_dice.size() < req.most_dice;
    if (req.calza_offer) {
        bool call = standing && req.calza_allowed && calza_gains && now.exactly >= kCalzaAt + 0.08;
        return call ? make(Kind::Calza) : make(Kind::Pass);
    }
    // The likeliest raise; ties go to the higher count, then the higher face.
    Action best = make(Kind::Dudo);
    double best_p = -1;
    for (uint32_t face = 1; face <= req.min_count.size() && face <= 6; ++face) {
        uint32_t least = req.min_count[face - 1];
        if (least == 0) continue;
        for (uint32_t count = least; count <= req.dice_in_play && count <= least + kRaiseSteps; ++count) {
            double p = odds(req, count, face).at_least;
            if (p > best_p + 1e-12 || (std::abs(p - best_p) <= 1e-12 && count >= best.count)) {
                best = make(Kind::Bid, count, face);
                best_p = p;
            }
        }
    }
    Action chosen = best;
    if (standing) {
        if (req.calza_allowed && calza_gains && now.exactly >= kCalzaAt && now.at_least < 0.8) {
            chosen = make(Kind::Calza);
        } else if (req.dudo_allowed && now.at_least < kDudoBelow && now.at_least <= best_p) {
            chosen = make(Kind::Dudo);
        }
    }
    return legal(req, chosen) ? chosen : fallback(req);
}

const char* name(Kind kind) {
    switch (kind) {
        case Kind::Bid: return "bid";
        case Kind::Dudo: return "dudo";
        case Kind::Calza: return "calza";
        case Kind::Pass: return "pass";
    }
    return "pass";
}

}  // namespace strategy
