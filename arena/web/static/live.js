/* The live page: the state the server sends first, then every change, over server-sent events.
 * A page that loses its stream reconnects by itself and is sent the whole state again. */
"use strict";

(() => {
  const { el, shown } = Perudo;
  const $ = (id) => document.getElementById(id);
  const CLOSED_SHOWN_MS = 4000; // a finished table keeps its final order on screen this long
  const KEEP_POINTS = 400; // the chart thins itself as the server does (spectator.CHART_POINTS)
  const KEEP_FINISHED = 300;
  const JUST_FINISHED_SHOWN = 4; // finished tables shown at once, the latest
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

  /* Whether the ladder plays now: then no night is on, and the header and the top of the page
   * are the ladder's. */
  function ladderPlays() {
    return Boolean(state.ladder) && state.ladder.state === "running";
  }

  function drawProgress() {
    if (ladderPlays()) {
      const ladder = state.ladder;
      $("tournament").textContent = "ladder " + ladder.state + ", " + ladder.tables_said;
      $("done").textContent = ladder.played + " ladder games played";
      $("rate").textContent = ladder.rate.toFixed(2) + " games/s";
      $("eta").textContent = "";
      $("bar").style.width = "100%";
      $("building").textContent = "";
      return;
    }
    const p = state.progress;
    $("tournament").textContent = state.tournament ? shown(state.tournament) : "waiting for the tournament to start";
    $("done").textContent = p.done + " / " + p.total + " games";
    $("rate").textContent = p.rate.toFixed(2) + " games/s";
    $("eta").textContent = "ETA " + duration(p.eta);
    $("bar").style.width = (p.total ? (100 * p.done) / p.total : 0) + "%";
    $("building").textContent = state.building.length ? "building: " + shown(state.building.join(", ")) : "";
  }

  /* Each column with how much room it may give up: a column of level 1 is hidden when the
   * leaderboard's panel is narrow, of level 2 sooner (style.css, by the panel's own width), so
   * that on a phone or beside the tables every column left is whole and the names have room. */
  const COLUMNS = [["#", 0], ["bot", 0], ["rating", 0], ["mu", 2], ["sigma", 2], ["games", 1],
    ["wins", 2], ["win%", 0], ["place", 1], ["faults", 0], ["ms", 1]];
  /* With the batch fit's columns, wins and place give way to them, as on the terminal (win% and
   * the rank range say much of them; leaderboard.json keeps both). */
  const SURE_COLUMNS = [["#", 0], ["bot", 0], ["rating", 0], ["mu", 2], ["sigma", 2], ["ranks", 0],
    ["P1", 0], ["above next", 0], ["games", 1], ["win%", 1], ["faults", 0], ["ms", 1]];

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
    const columns = board ? SURE_COLUMNS : COLUMNS;
    // The final board has three columns more, and no table is in play: it takes the room.
    document.querySelector("main").classList.toggle("final", Boolean(board));
    const level = new Map(columns);
    const cell = (tag, header, attrs, ...children) => {
      const cls = [attrs.cls, level.get(header) ? "give" + level.get(header) : null,
        ["ranks", "P1", "above next"].includes(header) ? "sure" : null].filter(Boolean).join(" ");
      return el(tag, Object.assign({}, attrs, { cls: cls || null }), ...children);
    };
    $("standings").querySelector("thead").replaceChildren(
      el("tr", {}, ...columns.map(([h]) => cell("th", h, { cls: h === "bot" ? "bot" : null, text: h }))));
    const body = $("standings").querySelector("tbody");
    body.replaceChildren();
    const names = state.entrants;
    for (const row of state.standings) {
      const colour = Perudo.COLOURS[names.indexOf(row.bot) % Perudo.COLOURS.length];
      const above = row.p_above_next;
      const values = {
        "#": [String(row.rank)], rating: [row.rating.toFixed(2)], mu: [row.mu.toFixed(2)],
        sigma: [row.sigma.toFixed(2)], games: [String(row.games)], wins: [String(row.wins)],
        "win%": [(100 * row.win_rate).toFixed(1)], place: [row.average_place.toFixed(2)],
        faults: [String(row.faults), row.faults ? "bad" : null], ms: [row.median_decision_ms.toFixed(1)],
        ranks: [row.rank_range ?? "\u2013", "ranks"],
        P1: [row.p_first === undefined ? "\u2013" : percent(row.p_first), "p1"],
        "above next": [above === undefined ? "\u2013" : percent(above),
          "above" + (board && above < board.level ? " unsure" : "")],
      };
      const tr = el("tr", { "data-bot": row.bot });
      for (const [h] of columns) {
        if (h === "bot") {
          // One line, however long the name: cut with an ellipsis, the whole name as its title.
          tr.append(cell("td", h, { cls: "bot", title: Perudo.shown(row.bot) },
            el("span", { cls: "swatch", style: "background:" + colour }), el("span", { text: row.bot })));
        } else {
          const [text, cls] = values[h];
          tr.append(cell("td", h, { cls: "num" + (cls ? " " + cls : ""), text }));
        }
      }
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
    // The tables in play first, the just finished after them, so that on a projector the
    // live ones are in sight; of those finished, the latest few (a ladder finishes games a
    // few a second: they are enough to see how games end, and the ladder's board stays near).
    const all = [...tables.values()];
    const inPlay = all.filter((table) => !table.order);
    const finished = all.filter((table) => table.order).slice(-JUST_FINISHED_SHOWN);
    for (const table of [...inPlay, ...finished]) box.append(Perudo.render(table));
    const playing = inPlay.length;
    // A finished table stays a moment with its final order: it is no longer "in play", and the
    // title counts it apart, so that its numbers add up to the cards beneath it.
    const over = finished.length;
    $("tables-title").textContent = "Tables in play (" + playing + ")";
    $("playing").textContent = over ? "and " + over + " just finished" : "";
  }

  function drawFinished() {
    const list = $("finished");
    list.replaceChildren();
    for (const game of state.finished.slice(0, 60)) {
      const link = el("a", { href: "replay/" + encodeURIComponent(game.game), text: game.game });
      list.append(el("li", {}, link, " ", Perudo.who(game.ranking[0]), " won",
        game.faults ? el("span", { cls: "bad", text: " \u2022 " + game.faults + " fault(s)" }) : null));
    }
  }

  function drawFaults() {
    const list = $("faults");
    list.replaceChildren();
    for (const f of state.faults.slice(0, 12)) {
      list.append(el("li", {}, Perudo.who(f.bot), " " + f.fault + " in " + f.game + ": " + f.detail
        + (f.sent ? " \u2014 sent " + f.sent : "")));
    }
    if (!state.faults.length) list.append(el("li", { cls: "none", text: "No faults" }));
  }

  function drawNotes() {
    $("notes").replaceChildren(...state.notes.slice(-4).map((n) => el("li", { text: n })));
    $("notes-title").hidden = !state.notes.length;
  }

  /* A league server's ladder (null elsewhere, and on a server that has none): its board, its
   * round in play and its latest games, each linked to its replay on the league's pages. While
   * it plays no night is on, so it comes first. */
  function drawLadder() {
    const ladder = state.ladder;
    $("ladder").hidden = !ladder;
    // While it plays, its tables in play come first, then its board; a night's leaderboard,
    // empty until a night, gives way.
    document.querySelector("main").classList.toggle("ladder-first", ladderPlays());
    $("night-standings").hidden = ladderPlays() && !state.standings.length;
    if (!ladder) return;
    $("ladder-state").textContent = ladder.state + ", " + ladder.tables_said;
    const playing = [];
    for (const table of ladder.tables) {
      playing.push(playing.length ? "; " : "In play: ", el("span", { cls: "round", text: table.round }), " ");
      table.seats.forEach((name, seat) => playing.push(seat ? ", " : "", Perudo.who(name)));
    }
    $("ladder-table").replaceChildren(...(playing.length ? playing : ["No table in play."]));
    $("ladder-error").textContent = ladder.error ? "Last trouble: " + shown(ladder.error) : "";
    $("ladder-standings").querySelector("tbody").replaceChildren(...ladder.standings.map((row) =>
      el("tr", { "data-bot": row.bot },
        el("td", { cls: "num", text: String(row.rank) }),
        el("td", { cls: "bot", title: shown(row.bot), text: row.bot }),
        el("td", { cls: "num", text: row.rating.toFixed(2) }),
        el("td", { cls: "num", text: row.mu.toFixed(2) }),
        el("td", { cls: "num", text: row.sigma.toFixed(2) }),
        el("td", { cls: "num", text: String(row.games) }))));
    const list = $("ladder-latest");
    list.replaceChildren();
    for (const game of ladder.latest) {
      const href = "league/replay/" + encodeURIComponent(game.round) + "/" + encodeURIComponent(game.game);
      const order = [];
      for (const name of game.ranking) order.push(order.length ? ", " : "", Perudo.who(name));
      list.append(el("li", { "data-game": game.round + "/" + game.game },
        el("a", { href, text: game.game }), " ", el("span", { cls: "round", text: game.round }), ": ", ...order));
    }
    if (!ladder.latest.length) list.append(el("li", { cls: "none", text: "No ladder game yet" }));
  }

  const DRAW = { progress: drawProgress, standings: drawStandings, tables: drawTables,
    finished: drawFinished, faults: drawFaults, notes: drawNotes, ladder: drawLadder };
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
    ladder(m) { // the ladder moved: its whole view, as the state would give it
      state.ladder = m.ladder;
      want("ladder", "progress");
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
