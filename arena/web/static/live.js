/* The live page: the state the server sends first, then every change, over server-sent events.
 * A page that loses its stream reconnects by itself and is sent the whole state again. */
"use strict";

(() => {
  const { el, shown } = Perudo;
  const $ = (id) => document.getElementById(id);
  const CLOSED_SHOWN_MS = 4000; // a finished table keeps its final order on screen this long
  const KEEP_POINTS = 400; // the chart thins itself as the server does (spectator.CHART_POINTS)
  const KEEP_FINISHED = 300;
  let state = null;
  let tables = new Map(); // game id -> folded table
  let closing = new Map(); // game id -> timer
  let stopped = false;

  function duration(seconds) {
    if (seconds === null || seconds === undefined) return "\u2013";
    const s = Math.round(seconds);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    return (h ? h + " h " : "") + (h || m ? m + " min " : "") + (s % 60) + " s";
  }

  function drawProgress() {
    const p = state.progress;
    $("tournament").textContent = state.tournament ? shown(state.tournament) : "waiting for the tournament to start";
    $("done").textContent = p.done + " / " + p.total + " games";
    $("rate").textContent = p.rate.toFixed(2) + " games/s";
    $("eta").textContent = "ETA " + duration(p.eta);
    $("bar").style.width = (p.total ? (100 * p.done) / p.total : 0) + "%";
    $("building").textContent = state.building.length ? "building: " + shown(state.building.join(", ")) : "";
  }

  const HEADERS = ["#", "bot", "rating", "mu", "sigma", "games", "wins", "win%", "place", "faults", "ms"];
  /* With the batch fit's columns, wins and place give way to them, as on the terminal (win% and
   * the rank range say much of them; leaderboard.json keeps both). */
  const SURE_HEADERS = ["#", "bot", "rating", "mu", "sigma", "ranks", "P1", "above next", "games", "win%", "faults", "ms"];

  function percent(p) {
    const x = 100 * p;
    if (x > 0 && x < 1) return "<1%";
    if (x > 99 && x < 100) return ">99%";
    return x.toFixed(0) + "%";
  }

  /* The standings as the terminal shows them; once the run has ended, its final board with
   * the batch fit's confidence: each bot's rank range, its chance of rank 1, and the share of
   * bootstrap copies that put it above the bot under it (marked when short of the level). */
  function drawStandings() {
    const board = state.board;
    const headers = board ? SURE_HEADERS : HEADERS;
    // The final board has three columns more, and no table is in play: it takes the room.
    document.querySelector("main").classList.toggle("final", Boolean(board));
    $("standings").querySelector("thead").replaceChildren(
      el("tr", {}, ...headers.map((h) => el("th", { cls: ["ranks", "P1", "above next"].includes(h) ? "sure" : null, text: h }))));
    const body = $("standings").querySelector("tbody");
    body.replaceChildren();
    const names = state.entrants;
    for (const row of state.standings) {
      const colour = Perudo.COLOURS[names.indexOf(row.bot) % Perudo.COLOURS.length];
      const tr = el("tr", { "data-bot": row.bot });
      const num = (text, cls) => el("td", { cls: "num" + (cls ? " " + cls : ""), text });
      tr.append(num(String(row.rank)),
        el("td", { cls: "bot" }, el("span", { cls: "swatch", style: "background:" + colour }), el("span", { text: row.bot })),
        num(row.rating.toFixed(2)), num(row.mu.toFixed(2)), num(row.sigma.toFixed(2)));
      if (board) {
        const above = row.p_above_next;
        tr.append(num(row.rank_range ?? "\u2013", "sure ranks"),
          num(row.p_first === undefined ? "\u2013" : percent(row.p_first), "sure p1"),
          num(above === undefined ? "\u2013" : percent(above), "sure above" + (above < board.level ? " unsure" : "")),
          num(String(row.games)), num((100 * row.win_rate).toFixed(1)));
      } else {
        tr.append(num(String(row.games)), num(String(row.wins)), num((100 * row.win_rate).toFixed(1)),
          num(row.average_place.toFixed(2)));
      }
      tr.append(num(String(row.faults), row.faults ? "bad" : null), num(row.median_decision_ms.toFixed(1)));
      body.append(tr);
    }
    $("caption").textContent = board && board.level !== undefined
      ? "rating = mu \u2212 3 sigma; ms: median decision; ranks: the " + percent(board.level) + " range of rank, "
        + "P1: the chance of rank 1, above next: the share of bootstrap copies putting the bot above the one "
        + "under it, by a batch fit over " + board.groups + " rotation groups"
      : "rating = mu \u2212 3 sigma; place: average finishing place; ms: median decision";
    $("separation").textContent = board ? shown(board.separation) : "";
    $("chart").replaceChildren(Perudo.chart(state.chart, names));
  }

  function drawTables() {
    const box = $("tables");
    box.replaceChildren();
    let playing = 0;
    for (const table of tables.values()) {
      box.append(Perudo.render(table));
      if (!table.order) playing += 1;
    }
    // A finished table stays a moment with its final order: it is no longer "in play".
    $("tables-title").textContent = playing || !tables.size ? "Tables in play" : "Tables just finished";
    $("playing").textContent = playing ? "(" + playing + ")" : "";
  }

  function drawFinished() {
    const list = $("finished");
    list.replaceChildren();
    for (const game of state.finished.slice(0, 60)) {
      const link = el("a", { href: "replay/" + encodeURIComponent(game.game), text: game.game });
      list.append(el("li", {}, link, " ", el("b", { text: game.ranking[0] }), " won",
        game.faults ? el("span", { cls: "bad", text: " \u2022 " + game.faults + " fault(s)" }) : null));
    }
  }

  function drawFaults() {
    const list = $("faults");
    list.replaceChildren();
    for (const f of state.faults.slice(0, 12)) {
      list.append(el("li", {}, el("b", { text: f.bot }), " " + f.fault + " in " + f.game + ": " + f.detail
        + (f.sent ? " \u2014 sent " + f.sent : "")));
    }
  }

  function drawNotes() {
    $("notes").replaceChildren(...state.notes.slice(-4).map((n) => el("li", { text: n })));
  }

  const DRAW = { progress: drawProgress, standings: drawStandings, tables: drawTables,
    finished: drawFinished, faults: drawFaults, notes: drawNotes };
  const dirty = new Set();

  /* Draw the parts that changed once per frame: a burst of events (the server sends what
   * happened since its last write at once) is one redraw, light on a phone. */
  function want(...parts) {
    if (!dirty.size) requestAnimationFrame(() => {
      for (const part of dirty) DRAW[part]();
      dirty.clear();
    });
    for (const part of parts) dirty.add(part);
  }

  function onTable(e) {
    let table = tables.get(e.game);
    if (e.kind === "open" || !table) {
      table = Perudo.newTable();
      tables.set(e.game, table);
    }
    Perudo.apply(table, e);
  }

  const handlers = {
    state(m) {
      state = m;
      tables = new Map();
      for (const log of m.tables) for (const e of log) onTable(e);
      want(...Object.keys(DRAW));
    },
    game(m) {
      state.progress = m.progress;
      state.standings = m.standings;
      state.chart.push(m.point);
      if (state.chart.length > KEEP_POINTS) state.chart = state.chart.filter((_, i) => i % 2 === 0);
      state.finished.unshift(m.finished);
      state.finished.length = Math.min(state.finished.length, KEEP_FINISHED);
      want("progress", "standings", "finished");
    },
    table(m) {
      onTable(m.event);
      want("tables");
    },
    closed(m) {
      if (closing.has(m.game)) return;
      closing.set(m.game, setTimeout(() => {
        closing.delete(m.game);
        tables.delete(m.game);
        want("tables");
      }, CLOSED_SHOWN_MS));
    },
    fault(m) {
      state.faults.unshift(m);
      state.faults.length = Math.min(state.faults.length, 60);
      want("faults");
    },
    note(m) {
      state.notes.push(m.text);
      want("notes");
    },
    building(m) {
      state.building = m.building;
      want("progress");
    },
    bye() { // the server is stopping (the run is over): the page stays as it is
      stopped = true;
      $("link").textContent = "ended";
      $("link").className = "link";
    },
    board(m) { // the run is over: its final leaderboard, with the batch fit's confidence
      state.board = m;
      state.standings = m.standings;
      want("standings");
    },
  };

  function connect() {
    const source = new EventSource("events");
    source.onopen = () => { $("link").textContent = "live"; $("link").className = "link up"; };
    source.onerror = () => {
      if (stopped) return source.close(); // the server said it was stopping: nothing to reconnect to
      $("link").textContent = "reconnecting\u2026";
      $("link").className = "link down";
    };
    source.onmessage = (event) => { // what happened since the server's last tick, in order
      for (const message of JSON.parse(event.data)) {
        if (message.kind !== "state" && state === null) continue;
        handlers[message.kind](message);
      }
    };
  }

  connect();
})();
