//! rust-bridge: a Perudo Arena sample bot that speaks JSON lines to the arena's
//! bridge (`python -m arena.kit.bridge -- ./target/release/bot`) instead of gRPC.
//!
//! One JSON object per line on stdin: `{"type":"request",...}` must be answered
//! with exactly one line on stdout, `{"type":"game_over",...}` needs no answer.
//! stdout carries answers only; the few log lines go to stderr.
//!
//! Decisions are made by `strategy` from the request alone, plus what this
//! session has learned of its opponents' bidding from the hands revealed so
//! far (`Reads`).

mod strategy;

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};

use serde::Serialize;
use serde_json::Value;

use strategy::{Action, ActionKind, GameOver, Reads, Request};

/// One answer line, as the bridge reads it.
#[derive(Serialize)]
struct Answer {
    request_id: u64,
    action: ActionKind,
    count: u32,
    face: u32,
}

/// The answer to one request line that is already parsed as JSON. A request
/// whose fields cannot be read as expected still gets a legal-looking answer,
/// made from whatever fields can be read.
fn answer(value: Value, reads: &mut Reads) -> Answer {
    let request_id = value.get("request_id").and_then(Value::as_u64).unwrap_or(0);
    let action = match serde_json::from_value::<Request>(value.clone()) {
        Ok(req) => {
            // A bug must cost a good move, never the game: on a panic, answer safely.
            let decided = panic::catch_unwind(AssertUnwindSafe(|| {
                reads.update(&req);
                strategy::decide(&req, &reads.trust(&req))
            }));
            decided.unwrap_or_else(|_| {
                eprintln!(
                    "rust-bridge: the strategy failed on request {request_id}; answering safely"
                );
                strategy::fallback(&req)
            })
        }
        Err(error) => {
            eprintln!("rust-bridge: request {request_id} not fully understood ({error}); answering safely");
            strategy::fallback(&lenient_request(&value))
        }
    };
    let Action { kind, count, face } = action;
    Answer {
        request_id,
        action: kind,
        count,
        face,
    }
}

/// The fields the fallback needs, read one by one, skipping any that are odd.
fn lenient_request(value: &Value) -> Request {
    let get_bool = |k: &str| value.get(k).and_then(Value::as_bool).unwrap_or(false);
    let to_u32 = |v: &Value| v.as_u64().map(|n| n.min(u32::MAX as u64) as u32);
    Request {
        request_id: value.get("request_id").and_then(Value::as_u64).unwrap_or(0),
        kind: value
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        min_count: value
            .get("min_count")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|v| to_u32(v).unwrap_or(0)).collect())
            .unwrap_or_default(),
        dudo_allowed: get_bool("dudo_allowed"),
        calza_allowed: get_bool("calza_allowed"),
        dice_in_play: value.get("dice_in_play").and_then(to_u32).unwrap_or(0),
        ..Request::default()
    }
}

fn main() {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut line = Vec::new();
    let (mut requests, mut ended) = (0u64, 0u64);
    let mut reads = Reads::default();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break, // EOF: the bridge is done with this session
            Ok(_) => {}
            Err(error) => {
                eprintln!("rust-bridge: cannot read stdin: {error}");
                break;
            }
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(error) => {
                eprintln!("rust-bridge: ignoring a line that is not JSON: {error}");
                continue;
            }
        };
        match value.get("type").and_then(Value::as_str) {
            Some("request") => {
                requests += 1;
                let reply = answer(value, &mut reads);
                let written = serde_json::to_writer(&mut out, &reply)
                    .map_err(io::Error::from)
                    .and_then(|()| out.write_all(b"\n"))
                    .and_then(|()| out.flush());
                if written.is_err() {
                    break; // the bridge has gone: nothing left to answer
                }
            }
            Some("game_over") => {
                ended += 1;
                match serde_json::from_value::<GameOver>(value) {
                    Ok(over) => reads.game_over(&over),
                    Err(error) => eprintln!("rust-bridge: game_over not understood: {error}"),
                }
            }
            _ => {} // a message this version does not know: nothing to answer
        }
    }
    eprintln!("rust-bridge: session done, {requests} requests, {ended} games");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> String {
        serde_json::to_string(&answer(
            serde_json::from_str(line).unwrap(),
            &mut Reads::default(),
        ))
        .unwrap()
    }

    #[test]
    fn answers_in_the_bridge_format() {
        let line = r#"{"type":"request","request_id":7,"kind":"turn","seat":1,"my_dice":[2,5,1],
            "dice_counts":[3,3],"bids":[{"seat":0,"count":6,"face":4}],"min_count":[4,7,7,7,7,6],
            "dudo_allowed":true,"calza_allowed":false,"dice_in_play":6}"#;
        assert_eq!(
            reply(line),
            r#"{"request_id":7,"action":"dudo","count":0,"face":0}"#
        );
    }

    #[test]
    fn a_request_with_odd_fields_still_gets_a_legal_answer() {
        // "bids" has the wrong shape: the fallback bids the smallest legal bid.
        let line = r#"{"type":"request","request_id":12345678901,"kind":"turn","bids":"?",
            "min_count":[0,2,2,2,2,2],"dudo_allowed":true,"dice_in_play":10}"#;
        assert_eq!(
            reply(line),
            r#"{"request_id":12345678901,"action":"bid","count":2,"face":6}"#
        );
        let offer = r#"{"type":"request","request_id":3,"kind":"calza_offer","my_dice":"x"}"#;
        assert_eq!(
            reply(offer),
            r#"{"request_id":3,"action":"pass","count":0,"face":0}"#
        );
    }
}
