// The panda-core page: a lobby, a live table and a replay viewer, in one page with the state in
// the location hash (a reload resumes):
//   #                                  the lobby
//   #table=ID&seat=S&token=T           a live table, seen by seat S
//   #replay=RID&seat=S|all&frame=K     a replay, seen by seat S (or with full information)
//
// The server holds the game (panda_core.web, protocol in docs/play_web.md); this page only shows
// what it is sent and sends back the index of the move the person clicked. It has no game logic:
// every text, card and legal move comes from the server's seat state.
//
// Stable data-testid attributes (the browser tests use them; keep them):
//   message                 the message area (server errors, connection trouble);
//                           message-text, message-close (dismisses it)
//   home                    the link back to the lobby
//   lobby                   the lobby section
//     lobby-game            <select> game name            lobby-players   <select> players
//     lobby-seat            <select> your seat            lobby-bot-<S>   <select> bot of seat S
//     lobby-seed            <input> seed (empty: random)  lobby-rule-<R>  <input> rule R
//     lobby-start           <button> start the game
//     replay-file           <input type=file> a record to replay (uploaded on change)
//   table-view              a live table (data-table, data-seat, data-over="true|false")
//   replay-view             a replay (data-replay, data-seat "all" or S)
//   board                   the drawn position, in both views; inside it:
//     status                whose turn (data-to-move, data-your-turn)
//     seat-<S>              one seat (data-to-move, data-winner); score-<S>, hand-size-<S>
//     draw-pile             the draw pile's size (data-size)
//     table-area            the pile or trick; play (one per play on it, data-player,
//                           data-last="true" for the latest)
//     last-move             the last move (data-player)
//     hand                  the seat's hand; card elements everywhere carry data-testid="card",
//                           data-card-id, data-face and aria-label (the card's label)
//     hands-<S>             (replay with all seats) the hand of seat S
//     moves                 the legal moves; move (a <button>, data-move-index, data-notation,
//                           data-cards: the ids of the cards it plays);
//                           move-filter-clear; move-notation (<input>), move-notation-play
//     event-log             the log; event (one per event, data-seq, data-new="true" for the
//                           events since the seat's last turn)
//     round-summary         the finished rounds; round-result (one per round)
//     round-banner          the round that ended since the seat's last turn, if one did
//   game-over               the game-over summary (data-winner); replay-this-game (button),
//                           download-record (link), new-game (link)
//   replay controls: replay-seat (<select>), replay-first, replay-prev, replay-next,
//                    replay-last (buttons), replay-frame (data-frame, data-frames),
//                    replay-round (<select>)
//   replay-upload-again     (replay view) another record to replay

import { cardBack, cardElement } from "./cards.js";

const app = document.getElementById("app");
const messageArea = document.querySelector('[data-testid="message"]');

let current = null; // the view on screen: {dispose()}

// ---- small helpers ------------------------------------------------------------------------

/** h("div", {class: "x", dataset: {testid: "y"}, onclick: f}, child, "text", …) */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function testid(id, attrs = {}) {
  return { ...attrs, dataset: { ...(attrs.dataset || {}), testid: id } };
}

function showMessage(text, kind = "error") {
  messageArea.hidden = false;
  messageArea.dataset.kind = kind;
  messageArea.replaceChildren(
    h("span", testid("message-text", { class: "message__text" }), text),
    h(
      "button",
      testid("message-close", {
        type: "button",
        class: "message__close",
        "aria-label": "dismiss the message",
        onclick: clearMessage,
      }),
      "×",
    ),
  );
}

function clearMessage() {
  messageArea.hidden = true;
  messageArea.replaceChildren();
}

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * A request to the server; a non-2xx answer throws an ApiError with the server's message. A body
 * is always sent as JSON (`json`: a value to encode; `body`: text that already is JSON): the
 * server takes no other kind of body.
 */
async function api(path, { method = "GET", json, body } = {}) {
  const options = { method, headers: { Accept: "application/json" } };
  if (json !== undefined) {
    options.body = JSON.stringify(json);
    options.headers["Content-Type"] = "application/json";
  } else if (body !== undefined) {
    options.body = body;
    options.headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new ApiError(0, `cannot reach the server (${err.message}); is panda-core serve running?`);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const why = data && typeof data.error === "string" ? data.error : response.statusText;
    throw new ApiError(response.status, `${response.status}: ${why}`);
  }
  return data;
}

function hashParams() {
  return Object.fromEntries(new URLSearchParams(location.hash.replace(/^#/, "")));
}

function hashOf(params) {
  return `#${new URLSearchParams(params).toString()}`;
}

/** Go to another view (a new history entry). */
function navigate(params) {
  location.hash = hashOf(params);
}

/** Change the hash of the view on screen without re-opening it (stepping through a replay). */
function replaceHash(params) {
  history.replaceState(null, "", hashOf(params));
}

function seatName(state, seat) {
  if (seat === null || seat === undefined) return "nobody";
  const spec = state.seats && state.seats[seat];
  const name = spec && spec.name ? spec.name : `seat ${seat}`;
  if (seat === state.seat) return `You (seat ${seat})`;
  return name === `seat ${seat}` ? `Seat ${seat}` : `Seat ${seat} (${name})`;
}

function roundWord(state) {
  return state.round_word || "round";
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// ---- routing ------------------------------------------------------------------------------

function route() {
  if (current) current.dispose();
  current = null;
  clearMessage();
  app.replaceChildren();
  const params = hashParams();
  if (params.table) current = new TableView(params);
  else if (params.replay) current = new ReplayView(params);
  else current = new Lobby();
}


// ---- the lobby ----------------------------------------------------------------------------

class Lobby {
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
function ruleInput(name, value) {
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
function changedRules(box, defaults) {
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

async function uploadRecord(input) {
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

// ---- the board: one position, drawn the same in a live table and a replay -----------------

/**
 * Draws a seat state (or a replay frame) into `root`, again on every new state. Between two
 * drawings it keeps only what is not game state: which hand cards the person selected, and what
 * the last drawing showed (so that only a new move or a new round is animated). `onMove(move)`
 * plays a move: a legal-move index, or a notation typed in (null in a replay).
 */
class Board {
  constructor(onMove) {
    this.onMove = onMove;
    this.root = h("div", testid("board", { class: "board" }));
    this.selected = new Set(); // card ids the person clicked in the hand
    this.lastKey = null;
    this.roundsSeen = null;
  }

  render(state) {
    const lastKey = JSON.stringify([state.last_move, state.events ? state.events.length : 0]);
    const fresh = this.lastKey !== null && lastKey !== this.lastKey;
    this.lastKey = lastKey;
    if (!state.your_turn) this.selected.clear();
    const handIds = new Set((state.hand || []).map((c) => c.id));
    for (const id of [...this.selected]) if (!handIds.has(id)) this.selected.delete(id);
    const newRound =
      this.roundsSeen !== null && (state.round_results || []).length > this.roundsSeen;
    this.roundsSeen = (state.round_results || []).length;

    const oldLog = this.root.querySelector(".log__list");
    const stuckToBottom =
      !oldLog || oldLog.scrollTop + oldLog.clientHeight >= oldLog.scrollHeight - 8;

    const main = h(
      "div",
      { class: "board__main" },
      this.header(state),
      this.seats(state),
      this.roundBanner(state),
      this.tableArea(state, fresh),
      state.hands ? this.allHands(state) : this.hand(state),
      this.moves(state),
    );
    const side = h(
      "div",
      { class: "board__side" },
      this.log(state),
      this.rounds(state, newRound),
    );
    this.root.replaceChildren(main, side);
    const list = this.root.querySelector(".log__list");
    if (list) {
      const firstNew = list.querySelector('[data-new="true"]');
      if (stuckToBottom || fresh) list.scrollTop = list.scrollHeight;
      else if (firstNew && !oldLog) firstNew.scrollIntoView({ block: "nearest" });
    }
  }

  header(state) {
    let status;
    if (state.is_over) {
      const who = state.winner === null ? "no winner" : `${seatName(state, state.winner)} wins`;
      status = `Game over: ${who}`;
    } else if (state.your_turn) {
      status = "Your turn: choose a move below";
    } else if (state.to_move === null || state.to_move === undefined) {
      status = "Nobody to move";
    } else if (state.frame !== undefined) {
      status = `${seatName(state, state.to_move)} to move`;
    } else {
      status = `Waiting for ${seatName(state, state.to_move)}…`;
    }
    const title = state.title || state.game;
    return h(
      "header",
      { class: "board__head" },
      h("h2", {}, `${title} · ${roundWord(state)} ${Number(state.round) + 1}`),
      h(
        "p",
        testid("status", {
          class: `status${state.your_turn ? " status--yours" : ""}`,
          dataset: { toMove: state.to_move ?? "", yourTurn: String(Boolean(state.your_turn)) },
          "aria-live": "polite",
        }),
        status,
      ),
    );
  }

  seats(state) {
    const row = h("div", { class: "seats", role: "list", "aria-label": "players" });
    for (let s = 0; s < state.players; s += 1) {
      const size = state.hand_sizes ? state.hand_sizes[s] : 0;
      const backs = h("div", { class: "seat__backs", "aria-hidden": "true" });
      if (s !== state.seat && !state.hands) {
        for (let i = 0; i < Math.min(size, 12); i += 1) backs.append(cardBack(true));
      }
      const classes = ["seat"];
      if (s === state.to_move) classes.push("seat--to-move");
      if (s === state.seat) classes.push("seat--you");
      if (state.is_over && s === state.winner) classes.push("seat--winner");
      row.append(
        h(
          "div",
          testid(`seat-${s}`, {
            class: classes.join(" "),
            role: "listitem",
            dataset: {
              seat: s,
              toMove: String(s === state.to_move),
              winner: String(state.is_over && s === state.winner),
            },
          }),
          h("div", { class: "seat__name" }, seatName(state, s), s === state.to_move ? " ◀" : ""),
          h(
            "div",
            { class: "seat__facts" },
            h("span", testid(`score-${s}`, { class: "seat__score" }), `score ${state.scores[s]}`),
            " · ",
            h("span", testid(`hand-size-${s}`, { class: "seat__size" }), `${size} cards`),
          ),
          backs,
        ),
      );
    }
    const pile = h(
      "div",
      testid("draw-pile", { class: "drawpile", dataset: { size: state.draw_pile_size } }),
      h("div", { class: "card card--back card--small", "aria-hidden": "true" }),
      `Draw pile: ${state.draw_pile_size}`,
    );
    return h("section", { class: "board__seats", "aria-label": "players" }, row, pile);
  }

  /** The summary of a round that ended since the seat's last turn (until it moves again). */
  roundBanner(state) {
    const events = state.events || [];
    const since = Number(state.since_last_turn ?? events.length);
    let at = -1;
    events.forEach((e, i) => {
      if (e.type === "round_end") at = i;
    });
    const results = state.round_results || [];
    if (state.is_over || at < 0 || at < since || !results.length) return null;
    const result = results[results.length - 1];
    return h(
      "section",
      testid("round-banner", { class: "round-banner fresh", role: "status" }),
      h("strong", {}, `${capital(roundWord(state))} ${results.length} is over. `),
      result.text || events[at].text,
    );
  }

  tableArea(state, fresh) {
    const table = state.table || {};
    const plays = table.plays || [];
    const area = h(
      "section",
      testid("table-area", { class: "table-area", "aria-label": "the table" }),
      h("h3", {}, capital(table.title || "table")),
    );
    if (table.to_beat) {
      area.append(h("p", { class: "table-area__beat" }, `To beat: ${table.to_beat}`));
    }
    const list = h("div", { class: "plays" });
    if (!plays.length) list.append(h("p", { class: "muted" }, "Nothing on the table yet."));
    const lastPlayer = state.last_move ? state.last_move.player : null;
    plays.forEach((play, i) => {
      const last = i === plays.length - 1 || play.player === lastPlayer;
      const el = h(
        "div",
        testid("play", {
          class: `play${last ? " play--last" : ""}${last && fresh ? " fresh" : ""}`,
          dataset: { player: play.player, last: String(last) },
        }),
        h("div", { class: "play__text" }, play.text),
        h(
          "div",
          { class: "cards" },
          (play.cards || []).map((c) => cardElement(c, { small: true })),
        ),
      );
      list.append(el);
    });
    area.append(list);
    for (const note of table.notes || []) area.append(h("p", { class: "table-area__note" }, note));
    if (state.last_move) {
      area.append(
        h(
          "p",
          testid("last-move", {
            class: `lastmove${fresh ? " fresh" : ""}`,
            dataset: { player: state.last_move.player ?? "" },
          }),
          "Last move: ",
          h("strong", {}, state.last_move.text),
        ),
      );
    }
    return area;
  }

  hand(state) {
    const section = h(
      "section",
      testid("hand", { class: "hand", "aria-label": "your hand" }),
      h("h3", {}, `Your hand (${(state.hand || []).length})`),
    );
    const row = h("div", { class: "cards cards--hand" });
    for (const card of state.hand || []) {
      const selectable = Boolean(state.your_turn && this.onMove);
      const el = cardElement(card, { button: selectable });
      if (this.selected.has(card.id)) {
        el.classList.add("card--selected");
        el.setAttribute("aria-pressed", "true");
      }
      if (selectable) {
        el.addEventListener("click", () => {
          if (this.selected.has(card.id)) this.selected.delete(card.id);
          else this.selected.add(card.id);
          this.render(state);
          // The hand was drawn anew: keep the keyboard on the same card.
          const again = this.root.querySelector(`[data-testid="hand"] [data-card-id="${card.id}"]`);
          if (again) again.focus();
        });
      }
      row.append(el);
    }
    if (!(state.hand || []).length) row.append(h("p", { class: "muted" }, "No cards."));
    section.append(row);
    return section;
  }

  allHands(state) {
    const section = h(
      "section",
      testid("hand", { class: "hand hand--all", "aria-label": "every hand" }),
      h("h3", {}, "Every hand (full information)"),
    );
    state.hands.forEach((cards, s) => {
      section.append(
        h(
          "div",
          testid(`hands-${s}`, { class: "hand__seat" }),
          h("div", { class: "hand__who" }, seatName(state, s)),
          h("div", { class: "cards" }, cards.map((c) => cardElement(c, { small: true }))),
        ),
      );
    });
    return section;
  }

  moves(state) {
    const section = h("section", testid("moves", { class: "moves", "aria-label": "your moves" }));
    const legal = state.legal || [];
    if (!this.onMove) {
      section.hidden = true; // a replay: nothing to play
      return section;
    }
    if (!legal.length) {
      section.append(
        h("p", { class: "muted" }, state.is_over ? "The game is over." : "Not your turn."),
      );
      return section;
    }
    const selected = [...this.selected];
    const shown = selected.length
      ? legal.filter((m) => selected.every((id) => (m.cards || []).some((c) => c.id === id)))
      : legal;
    section.append(h("h3", {}, `Your moves (${legal.length})`));
    if (selected.length) {
      section.append(
        h(
          "p",
          { class: "moves__filter" },
          `${shown.length} of ${legal.length} moves use the selected ` +
            `card${selected.length > 1 ? "s" : ""}. `,
          h(
            "button",
            testid("move-filter-clear", {
              type: "button",
              onclick: () => {
                this.selected.clear();
                this.render(state);
              },
            }),
            "Show all moves",
          ),
        ),
      );
    } else if (legal.length > 8) {
      section.append(
        h("p", { class: "muted" }, "Click cards in your hand to see the moves that use them."),
      );
    }
    // Many moves (the climbing games can have hundreds): grouped by how many cards they play,
    // each group scrolls on its own.
    const groups = new Map();
    for (const move of shown) {
      const n = (move.cards || []).length;
      const key = n === 0 ? "no cards" : n === 1 ? "1 card" : `${n} cards`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(move);
    }
    const box = h("div", { class: "moves__groups" });
    for (const [key, moves] of groups) {
      const list = h("div", { class: "moves__list" });
      for (const move of moves) list.append(this.moveButton(move));
      box.append(
        h(
          "div",
          { class: "moves__group", role: "group", "aria-label": key },
          groups.size > 1 ? h("h4", {}, `${capital(key)} (${moves.length})`) : null,
          list,
        ),
      );
    }
    section.append(box);
    const notation = h(
      "input",
      testid("move-notation", {
        type: "text",
        placeholder: "or type a move (notation)",
        "aria-label": "move notation",
        autocomplete: "off",
      }),
    );
    section.append(
      h(
        "form",
        {
          class: "moves__notation",
          onsubmit: (e) => {
            e.preventDefault();
            const text = notation.value.trim();
            if (text) this.onMove(text);
          },
        },
        notation,
        h("button", testid("move-notation-play", { type: "submit" }), "Play"),
      ),
    );
    return section;
  }

  moveButton(move) {
    const ids = (move.cards || []).map((c) => c.id);
    const mark = (on) => {
      for (const id of ids) {
        const el = this.root.querySelector(`[data-testid="hand"] [data-card-id="${id}"]`);
        if (el) el.classList.toggle("card--in-move", on);
      }
    };
    const label = move.text || move.notation;
    const showNotation = !String(label).includes(move.notation);
    return h(
      "button",
      testid("move", {
        type: "button",
        class: "move",
        dataset: { moveIndex: move.index, notation: move.notation, cards: ids.join(" ") },
        title: move.notation,
        onmouseenter: () => mark(true),
        onmouseleave: () => mark(false),
        onfocus: () => mark(true),
        onblur: () => mark(false),
        onclick: () => this.onMove(move.index),
      }),
      label,
      showNotation ? h("span", { class: "move__notation" }, move.notation) : null,
    );
  }

  log(state) {
    const events = state.events || [];
    const since = Number(state.since_last_turn ?? events.length);
    // A replay frame's new events are those of the move that led to it.
    const replaying = state.frame !== undefined;
    const sinceWord = replaying ? "the last move" : "since your last turn";
    const list = h("ol", { class: "log__list" });
    events.forEach((event, i) => {
      const isNew = i >= since;
      if (i === since && since > 0) {
        list.append(h("li", { class: "log__since", "aria-hidden": "true" }, sinceWord));
      }
      list.append(
        h(
          "li",
          testid("event", {
            class: `log__event log__event--${event.type}${isNew ? " log__event--new" : ""}`,
            dataset: { seq: event.seq ?? i, new: String(isNew), type: event.type },
          }),
          event.text || event.type,
        ),
      );
    });
    return h(
      "section",
      testid("event-log", { class: "log", "aria-label": "what happened" }),
      h(
        "h3",
        {},
        "What happened",
        h("span", { class: "log__key" }, ` (${sinceWord}: highlighted)`),
      ),
      list,
    );
  }

  rounds(state, newRound) {
    const results = state.round_results || [];
    const section = h(
      "section",
      testid("round-summary", { class: "rounds", "aria-label": "finished rounds" }),
      h("h3", {}, `Finished ${roundWord(state)}s (${results.length})`),
    );
    const list = h("ol", { class: "rounds__list", reversed: true });
    results
      .slice()
      .reverse()
      .forEach((r, i) => {
        list.append(
          h(
            "li",
            testid("round-result", {
              class: `round${i === 0 && newRound ? " fresh round--new" : ""}`,
            }),
            r.text || JSON.stringify(r.scores),
          ),
        );
      });
    section.append(list);
    return section;
  }
}

// ---- a live table -------------------------------------------------------------------------

class TableView {
  constructor(params) {
    this.id = params.table;
    this.seat = Number(params.seat);
    this.token = params.token;
    this.closed = false;
    this.retries = 0;
    this.state = null;
    this.pending = false;
    this.board = new Board((move) => this.play(move));
    this.summary = h("div", { class: "summary-slot" });
    this.root = h(
      "section",
      testid("table-view", {
        class: "table-view",
        dataset: { table: this.id, seat: this.seat, over: "false" },
      }),
      this.summary,
      this.board.root,
    );
    app.append(this.root);
    this.query = new URLSearchParams({ seat: this.seat, token: this.token }).toString();
    this.connect();
  }

  dispose() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const path = `/ws/tables/${encodeURIComponent(this.id)}?${this.query}`;
    const url = `${scheme}://${location.host}${path}`;
    const ws = new WebSocket(url);
    this.ws = ws;
    let opened = false;
    ws.addEventListener("open", () => {
      opened = true;
      this.retries = 0;
    });
    ws.addEventListener("message", (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg.type === "state") {
        this.pending = false;
        clearMessage();
        this.show(msg.state);
      } else if (msg.type === "error") {
        this.pending = false;
        showMessage(msg.message);
        if (this.state) this.show(this.state);
      }
    });
    ws.addEventListener("close", () => {
      if (this.closed || ws !== this.ws) return;
      if (this.state && this.state.is_over) return; // nothing more will come
      this.recover(opened);
    });
  }

  /** The connection dropped (or never opened): ask over HTTP why, and try again a few times. */
  async recover(wasOpen) {
    try {
      const state = await api(`/api/tables/${encodeURIComponent(this.id)}?${this.query}`);
      this.show(state);
    } catch (err) {
      if (err.status >= 400 && err.status < 500) {
        showMessage(`${err.message} — start a new game from the lobby.`);
        this.closed = true;
        return;
      }
      showMessage(`lost the connection to the server (${err.message}); retrying…`);
    }
    if (this.closed || this.retries >= 8) return;
    this.retries += 1;
    const delay = Math.min(4000, 250 * 2 ** this.retries);
    setTimeout(() => {
      if (!this.closed) this.connect();
    }, wasOpen ? 100 : delay);
  }

  async play(move) {
    if (this.pending) return;
    clearMessage();
    this.pending = true;
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ type: "move", move }));
      return;
    }
    try {
      const state = await api(`/api/tables/${encodeURIComponent(this.id)}/moves`, {
        method: "POST",
        json: { seat: this.seat, token: this.token, move },
      });
      this.show(state);
    } catch (err) {
      showMessage(err.message);
    } finally {
      this.pending = false;
    }
  }

  show(state) {
    this.state = state;
    this.pending = false;
    this.root.dataset.over = String(Boolean(state.is_over));
    this.board.render(state);
    this.summary.replaceChildren(state.is_over ? this.gameOver(state) : "");
  }

  gameOver(state) {
    const base = `/api/tables/${encodeURIComponent(this.id)}`;
    const winner = state.winner;
    let headline = `${seatName(state, winner)} wins.`;
    if (winner === null) headline = "The game is over.";
    else if (winner === this.seat) headline = "You win!";
    const scores = h("ol", { class: "final-scores", start: 0 });
    state.scores.forEach((score, s) => {
      const line = `${seatName(state, s)}: ${score}`;
      scores.append(h("li", { class: s === winner ? "winner" : "" }, line));
    });
    const replayButton = h(
      "button",
      testid("replay-this-game", {
        type: "button",
        class: "primary",
        onclick: async () => {
          replayButton.disabled = true;
          try {
            const made = await api(`${base}/replay`, {
              method: "POST",
              json: { seat: this.seat, token: this.token },
            });
            navigate({ replay: made.replay, seat: this.seat, frame: 0 });
          } catch (err) {
            showMessage(err.message);
            replayButton.disabled = false;
          }
        },
      }),
      "Replay this game",
    );
    return h(
      "section",
      testid("game-over", {
        class: "game-over fresh",
        dataset: { winner: winner ?? "" },
        "aria-label": "game over",
      }),
      h("h2", {}, headline),
      h(
        "p",
        {},
        `${capital(roundWord(state))}s played: ${(state.round_results || []).length}.`,
        state.seed !== null && state.seed !== undefined ? ` Seed ${state.seed}.` : "",
      ),
      scores,
      h(
        "p",
        { class: "game-over__links" },
        replayButton,
        " ",
        h(
          "a",
          testid("download-record", {
            href: `${base}/record?${this.query}`,
            download: `panda-${state.game}-${this.id}.json`,
            class: "button",
          }),
          "Download record",
        ),
        " ",
        h("a", testid("new-game", { href: "#", class: "button" }), "New game"),
      ),
    );
  }
}

// ---- a replay -----------------------------------------------------------------------------

class ReplayView {
  constructor(params) {
    this.id = params.replay;
    this.seat = params.seat === undefined || params.seat === "all" ? "all" : Number(params.seat);
    this.frame = Math.max(0, Number(params.frame) || 0);
    this.frames = null;
    this.players = null;
    this.cache = new Map();
    this.loading = null;
    this.wanted = null;
    this.board = new Board(null);
    this.controls = h("div", { class: "replay__controls" });
    this.root = h(
      "section",
      testid("replay-view", {
        class: "replay-view",
        dataset: { replay: this.id, seat: this.seat },
      }),
      this.controls,
      this.board.root,
    );
    app.append(this.root);
    this.onKey = (e) => this.key(e);
    document.addEventListener("keydown", this.onKey);
    this.go(this.frame);
  }

  dispose() {
    document.removeEventListener("keydown", this.onKey);
  }

  key(e) {
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (e.key === "ArrowRight") this.go(this.frame + 1);
    else if (e.key === "ArrowLeft") this.go(this.frame - 1);
    else if (e.key === "Home") this.go(0);
    else if (e.key === "End" && this.frames) this.go(this.frames - 1);
    else return;
    e.preventDefault();
  }

  async fetchFrame(k) {
    const key = `${this.seat}/${k}`;
    if (!this.cache.has(key)) {
      const seat = encodeURIComponent(String(this.seat));
      const url = `/api/replays/${encodeURIComponent(this.id)}/frames/${k}?seat=${seat}`;
      this.cache.set(
        key,
        api(url).catch((err) => {
          this.cache.delete(key);
          throw err;
        }),
      );
    }
    return this.cache.get(key);
  }

  /** Show frame k (requests in flight are not doubled: the latest wish wins). */
  async go(k) {
    if (this.frames !== null) k = Math.min(Math.max(0, k), this.frames - 1);
    else k = Math.max(0, k);
    this.wanted = k;
    if (this.loading) return;
    while (this.wanted !== null) {
      const target = this.wanted;
      this.wanted = null;
      this.loading = this.fetchFrame(target);
      try {
        const frame = await this.loading;
        this.show(frame);
      } catch (err) {
        showMessage(err.message);
        if (err.status === 404 && this.frames === null) {
          const back = h("a", { href: "#", class: "button" }, "Back to the lobby");
          this.controls.replaceChildren(back);
        }
      } finally {
        this.loading = null;
      }
    }
  }

  show(frame) {
    this.frame = frame.frame;
    const first = this.frames === null;
    this.frames = frame.frames;
    this.players = frame.players;
    replaceHash({ replay: this.id, seat: this.seat, frame: this.frame });
    if (first) this.buildControls(frame);
    this.updateControls(frame);
    this.board.render(frame);
  }

  buildControls(frame) {
    const seat = h("select", testid("replay-seat", { id: "replay-seat" }));
    const everyone = this.seat === "all";
    seat.append(h("option", { value: "all", selected: everyone }, "every hand (full information)"));
    for (let s = 0; s < frame.players; s += 1) {
      seat.append(h("option", { value: s, selected: this.seat === s }, `as seat ${s} saw it`));
    }
    seat.addEventListener("change", () => {
      this.seat = seat.value === "all" ? "all" : Number(seat.value);
      this.root.dataset.seat = String(this.seat);
      this.go(this.frame);
    });
    const button = (id, text, label, to) =>
      h(
        "button",
        testid(id, { type: "button", "aria-label": label, onclick: () => this.go(to()) }),
        text,
      );
    this.counter = h(
      "span",
      testid("replay-frame", { class: "replay__frame", "aria-live": "polite" }),
    );
    this.roundSelect = h("select", testid("replay-round", { id: "replay-round" }));
    this.roundSelect.addEventListener("change", () => {
      this.jumpToRound(Number(this.roundSelect.value));
    });
    const file = h(
      "input",
      testid("replay-upload-again", {
        type: "file",
        accept: ".json,application/json",
        id: "replay-again",
      }),
    );
    file.addEventListener("change", () => uploadRecord(file));
    this.controls.replaceChildren(
      h("label", { for: "replay-seat" }, "Seen by "),
      seat,
      button("replay-first", "|◀", "first frame", () => 0),
      button("replay-prev", "◀ Back", "previous frame", () => this.frame - 1),
      this.counter,
      button("replay-next", "Forward ▶", "next frame", () => this.frame + 1),
      button("replay-last", "▶|", "last frame", () => this.frames - 1),
      h("label", { for: "replay-round" }, " Jump to "),
      this.roundSelect,
      h("span", { class: "replay__keys muted" }, " (← → keys step)"),
      h("label", { for: "replay-again", class: "replay__again" }, " Another record: "),
      file,
    );
    this.loadRounds();
  }

  updateControls(frame) {
    this.counter.textContent = `Frame ${frame.frame} of ${frame.frames - 1}`;
    this.counter.dataset.frame = String(frame.frame);
    this.counter.dataset.frames = String(frame.frames);
    for (const id of ["replay-first", "replay-prev"]) {
      this.controls.querySelector(`[data-testid="${id}"]`).disabled = frame.frame <= 0;
    }
    for (const id of ["replay-next", "replay-last"]) {
      const atEnd = frame.frame >= frame.frames - 1;
      this.controls.querySelector(`[data-testid="${id}"]`).disabled = atEnd;
    }
    if (this.roundStarts) {
      let r = 0;
      this.roundStarts.forEach((start, i) => {
        if (start <= frame.frame) r = i;
      });
      this.roundSelect.value = String(r);
    }
  }

  /** The first frame of every round: from the server when it says, else found by bisection. */
  async loadRounds() {
    try {
      const last = await this.fetchFrame(this.frames - 1);
      const word = roundWord(last);
      const rounds = Number(last.round) + 1;
      this.roundStarts = [0];
      for (let r = 1; r < rounds; r += 1) {
        let lo = this.roundStarts[r - 1];
        let hi = this.frames - 1;
        while (lo < hi) {
          const mid = Math.floor((lo + hi) / 2);
          const f = await this.fetchFrame(mid);
          if (Number(f.round) >= r) hi = mid;
          else lo = mid + 1;
        }
        this.roundStarts.push(lo);
      }
      this.roundSelect.replaceChildren(
        ...this.roundStarts.map((start, r) =>
          h("option", { value: r }, `${word} ${r + 1} (frame ${start})`),
        ),
      );
      this.updateControls({ frame: this.frame, frames: this.frames });
    } catch (err) {
      showMessage(err.message);
    }
  }

  jumpToRound(r) {
    if (this.roundStarts && this.roundStarts[r] !== undefined) this.go(this.roundStarts[r]);
  }
}

// ---- start (after every class above is defined) ------------------------------------------

window.addEventListener("hashchange", route);
if (document.readyState === "loading") {
  window.addEventListener("DOMContentLoaded", route, { once: true });
} else {
  route();
}
