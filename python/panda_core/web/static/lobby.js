// The lobby: choose a game, its seats and rules, start a table, or upload a record to replay.

import { app, api, clearMessage, h, navigate, showMessage, testid } from "./util.js";

export class Lobby {
  constructor() {
    this.root = h("section", testid("lobby", { class: "lobby", "aria-busy": "true" }));
    app.append(this.root);
    this.root.append(h("p", {}, "Loading the games…"));
    api("/api/games")
      .then((catalogue) => this.build(catalogue))
      .catch((err) => showMessage(err.message));
  }

  dispose() {}

  build(catalogue) {
    this.games = catalogue.games;
    this.bots = catalogue.bots;
    this.root.replaceChildren();
    this.root.removeAttribute("aria-busy");

    this.gameSelect = h("select", testid("lobby-game", { id: "lobby-game" }));
    for (const g of this.games) {
      this.gameSelect.append(h("option", { value: g.name }, `${g.title} (${g.name})`));
    }
    this.playersSelect = h("select", testid("lobby-players", { id: "lobby-players" }));
    this.seatSelect = h("select", testid("lobby-seat", { id: "lobby-seat" }));
    this.seedInput = h(
      "input",
      testid("lobby-seed", {
        id: "lobby-seed",
        type: "number",
        min: 0,
        step: 1,
        placeholder: "random",
      }),
    );
    this.botsBox = h("div", { class: "lobby__bots" });
    this.rulesBox = h("div", { class: "lobby__rules" });

    this.gameSelect.addEventListener("change", () => this.gameChanged());
    this.playersSelect.addEventListener("change", () => this.seatsChanged());
    this.seatSelect.addEventListener("change", () => this.botsChanged());

    const start = h(
      "button",
      testid("lobby-start", { type: "submit", class: "primary" }),
      "Start the game",
    );
    const form = h(
      "form",
      { class: "lobby__form", onsubmit: (e) => this.start(e, start) },
      h("h2", {}, "New game"),
      h("div", { class: "field" }, h("label", { for: "lobby-game" }, "Game"), this.gameSelect),
      h(
        "div",
        { class: "field" },
        h("label", { for: "lobby-players" }, "Players"),
        this.playersSelect,
      ),
      h("div", { class: "field" }, h("label", { for: "lobby-seat" }, "Your seat"), this.seatSelect),
      h("fieldset", {}, h("legend", {}, "The other seats"), this.botsBox),
      h(
        "div",
        { class: "field" },
        h("label", { for: "lobby-seed" }, "Seed (optional)"),
        this.seedInput,
      ),
      h("fieldset", {}, h("legend", {}, "Rules"), this.rulesBox),
      start,
    );

    const file = h(
      "input",
      testid("replay-file", { id: "replay-file", type: "file", accept: ".json,application/json" }),
    );
    file.addEventListener("change", () => uploadRecord(file));
    const replay = h(
      "section",
      { class: "lobby__replay" },
      h("h2", {}, "Replay a game"),
      h(
        "p",
        {},
        "Open a game record (the JSON file a game's “Download record” link, panda-core play " +
          "or panda-core simulate wrote) to step through it from any seat.",
      ),
      h("label", { for: "replay-file" }, "Record file "),
      file,
    );
    this.root.append(form, replay);
    this.gameChanged();
  }

  game() {
    return this.games.find((g) => g.name === this.gameSelect.value) || this.games[0];
  }

  gameChanged() {
    const game = this.game();
    const before = Number(this.playersSelect.value) || 2;
    this.playersSelect.replaceChildren(
      ...game.players.map((n) => h("option", { value: n, selected: n === before }, String(n))),
    );
    const rules = Object.entries(game.rules || {});
    this.rulesBox.replaceChildren(...rules.map(([k, v]) => ruleInput(k, v)));
    this.seatsChanged();
  }

  seatsChanged() {
    const n = Number(this.playersSelect.value);
    const before = Number(this.seatSelect.value) || 0;
    this.seatSelect.replaceChildren();
    for (let s = 0; s < n; s += 1) {
      this.seatSelect.append(h("option", { value: s, selected: s === before }, `seat ${s}`));
    }
    this.botsChanged();
  }

  botsChanged() {
    const n = Number(this.playersSelect.value);
    const mine = Number(this.seatSelect.value);
    const kept = {};
    for (const sel of this.botsBox.querySelectorAll("select")) kept[sel.dataset.seat] = sel.value;
    this.botsBox.replaceChildren();
    const fallback = this.bots.includes("heuristic") ? "heuristic" : this.bots[0];
    for (let s = 0; s < n; s += 1) {
      if (s === mine) continue;
      const id = `lobby-bot-${s}`;
      const sel = h("select", testid(id, { id, dataset: { seat: s } }));
      const chosen = kept[s] || fallback;
      for (const b of this.bots) sel.append(h("option", { value: b, selected: b === chosen }, b));
      this.botsBox.append(h("div", { class: "field" }, h("label", { for: id }, `Seat ${s}`), sel));
    }
  }

  async start(event, button) {
    event.preventDefault();
    clearMessage();
    const game = this.game();
    const players = Number(this.playersSelect.value);
    const seat = Number(this.seatSelect.value);
    const bots = [...this.botsBox.querySelectorAll("select")].map((s) => s.value);
    let rules;
    try {
      rules = changedRules(this.rulesBox, game.rules || {});
    } catch (err) {
      showMessage(err.message);
      return;
    }
    const seedText = this.seedInput.value.trim();
    const seed = seedText === "" ? null : Number(seedText);
    const body = { game: game.name, players, seat, bots, seed, rules };
    button.disabled = true;
    try {
      const made = await api("/api/tables", { method: "POST", json: body });
      navigate({ table: made.table, seat: made.seat, token: made.token });
    } catch (err) {
      showMessage(err.message);
    } finally {
      button.disabled = false;
    }
  }
}

/** One input for a rule, by the type of its default value. */
export function ruleInput(name, value) {
  const id = `lobby-rule-${name}`;
  let input;
  if (typeof value === "boolean") {
    input = h("input", testid(id, { id, type: "checkbox", checked: value }));
  } else if (typeof value === "number") {
    input = h("input", testid(id, { id, type: "number", step: "any", value }));
  } else {
    input = h(
      "input",
      testid(id, {
        id,
        type: "text",
        value: value === null ? "" : typeof value === "string" ? value : JSON.stringify(value),
        placeholder: value === null ? "default" : undefined,
      }),
    );
  }
  input.dataset.rule = name;
  return h("div", { class: "field field--rule" }, h("label", { for: id }, name), input);
}

/** The rules the person changed from the defaults (the server checks them). */
export function changedRules(box, defaults) {
  const out = {};
  for (const input of box.querySelectorAll("input[data-rule]")) {
    const name = input.dataset.rule;
    const base = defaults[name];
    let value;
    if (typeof base === "boolean") value = input.checked;
    else if (typeof base === "number") {
      if (input.value.trim() === "") throw new Error(`rule ${name}: give a number`);
      value = Number(input.value);
    } else if (base === null) value = input.value.trim() === "" ? null : input.value.trim();
    else if (typeof base === "string") value = input.value;
    else {
      try {
        value = JSON.parse(input.value);
      } catch {
        throw new Error(`rule ${name}: not valid JSON`);
      }
    }
    if (JSON.stringify(value) !== JSON.stringify(base)) out[name] = value;
  }
  return out;
}

export async function uploadRecord(input) {
  const file = input.files && input.files[0];
  if (!file) return;
  clearMessage();
  try {
    // The record goes as the JSON body itself (the server checks it is a game record).
    const made = await api("/api/replays", { method: "POST", body: await file.text() });
    navigate({ replay: made.replay, seat: "all", frame: 0 });
  } catch (err) {
    showMessage(`cannot open ${file.name}: ${err.message}`);
  } finally {
    input.value = "";
  }
}
