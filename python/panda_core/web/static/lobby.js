// The lobby: choose a game, its seats and rules, start a table, or upload a record to replay.
// A seat may be a friend's ("a friend plays it"): the table is then made with the per-seat form
// (docs/web_api.md) and the lobby shows one invite link per person and a spectators' link.

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
    this.nameInput = h(
      "input",
      testid("lobby-name", {
        id: "lobby-name",
        type: "text",
        maxlength: 40,
        placeholder: "shown to your friends",
      }),
    );
    this.standInSelect = h("select", testid("lobby-stand-in", { id: "lobby-stand-in" }));
    this.standInSelect.append(h("option", { value: "" }, "nobody: the seat waits"));
    for (const b of this.bots) {
      this.standInSelect.append(h("option", { value: b, selected: b === "heuristic" }, b));
    }
    this.holdInput = h(
      "input",
      testid("lobby-hold", {
        id: "lobby-hold",
        type: "number",
        min: 0,
        max: 3600,
        step: "any",
        placeholder: "server default",
      }),
    );
    this.peopleBox = h(
      "fieldset",
      { class: "lobby__people", hidden: true },
      h("legend", {}, "When a friend leaves"),
      h(
        "div",
        { class: "field" },
        h("label", { for: "lobby-stand-in" }, "Bot that plays for them"),
        this.standInSelect,
      ),
      h(
        "div",
        { class: "field" },
        h("label", { for: "lobby-hold" }, "after (seconds)"),
        this.holdInput,
      ),
    );
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
      h("div", { class: "field" }, h("label", { for: "lobby-name" }, "Your name"), this.nameInput),
      h("fieldset", {}, h("legend", {}, "The other seats"), this.botsBox),
      this.peopleBox,
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
    const friends = {};
    for (const box of this.botsBox.querySelectorAll("input[data-person]")) {
      friends[box.dataset.person] = box.checked;
    }
    const names = {};
    for (const input of this.botsBox.querySelectorAll("input[data-name]")) {
      names[input.dataset.name] = input.value;
    }
    this.botsBox.replaceChildren();
    const fallback = this.bots.includes("heuristic") ? "heuristic" : this.bots[0];
    for (let s = 0; s < n; s += 1) {
      if (s === mine) continue;
      const id = `lobby-bot-${s}`;
      const sel = h("select", testid(id, { id, dataset: { seat: s } }));
      const chosen = kept[s] || fallback;
      for (const b of this.bots) sel.append(h("option", { value: b, selected: b === chosen }, b));
      const personId = `lobby-person-${s}`;
      const person = h(
        "input",
        testid(personId, {
          id: personId,
          type: "checkbox",
          checked: Boolean(friends[s]),
          dataset: { person: s },
        }),
      );
      const name = h(
        "input",
        testid(`lobby-name-${s}`, {
          type: "text",
          maxlength: 40,
          placeholder: `friend's name (seat ${s})`,
          "aria-label": `name of the friend at seat ${s}`,
          value: names[s] || "",
          dataset: { name: s },
        }),
      );
      const toggle = () => {
        sel.disabled = person.checked;
        name.hidden = !person.checked;
        this.peopleBox.hidden = !this.friendSeats().length;
      };
      person.addEventListener("change", toggle);
      this.botsBox.append(
        h(
          "div",
          { class: "field field--seat" },
          h("label", { for: id }, `Seat ${s}`),
          sel,
          h("label", { class: "lobby__friend", for: personId }, person, " a friend plays it"),
          name,
        ),
      );
      toggle();
    }
    this.peopleBox.hidden = !this.friendSeats().length;
  }

  /** The seats a friend plays (checked "a friend plays it"). */
  friendSeats() {
    return [...this.botsBox.querySelectorAll("input[data-person]")]
      .filter((box) => box.checked)
      .map((box) => Number(box.dataset.person));
  }

  /** The per-seat form's seats: a person (me, my friends) or a bot for each seat. */
  seatChoices(players, mine) {
    const friends = new Set(this.friendSeats());
    const out = [];
    for (let s = 0; s < players; s += 1) {
      if (s === mine || friends.has(s)) {
        const input =
          s === mine ? this.nameInput : this.botsBox.querySelector(`input[data-name="${s}"]`);
        const name = input ? input.value.trim() : "";
        out.push(name ? { kind: "person", name } : { kind: "person" });
      } else {
        const sel = this.botsBox.querySelector(`select[data-seat="${s}"]`);
        out.push({ kind: "bot", bot: sel.value });
      }
    }
    return out;
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
    const together = this.friendSeats().length > 0;
    let body = { game: game.name, players, seat, bots, seed, rules };
    if (together) {
      body = { game: game.name, seats: this.seatChoices(players, seat), seed, rules };
      body.stand_in = this.standInSelect.value || null;
      const hold = this.holdInput.value.trim();
      if (hold !== "") body.hold = Number(hold);
    }
    button.disabled = true;
    try {
      const made = await api("/api/tables", { method: "POST", json: body });
      if (together) this.showInvites(made, seat);
      else navigate({ table: made.table, seat: made.seat, token: made.token });
    } catch (err) {
      showMessage(err.message);
    } finally {
      button.disabled = false;
    }
  }

  /** After creating a table for friends: the invite links (copy buttons), mine to open. */
  showInvites(made, mine) {
    const rows = made.invites.map((invite) => {
      const mineToo = invite.seat === mine;
      const label = `Seat ${invite.seat} (${invite.name})${mineToo ? ": you" : ""}`;
      const open = mineToo
        ? h(
            "button",
            testid("invite-take-seat", {
              type: "button",
              class: "primary",
              onclick: () => navigate({ table: made.table, seat: invite.seat, token: invite.token }),
            }),
            "Take my seat",
          )
        : null;
      return linkRow(String(invite.seat), label, invite.link, open);
    });
    rows.push(linkRow("spectator", "Spectators (see no hand)", made.spectator.link));
    const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(location.hostname);
    const waits =
      made.stand_in === null
        ? "A seat whose person leaves waits for them."
        : `A seat whose person has no page open for ${made.hold} s is played by the ` +
          `${made.stand_in} bot until they come back (their link gives it back).`;
    this.root.replaceChildren(
      h(
        "section",
        testid("invites", { class: "invites", dataset: { table: made.table } }),
        h("h2", {}, "The table is ready: send each friend their link"),
        h(
          "p",
          {},
          "Each link is one seat: whoever opens it plays that seat and sees only its cards. " +
            "Keep your own link; anyone with a link can play or watch. " +
            waits,
        ),
        loopback
          ? h(
              "p",
              testid("invites-loopback", { class: "invites__note" }),
              "These links name this machine only (the server listens on loopback). For friends " +
                "on other machines, start panda-core serve --host 0.0.0.0 and put this machine's " +
                "address in the links (see docs/play_together.md).",
            )
          : null,
        h("ul", { class: "invites__list" }, rows),
      ),
    );
  }
}

/** The address of a link of the server's answer ("#table=…"), as a friend opens it. */
function fullLink(link) {
  return `${location.origin}${location.pathname}${link}`;
}

/** Copy ``text`` (the clipboard API where the page may use it, else the selected input). */
async function copyText(input, button) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(input.value);
    } else {
      input.select();
      document.execCommand("copy");
    }
    button.textContent = "Copied";
  } catch {
    input.select();
    button.textContent = "Select and copy";
  }
}

function linkRow(key, label, link, extra) {
  const input = h(
    "input",
    testid(`invite-link-${key}`, {
      type: "text",
      readonly: true,
      value: fullLink(link),
      "aria-label": `link for ${label}`,
      class: "invite__link",
    }),
  );
  input.addEventListener("focus", () => input.select());
  const copy = h(
    "button",
    testid(`invite-copy-${key}`, { type: "button", onclick: () => copyText(input, copy) }),
    "Copy",
  );
  return h(
    "li",
    testid(`invite-${key}`, { class: "invite" }),
    h("span", { class: "invite__who" }, label),
    " ",
    input,
    " ",
    copy,
    extra ? " " : "",
    extra || "",
  );
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
