// The strategy: binomial odds, nudged by what the other seats bid this round.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "json.hpp"

namespace strategy {

struct Bid {
    uint32_t seat = 0, count = 0, face = 0;
};

/// The fields of a request the strategy reads (the bridge sends them all; see the README).
struct Request {
    uint64_t request_id = 0;
    bool calza_offer = false;  ///< kind "calza_offer", else a turn
    uint32_t seat = 0;
    std::vector<uint32_t> my_dice;
    std::vector<Bid> bids;
    std::vector<uint32_t> min_count;  ///< face f's smallest legal count at f-1; 0: not biddable
    bool dudo_allowed = false, calza_allowed = false, palifico = false;
    uint32_t dice_in_play = 0;
    uint32_t most_dice = 5;  ///< the hand a calza cannot grow past (calza_max_dice, else dice_per_player)

    /// Reads a request line's object; a missing or odd field is read as 0, false or empty.
    static Request from(const json::Value& v);
};

enum class Kind { Bid, Dudo, Calza, Pass };

struct Action {
    Kind kind = Kind::Pass;
    uint32_t count = 0, face = 0;
};

/// The action for one request: always one the request says is legal.
Action decide(const Request& req);

/// Whether `action` is legal by the request's own fields (min_count, dudo_allowed, ...).
bool legal(const Request& req, const Action& action);

/// The first legal action of: pass (a calza offer), the smallest bid, dudo, calza.
Action fallback(const Request& req);

/// P(at least `count` dice count for `face`) and P(exactly), from the bot's view.
struct Odds {
    double at_least = 0, exactly = 0;
};
Odds odds(const Request& req, uint32_t count, uint32_t face);

const char* name(Kind kind);

}  // namespace strategy
