'use strict';
// A minimal Perudo Arena bot in JavaScript (Node 20+, @grpc/grpc-js, @grpc/proto-loader).
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = path.join(__dirname, 'proto', 'perudo', 'v1', 'referee.proto');
// keepCase: field names as in the .proto; longs: String keeps the uint64 request_id
// exact; enums: String gives 'REQUEST_KIND_TURN'; defaults: false/0 fields are present.
const def = protoLoader.loadSync(PROTO, {
  keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
});
const { RefereeService } = grpc.loadPackageDefinition(def).perudo.v1;

function matches(dice, face, palifico) { // how many of my dice count for `face`
  const wild = !palifico && face !== 1;
  return dice.filter((d) => d === face || (wild && d === 1)).length;
}

function decide(req) {
  if (req.kind === 'REQUEST_KIND_CALZA_OFFER') return { kind: 'ACTION_KIND_PASS' };
  const { my_dice: dice, palifico, min_count: floor } = req;
  if (req.dudo_allowed) {
    const bid = req.bids[req.bids.length - 1];
    const unseen = req.dice_in_play - dice.length;
    const per = !palifico && bid.face !== 1 ? 3 : 6;
    if (bid.count > matches(dice, bid.face, palifico) + unseen / per) {
      return { kind: 'ACTION_KIND_DUDO' };
    }
  }
  let best = 0;
  let most = -1;
  for (let face = 1; face <= 6; face++) {
    const m = matches(dice, face, palifico);
    if (floor[face - 1] > 0 && m >= most) { best = face; most = m; }
  }
  if (best === 0) return { kind: 'ACTION_KIND_DUDO' }; // no legal raise is left
  return { kind: 'ACTION_KIND_BID', count: floor[best - 1], face: best };
}

function playSession(client) {
  return new Promise((resolve) => {
    const call = client.Play();
    call.on('data', (msg) => {
      if (msg.kind === 'request') {
        const req = msg.request;
        call.write({ reply: { request_id: req.request_id, action: decide(req) } });
      } else if (msg.kind === 'game_over' && msg.game_over.fault) {
        const f = msg.game_over.fault;
        console.error(`fault in ${msg.game_over.game_id}: ${f.kind}: ${f.detail}`);
      } else if (msg.kind === 'goodbye') {
        call.end();
      }
    });
    call.on('error', (err) => console.error(`stream error: ${err.code} ${err.details}`));
    call.on('status', () => resolve()); // always the last event of a call
    call.write({
      hello: {
        name: process.env.PERUDO_BOT_NAME,
        token: process.env.PERUDO_TOKEN,
        protocol_version: 1,
        bot_version: 'minimal-js 1',
      },
    });
  });
}

async function main() {
  const client = new RefereeService(process.env.PERUDO_ADDRESS, grpc.credentials.createInsecure());
  const sessions = Math.max(1, parseInt(process.env.PERUDO_SESSIONS || '1', 10));
  await Promise.all(Array.from({ length: sessions }, () => playSession(client)));
  client.close();
}

main();
