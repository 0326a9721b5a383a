/* An HTML replay: the game's events (every deal with its dice) folded up to a chosen step.
 * Step n shows the table after the first n events; the same renderer as the live page. */
"use strict";

(() => {
  const { el } = Perudo;
  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($("replay-data").textContent);
  const events = data.events; // events[0] opens the table
  const players = events[0].players;
  const BASE_MS = 900; // one step at 1x
  let step = 1;
  let timer = null;

  $("title").textContent = Perudo.shown(data.game + (data.tournament ? " (" + data.tournament + ")" : ""));

  const rounds = []; // [round number, step that shows its deal]
  events.forEach((e, i) => { if (e.kind === "deal") rounds.push([e.round, i + 1]); });

  function describe(e) {
    const who = (seat) => players[seat];
    switch (e.kind) {
      case "open": return ["round", "Table: " + players.join(", ")];
      case "deal": return ["round", "Round " + e.round + (e.palifico ? " (palifico)" : "") + ", " + who(e.opener) + " opens"];
      case "act": return ["", who(e.seat) + ": " + Perudo.actionText(e.action) + "  (" + e.ms.toFixed(1) + " ms" + (e.cpu_ms !== undefined ? ", cpu " + e.cpu_ms.toFixed(1) : "") + ")"];
      case "fault": return ["fault", "\u26a0 " + who(e.seat) + " fault " + e.fault + ": " + e.detail + (e.sent ? " (sent " + e.sent + ")" : "")];
      case "end": return ["", "\u2192 " + e.end + ": " + e.counted + " counted, " + who(e.changed) + (e.change < 0 ? " loses a die" : e.change > 0 ? " gains a die" : " keeps every die")];
      case "over": return ["round", "Finishing order: " + e.ranking.join(", ")];
    }
    return ["", e.kind];
  }

  const timeline = $("timeline");
  events.forEach((e, i) => {
    const [cls, text] = describe(e);
    const item = el("li", { cls, text, "data-step": i + 1 });
    item.addEventListener("click", () => go(i + 1));
    timeline.append(item);
  });

  function thinking() {
    const per = players.map(() => ({ ms: [], faults: 0 }));
    for (const e of events) {
      if (e.kind === "act") per[e.seat].ms.push(e.ms);
      if (e.kind === "fault") per[e.seat].faults++;
    }
    const body = $("think").querySelector("tbody");
    per.forEach((p, seat) => {
      const sorted = p.ms.slice().sort((a, b) => a - b);
      const median = sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
      const max = sorted.length ? sorted[sorted.length - 1] : null;
      body.append(el("tr", {}, el("td", { text: players[seat] }), el("td", { text: String(sorted.length) }),
        el("td", { text: median === null ? "\u2013" : median.toFixed(1) }),
        el("td", { text: max === null ? "\u2013" : max.toFixed(1) }),
        el("td", { cls: p.faults ? "bad" : "", text: String(p.faults) })));
    });
  }

  function draw() {
    const table = Perudo.fold(events.slice(0, step));
    const current = events[step - 1] && events[step - 1].kind === "act" ? table.bids.length - 1 : null;
    $("table").replaceChildren(Perudo.render(table, { current }));
    $("scrub").value = String(step);
    $("where").textContent = "step " + step + " of " + events.length;
    let round = null;
    for (const [number, at] of rounds) if (at <= step) round = number;
    if (round !== null) $("round").value = String(round);
    for (const item of timeline.children) item.classList.toggle("now", Number(item.dataset.step) === step);
    const now = timeline.children[step - 1];
    if (now) now.scrollIntoView({ block: "nearest" });
  }

  function go(to) {
    step = Math.max(1, Math.min(events.length, to));
    if (step === events.length) pause();
    draw();
  }

  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $("play").textContent = "\u25b6 play";
  }

  function play() {
    if (step === events.length) step = 1;
    pause();
    const speed = Number($("speed").value);
    timer = setInterval(() => go(step + 1), BASE_MS / speed);
    $("play").textContent = "\u275a\u275a pause";
  }

  for (const speed of [1, 2, 3, 5, 10]) $("speed").append(el("option", { value: speed, text: speed + "x" }));
  for (const [number] of rounds) $("round").append(el("option", { value: number, text: String(number) }));
  $("scrub").max = String(events.length);
  $("scrub").min = "1";
  $("scrub").addEventListener("input", () => go(Number($("scrub").value)));
  $("first").addEventListener("click", () => go(1));
  $("last").addEventListener("click", () => go(events.length));
  $("back").addEventListener("click", () => go(step - 1));
  $("forward").addEventListener("click", () => go(step + 1));
  $("play").addEventListener("click", () => (timer === null ? play() : pause()));
  $("speed").addEventListener("change", () => { if (timer !== null) play(); });
  $("round").addEventListener("change", () => {
    const wanted = Number($("round").value);
    const found = rounds.find(([number]) => number === wanted);
    if (found) go(found[1]);
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "Home") go(1);
    else if (e.key === "End") go(events.length);
    else if (e.key === " ") { e.preventDefault(); timer === null ? play() : pause(); }
  });
  thinking();
  // Opened at a step when the address asks for one (a fault's page links to its step).
  const asked = /^#step=(\d+)$/.exec(location.hash);
  go(asked ? Number(asked[1]) : rounds.length ? rounds[0][1] : 1);
})();
