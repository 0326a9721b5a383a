'use strict';
// Perudo Arena sample bot "js-calza": the connection side. It dials the
// referee, opens one Play stream per session and answers every request with
// the action chosen in strategy.js.

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { decide, isLegal } = require('./strategy');

// A copy of the arena's proto/perudo/v1/referee.proto, so that this folder works anywhere.
const PROTO = path.join(__dirname, 'proto', 'perudo', 'v1', 'referee.proto');
const BOT_VERSION = 'js-calza 1';
const CONNECT_TIMEOUT_MS = 10000; // the referee may still be starting up

function log(line) {
  process.stderr.write(`js-calza: ${line}\n`);
}

// Settings from the arena's environment, overridden by --flag value or --flag=value.
function settings(argv) {
  const s = {
    address: process.env.PERUDO_ADDRESS || '127.0.0.1:50051',
    name: process.env.PERUDO_BOT_NAME || 'js-calza',
    token: process.env.PERUDO_TOKEN || '',
    sessions: process.env.PERUDO_SESSIONS || '1',
    tls: !['', '0', undefined].includes(process.env.PERUDO_TLS),
    caFile: process.env.PERUDO_CA_FILE || '',
  };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--tls') {
      s.tls = true;
      continue;
    }
    const m = /^--(address|name|token|sessions|ca-file)(?:=(.*))?$/.exec(argv[i]);
    if (!m) throw new Error(`unknown argument ${argv[i]}`);
    const key = m[1] === 'ca-file' ? 'caFile' : m[1];
    s[key] = m[2] !== undefined ? m[2] : argv[++i];
    if (s[key] === undefined) throw new Error(`--${m[1]} needs a value`);
  }
  s.sessions = Math.max(1, parseInt(s.sessions, 10) || 1);
  return s;
}

// Plaintext, or TLS when PERUDO_TLS or PERUDO_CA_FILE says so, trusting the CA
// file if given and the system's CAs otherwise.
function credentials(cfg) {
  if (cfg.caFile) return grpc.credentials.createSsl(fs.readFileSync(cfg.caFile));
  if (cfg.tls) return grpc.credentials.createSsl();
  return grpc.credentials.createInsecure();
}

// The safest legal answer, used only if the strategy throws or errs: a
// fault costs far more than a weak move.
function fallback(req) {
  if (req.kind === 'REQUEST_KIND_CALZA_OFFER') return { kind: 'ACTION_KIND_PASS' };
  if (req.dudo_allowed) return { kind: 'ACTION_KIND_DUDO' };
  const face = req.min_count.findIndex((m) => m > 0) + 1;
  return { kind: 'ACTION_KIND_BID', count: req.min_count[face - 1], face };
}

function choose(req) {
  try {
    const action = decide(req);
    if (isLegal(req, action)) return action;
    log(`strategy chose an illegal ${JSON.stringify(action)}; using fallback`);
  } catch (err) {
    log(`strategy failed: ${err.message}; using fallback`);
  }
  return fallback(req);
}

// One session. Resolves when the stream is over: with true if the referee
// welcomed us, false if it never did (bad token, wrong name, ...).
function playSession(client, cfg, n) {
  return new Promise((resolve) => {
    const call = client.Play();
    let welcomed = false;
    const endOurSide = () => { if (!call.writableEnded) call.end(); };

    call.on('data', (msg) => {
      switch (msg.kind) {
        case 'welcome':
          welcomed = true;
          log(`session ${n}: welcome ${msg.welcome.session_id}`);
          break;
        case 'request': {
          const req = msg.request;
          // request_id is a uint64 decoded as a string: echo it unchanged.
          call.write({ reply: { request_id: req.request_id, action: choose(req) } });
          break;
        }
        case 'ping':
          // At once: the referee times our link by it (the nonce, a uint64 string, echoed).
          call.write({ pong: { nonce: msg.ping.nonce } });
          break;
        case 'game_over':
          if (msg.game_over.fault) {
            const f = msg.game_over.fault;
            log(`session ${n}: fault in game ${msg.game_over.game_id}: ${f.kind} ${f.detail}`);
          }
          break;
        case 'goodbye':
          log(`session ${n}: goodbye (${msg.goodbye.reason})`);
          endOurSide();
          break;
        default:
          log(`session ${n}: unexpected message ${msg.kind}`);
      }
    });
    // The referee half-closed without a Goodbye: close our side too.
    call.on('end', endOurSide);
    call.on('error', (err) => {
      log(`session ${n}: stream error ${grpc.status[err.code] || err.code}: ${err.details}`);
    });
    // 'status' comes last in every case, so it marks the end of the session.
    call.on('status', () => resolve(welcomed));

    call.write({
      hello: {
        name: cfg.name,
        token: cfg.token,
        protocol_version: 1,
        bot_version: BOT_VERSION,
        answers_ping: true, // pings are answered above: our link is not charged as thinking
      },
    });
  });
}

async function main() {
  let cfg;
  try {
    cfg = settings(process.argv.slice(2));
  } catch (err) {
    log(err.message);
    return 2;
  }
  const def = protoLoader.loadSync(PROTO, {
    keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
  });
  const { RefereeService } = grpc.loadPackageDefinition(def).perudo.v1;
  // Short reconnect backoff so that a referee that comes up late is found quickly.
  let creds;
  try {
    creds = credentials(cfg);
  } catch (err) {
    log(`cannot read the CA file: ${err.message}`);
    return 2;
  }
  const client = new RefereeService(cfg.address, creds, {
    'grpc.initial_reconnect_backoff_ms': 200,
    'grpc.max_reconnect_backoff_ms': 1000,
  });

  try {
    await new Promise((resolve, reject) => client.waitForReady(Date.now() + CONNECT_TIMEOUT_MS,
      (err) => (err ? reject(err) : resolve())));
  } catch (err) {
    log(`cannot reach the referee at ${cfg.address}: ${err.message}`);
    client.close();
    return 1;
  }

  const sessions = [];
  for (let i = 0; i < cfg.sessions; i++) sessions.push(playSession(client, cfg, i + 1));
  const ok = await Promise.all(sessions);
  client.close();
  // A session that never got a Welcome (wrong token, ...) is worth a non-zero exit.
  return ok.every(Boolean) ? 0 : 1;
}

main().then((code) => {
  process.exitCode = code;
  // Everything is closed, so node should exit by itself; make sure it does.
  setTimeout(() => process.exit(code), 2000).unref();
});
