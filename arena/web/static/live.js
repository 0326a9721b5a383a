/* The live page: the state the server sends first, then every change, over server-sent events.
 * A page that loses its stream reconnects by itself and is sent the whole state again. */
"use strict";

(() => {
  const { el } = Perudo;
  const $ = (id) => document.getElementById(id);
  const CLOSED_SHOWN_MS = 4000; // a finished table keeps its final order on screen this long
  const KEEP_POINTS = 400; // the chart thins itself as the server does (spectator.CHART_POINTS)
  const KEEP_FINISHED = 300;
  let state = null;
  let tables = new Map(); // game id -> folded table
  let closing = new Map(); // game id -> timer

  function duration(seconds) {
    if (seconds === null || seconds === undefined) return "\u2013";
    const s = Math.round(seconds);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    return (h ? h + " h " : "") + (h || m ? m + " min " : "") + (s % 60) + " s";
  }

  function drawProgress() {
    const p = state.progress;
    $("tournament").textContent = state.tournament || "waiting for the tournament to start";
    $("done").textContent = p.done + " / " + p.total + " games";
    $("rate").textContent = p.rate.toFixed(2) + " games/s";
    $("eta").textContent = "ETA " + duration(p.eta);
    $("bar").style.width = (p.total ? (100 * p.done) / p.total : 0) + "%";
    $("building").textContent = state.building.length ? "building: " + state.building.join(", ") : "";
  }

  function drawStandings() {
    const body = $("standings").querySelector("tbody");
    body.replaceChildren();
    const names = state.entrants;
    for (const row of state.standings) {
      const colour = Perudo.COLOURS[names.indexOf(row.bot) % Perudo.COLOURS.length];
      const cells = [
        String(row.rank), null, row.rating.toFixed(2), row.mu.toFixed(2), row.sigma.toFixed(2),
        String(row.games), String(row.wins), (100 * row.win_rate).toFixed(1),
        row.average_place.toFixed(2), String(row.faults), row.median_decision_ms.toFixed(1),
      ];
      const tr = el("tr", { "data-bot": row.bot });
      cells.forEach((text, i) => {
        if (i === 1) {
          tr.append(el("td", { cls: "bot" }, el("span", { cls: "swatch", style: "background:" + colour }), el("span", { text: row.bot })));
        } else {
          tr.append(el("td", { cls: i === 9 && row.faults ? "num bad" : "num", text }));
        }
      });
      body.append(tr);
    }
    $("chart").replaceChildren(Perudo.chart(state.chart, names));
  }

  function drawTables() {
    const box = $("tables");
    box.replaceChildren();
    for (const table of tables.values()) box.append(Perudo.render(table));
    $("playing").textContent = tables.size ? "(" + tables.size + ")" : "";
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
  };

  function connect() {
    const source = new EventSource("events");
    source.onopen = () => { $("link").textContent = "live"; $("link").className = "link up"; };
    source.onerror = () => { $("link").textContent = "reconnecting\u2026"; $("link").className = "link down"; };
    source.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.kind !== "state" && state === null) return;
      handlers[message.kind](message);
    };
  }

  connect();
})();
