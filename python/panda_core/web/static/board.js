// The board: one position, drawn the same in a live table and a replay.

import { cardBack, cardElement } from "./cards.js";
import { capital, h, roundWord, seatName, testid } from "./util.js";

/**
 * Draws a seat state (or a replay frame) into `root`, again on every new state. Between two
 * drawings it keeps only what is not game state: which hand cards the person selected, and what
 * the last drawing showed (so that only a new move or a new round is animated). `onMove(move)`
 * plays a move: a legal-move index, or a notation typed in (null in a replay).
 */
export class Board {
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
