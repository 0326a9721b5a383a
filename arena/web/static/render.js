/* The one renderer of a Perudo table, for the live page and the HTML replays alike.
 *
 * A table is folded from the events arena/web/spectator.py makes (open, deal, act,
 * fault, end, over): the live page gets them as they happen, with a round's dice
 * only in its "end"; a replay has every deal's dice from the start. Nothing here
 * knows which it draws, so the two never disagree. Bot names, fault details and
 * notes are the bots' own text: they are only ever set as textContent, never as
 * HTML, and every character a browser would obey or hide (controls, bidi
 * overrides, zero-width ones) is shown as its escape, as arena/text.py shows it
 * on the server, which has done so already (twice changes nothing).
 */
"use strict";

const Perudo = (() => {
  const HIDDEN = /(?! )[\p{C}\p{Z}]/gu;
  const SHORT = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

  /* Text as text: each character that is not printable as its escape (\x1b, \u202e). */
  function shown(text) {
    return String(text).replace(HIDDEN, (c) => {
      if (SHORT[c]) return SHORT[c];
      const code = c.codePointAt(0);
      if (code < 0x100) return "\\x" + code.toString(16).padStart(2, "0");
      if (code < 0x10000) return "\\u" + code.toString(16).padStart(4, "0");
      return "\\U" + code.toString(16).padStart(8, "0");
    });
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = shown(value);
      else if (key === "cls") node.className = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(shown(child)));
    }
    return node;
  }

  /* A bot's name in a line of text: on one line, cut with an ellipsis where it is too long
   * for its box (style.css), the whole name as its title. */
  function who(name) {
    return el("b", { cls: "who", text: name, title: shown(name) });
  }

  function face(n) {
    return n === 1 ? "pacos" : n + "s";
  }

  function actionText(action) {
    const words = action.split(" ");
    if (words[0] === "bid") return words[1] + " \u00d7 " + face(Number(words[2]));
    if (action === "pass") return "declines calza";
    return action;
  }

  function nextSeat(dice, seat) {
    const n = dice.length;
    for (let step = 1; step <= n; step++) {
      const candidate = (seat + step) % n;
      if (dice[candidate] > 0) return candidate;
    }
    return null;
  }

  function newTable() {
    return {
      game: "", players: [], ruleset: {}, dice: [], round: 0, opener: 0, palifico: false,
      bids: [], toAct: null, hands: null, reveal: null, order: null, abandoned: false,
      faulted: [], lastBid: null, hiddenWhy: null,
    };
  }

  /* Fold one event into a table (in place); returns the table. */
  function apply(t, e) {
    switch (e.kind) {
      case "open":
        t.game = e.game;
        t.players = e.players.slice();
        t.ruleset = e.ruleset || {};
        t.dice = e.players.map(() => t.ruleset.dice_per_player || 5);
        t.faulted = e.players.map(() => false);
        t.hiddenWhy = e.hidden || null;
        break;
      case "deal":
        t.round = e.round;
        t.opener = e.opener;
        t.palifico = e.palifico;
        t.dice = e.dice.slice();
        t.bids = [];
        t.hands = e.hands ? e.hands.map((h) => h.slice()) : null;
        t.reveal = null;
        t.abandoned = false;
        t.lastBid = null;
        t.toAct = e.opener;
        break;
      case "act": {
        t.bids.push({ seat: e.seat, action: e.action, ms: e.ms, cpu_ms: e.cpu_ms });
        if (e.action.startsWith("bid ")) {
          const [, count, f] = e.action.split(" ");
          t.lastBid = { seat: e.seat, count: Number(count), face: Number(f) };
          t.toAct = nextSeat(t.dice, e.seat);
        } else if (e.action !== "pass") {
          t.toAct = null; // dudo or calza: the reveal comes next
        }
        break;
      }
      case "fault": {
        t.bids.push({ seat: e.seat, fault: e.fault, detail: e.detail, sent: e.sent });
        t.faulted[e.seat] = true;
        const loses = t.ruleset.fault_penalty === "lose_die" ? 1 : t.dice[e.seat];
        t.dice[e.seat] = Math.max(0, t.dice[e.seat] - loses);
        t.abandoned = true;
        t.toAct = null;
        break;
      }
      case "end":
        if (e.hands) t.hands = e.hands.map((h) => h.slice());
        t.reveal = { end: e.end, counted: e.counted, changed: e.changed, change: e.change };
        t.dice[e.changed] = Math.max(0, t.dice[e.changed] + e.change);
        t.toAct = null;
        break;
      case "over":
        t.order = e.ranking.slice();
        t.toAct = null;
        break;
    }
    return t;
  }

  function fold(events) {
    return events.reduce(apply, newTable());
  }

  /* Whether a die counts for the standing bid: its face, or a paco when pacos are wild. */
  function counts(t, die) {
    if (!t.lastBid) return false;
    if (die === t.lastBid.face) return true;
    return die === 1 && t.lastBid.face !== 1 && !t.palifico;
  }

  function dieNode(t, value) {
    const cls = "die" + (t.reveal && counts(t, value) ? " counts" : "");
    return el("span", { cls, text: String(value), title: face(value) });
  }

  function reveal(t) {
    const r = t.reveal;
    const verb = r.change < 0 ? "loses a die" : r.change > 0 ? "gains a die" : "keeps every die";
    const bid = t.lastBid ? " on " + t.lastBid.count + " \u00d7 " + face(t.lastBid.face) : "";
    return el("p", { cls: "reveal" }, r.end + bid + ": " + r.counted + " counted \u2014 ",
      who(t.players[r.changed]), " " + verb);
  }

  function ms(value) {
    return value === undefined || value === null ? "" : value.toFixed(value < 10 ? 1 : 0) + " ms";
  }

  /* A table as a DOM node: seats with dice, this round's bids, and the reveal or final order. */
  function render(t, opts) {
    const options = opts || {};
    const card = el("section", { cls: "table" + (t.order ? " over" : ""), "data-game": t.game });
    const title = el("h3", {}, el("span", { cls: "game", text: t.game }));
    if (t.round) title.append(el("span", { cls: "round", text: "round " + t.round }));
    if (t.palifico) title.append(el("span", { cls: "badge", text: "palifico" }));
    card.append(title);
    const seats = el("ol", { cls: "seats" });
    t.players.forEach((name, seat) => {
      const row = el("li", {
        cls: "seat" + (seat === t.toAct ? " to-act" : "") + (t.dice[seat] === 0 ? " out" : "")
          + (t.faulted[seat] ? " faulted" : ""),
        "data-seat": seat,
      });
      row.append(el("span", { cls: "marker", text: seat === t.toAct ? "\u25b6" : "" }));
      row.append(el("span", { cls: "name", text: name, title: shown(name) }));
      const dice = el("span", { cls: "dice" });
      const hand = t.hands ? t.hands[seat] : null;
      if (hand && hand.length) hand.forEach((v) => dice.append(dieNode(t, v)));
      else for (let i = 0; i < t.dice[seat]; i++) dice.append(el("span", { cls: "die hidden", text: "?" }));
      row.append(dice);
      row.append(el("span", { cls: "count", text: String(t.dice[seat]) }));
      seats.append(row);
    });
    card.append(seats);
    const bids = el("ol", { cls: "bids" });
    t.bids.forEach((b, i) => {
      const name = t.players[b.seat];
      const item = b.fault
        ? el("li", { cls: "fault" }, who(name), " fault " + b.fault + ": " + b.detail
          + (b.sent ? " (sent " + b.sent + ")" : ""))
        : el("li", { cls: i === options.current ? "current" : "" }, who(name),
          " " + actionText(b.action) + " ", el("span", { cls: "ms", text: ms(b.ms) }));
      bids.append(item);
    });
    card.append(bids);
    if (t.hiddenWhy) card.append(el("p", { cls: "caption", text: t.hiddenWhy }));
    if (t.reveal) card.append(reveal(t));
    else if (t.abandoned) card.append(el("p", { cls: "reveal fault", text: "round abandoned by a fault" }));
    if (t.order) {
      const order = el("ol", { cls: "order" });
      t.order.forEach((name) => order.append(el("li", {}, el("span", { cls: "name", text: name, title: shown(name) }))));
      card.append(el("p", { cls: "final", text: "Final order" }), order);
    }
    return card;
  }

  const COLOURS = ["#4fc3f7", "#ffb74d", "#81c784", "#e57373", "#ba68c8", "#fff176",
    "#4db6ac", "#f06292", "#a1887f", "#90a4ae", "#aed581", "#7986cb"];

  /* Each bot's rating as games finish: an SVG of one line per bot. */
  function chart(points, names) {
    const ns = "http://www.w3.org/2000/svg";
    const width = 600, height = 220, pad = 28;
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.setAttribute("class", "chart");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "rating of each bot as games finish");
    if (!points.length) return svg;
    let lo = Infinity, hi = -Infinity;
    points.forEach((p) => Object.values(p.ratings).forEach((r) => { lo = Math.min(lo, r); hi = Math.max(hi, r); }));
    if (hi - lo < 1) { hi += 0.5; lo -= 0.5; }
    const first = points[0].done, last = Math.max(points[points.length - 1].done, first + 1);
    const x = (d) => pad + (width - 2 * pad) * (d - first) / (last - first);
    const y = (r) => height - pad - (height - 2 * pad) * (r - lo) / (hi - lo);
    for (const value of [lo, (lo + hi) / 2, hi]) {
      const label = document.createElementNS(ns, "text");
      label.setAttribute("x", 2);
      label.setAttribute("y", y(value) + 4);
      label.setAttribute("class", "axis");
      label.textContent = value.toFixed(1);
      svg.append(label);
    }
    names.forEach((name, i) => {
      const coords = points.filter((p) => name in p.ratings).map((p) => x(p.done).toFixed(1) + "," + y(p.ratings[name]).toFixed(1));
      if (!coords.length) return;
      const line = document.createElementNS(ns, "polyline");
      line.setAttribute("points", coords.join(" "));
      line.setAttribute("fill", "none");
      line.setAttribute("stroke", COLOURS[i % COLOURS.length]);
      line.setAttribute("stroke-width", "2");
      const tip = document.createElementNS(ns, "title");
      tip.textContent = shown(name);
      line.append(tip);
      svg.append(line);
    });
    return svg;
  }

  return { el, shown, who, apply, fold, newTable, render, chart, actionText, COLOURS };
})();
