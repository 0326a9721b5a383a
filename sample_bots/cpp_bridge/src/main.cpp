// cpp-bridge: a Perudo Arena sample bot in C++ that speaks JSON lines to the arena's bridge
// (`python -m arena.kit.bridge -- ./bin/bot`) instead of gRPC.
//
// One JSON object per line on stdin: a `"request"` is answered with exactly one line on
// stdout, flushed at once; a `"game_over"` needs no answer. stdout carries answers only: the
// few log lines go to stderr. When stdin closes, the session is over and the bot exits 0.
#include <iostream>
#include <string>

#include "json.hpp"
#include "strategy.hpp"

namespace {

/// The answer line for one request. A request it cannot read in full still gets an answer:
/// the strategy only ever picks what the request's own fields say is legal.
std::string answer(const json::Value& line) {
    strategy::Request req = strategy::Request::from(line);
    strategy::Action action = strategy::decide(req);
    return "{\"request_id\":" + std::to_string(req.request_id) + ",\"action\":\"" +
           strategy::name(action.kind) + "\",\"count\":" + std::to_string(action.count) +
           ",\"face\":" + std::to_string(action.face) + "}";
}

void log_game_over(const json::Value& line) {
    const json::Value& fault = line["fault"];
    if (!fault.is_null()) {
        std::cerr << "cpp-bridge: game " << line["game_id"].as_string() << ": fault "
                  << fault["kind"].as_string() << ": " << fault["detail"].as_string() << "\n";
    }
}

}  // namespace

int main() {
    std::ios::sync_with_stdio(false);
    std::string text;
    int games = 0;
    while (std::getline(std::cin, text)) {
        json::Value line;
        try {
            line = json::parse(text);
        } catch (const json::ParseError& error) {
            std::cerr << "cpp-bridge: a line that is not JSON (" << error.what() << ")\n";
            continue;
        }
        const std::string& type = line["type"].as_string();
        if (type == "request") {
            std::cout << answer(line) << "\n" << std::flush;  // unflushed, it is a timeout
        } else if (type == "game_over") {
            ++games;
            log_game_over(line);
        }
    }
    std::cerr << "cpp-bridge: session over after " << games << " game(s)\n";
    return 0;
}
