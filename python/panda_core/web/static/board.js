// The board: one position, drawn the same in a live table, a replay and the HTML views of
// panda_core.html (which bundle this module with cards.js and util.js). It draws only into the
// element it owns (`board.root`), talks to no server and knows no rule: every word, group and
// place comes from the seat state.
//
// Fields it reads beyond the basic seat state (docs/table.md), each optional so that an older
// server's state still draws: card.help, move.group {order, label}, move.rule, play.describe,
// state.seat_status, state.log, state.last_trick, state.places, state.consequences.

import { cardBack, cardChip, cardElement } from "./cards.js";
import { capital, h, roundWord, seatLabel, seatName, testid } from "./util.js";

/** Moves grouped for the list: by the server's group (its order), else by cards played. */
export function moveGroups(moves) {
  const groups = new Map();
  for (const move of moves) {
    let order;
    let label;
    const group = move.group;
    if (group && typeof group === "object" && group.label !== undefined) {
      order = Number(group.order);
      label = String(group.label);
    } else {
      const n = (move.cards || []).length;
      order = n;
      label = n === 0 ? "no cards" : n === 1 ? "1 card" : `${n} cards`;
    }
    if (!Number.isFinite(order)) order = Number.MAX_SAFE_INTEGER;
    const key = `${order}\u0000${label}`;
    if (!groups.has(key)) groups.set(key, { order, label, moves: [] });
    groups.get(key).moves.push(move);
  }
  return [...groups.values()].sort((a, b) => a.order - b.order);
}

/** The seat's line in a list of places: "1st", "2nd"… (a place number from the server). */
function placeWord(place) {
  const n = Number(place);
  if (!Number.isInteger(n) || n < 1) return String(place);
  const tens = n % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th";
  return `${n}${suffix}`;
}

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
    const oldTop = oldLog ? oldLog.scrollTop : 0;

    const playing = Boolean(this.onMove && (state.legal || []).length);
    this.root.className = [
      "board",
      this.onMove ? "board--live" : "board--replay",
      playing ? "board--playing" : "",
      state.is_over ? "board--over" : "",
      state.hands ? "board--all-hands" : "",
    ]
      .filter(Boolean)
      .join(" ");

    const main = h(
      "div",
      { class: "board__main" },
      this.header(state),
      this.seats(state),
      this.roundBanner(state),
      this.places(state),
      h(
        "div",
        { class: "board__table" },
        this.tableArea(state, fresh),
        this.lastTrick(state),
      ),
      this.consequences(state, fresh),
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
      const current = list.querySelector('[data-current="true"]');
      if (stuckToBottom || fresh) {
        // The latest lines; but never a current group cut at its top (its title explains it).
        const bottom = list.scrollHeight;
        list.scrollTop = current ? Math.min(current.offsetTop, bottom) : bottom;
      } else if (oldLog) {
        list.scrollTop = oldTop; // the person scrolled back to read: stay there
      } else if (firstNew) firstNew.scrollIntoView({ block: "nearest" });
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
    } else if (state.frame !== undefined || state.spectator) {
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

  /** The status badges of seat s ("Drowsy", "Pooped", "shown out"), with their explanations. */
  badges(state, s) {
    const all = Array.isArray(state.seat_status) && Array.isArray(state.seat_status[s])
      ? [...state.seat_status[s]]
      : [];
    // A person's presence at a shared table (here, away, invited, played by a stand-in bot).
    const presence = Array.isArray(state.presence)
      ? state.presence.find((p) => p && p.seat === s && p.kind === "person")
      : null;
    if (presence && presence.status && presence.status !== "here") {
      const word = { away: "away", invited: "invited", stand_in: "bot plays" }[presence.status];
      all.push({ word: word || String(presence.status), text: presence.text, presence: true });
    }
    if (!all.length) return null;
    return h(
      "ul",
      { class: "badges", "aria-label": "status" },
      all.map((status) => {
        const word = String(status.word ?? "");
        const text = String(status.text ?? "");
        const slug = word.toLowerCase().replace(/[^a-z0-9]+/g, "-");
        return h(
          "li",
          testid(status.presence ? "seat-presence" : "seat-status", {
            class: `badge badge--${slug}${status.presence ? " badge--presence" : ""}`,
            title: text || word,
            dataset: { seat: s, word },
          }),
          word,
          text && text !== word ? h("span", { class: "sr-only" }, `: ${text}`) : null,
        );
      }),
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
      const cards = size === 1 ? "1 card" : `${size} cards`;
      const score = state.scores ? state.scores[s] : "";
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
          h(
            "div",
            { class: "seat__name" },
            seatName(state, s),
            s === state.to_move
              ? h("span", { class: "seat__turn", "aria-label": "to move" }, " ◀")
              : "",
          ),
          h(
            "div",
            { class: "seat__facts" },
            h("span", testid(`score-${s}`, { class: "seat__score" }), `score ${score}`),
            " · ",
            h("span", testid(`hand-size-${s}`, { class: "seat__size" }), cards),
          ),
          this.badges(state, s),
          backs.childElementCount ? backs : null,
        ),
      );
    }
    return h("section", { class: "board__seats", "aria-label": "players" }, row);
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

  /**
   * Game over: the places, best first, with their scores (the server's ranking). A live table's
   * view shows them in its own game-over box (table_view.js), so the board draws them only in a
   * replay and in the HTML views.
   */
  places(state) {
    if (this.onMove) return null;
    if (!state.is_over || !Array.isArray(state.places) || !state.places.length) return null;
    const list = h("ol", { class: "places__list" });
    for (const place of state.places) {
      const seats = Array.isArray(place.seats) ? place.seats : [];
      const scores = Array.isArray(place.scores) ? place.scores : [];
      const who = seats
        .map((s, i) => `${seatName(state, s)}${scores[i] !== undefined ? `: ${scores[i]}` : ""}`)
        .join(", ");
      list.append(
        h(
          "li",
          testid("place", {
            class: `place${seats.includes(state.seat) ? " place--you" : ""}${
              Number(place.place) === 1 ? " place--first" : ""
            }`,
            dataset: { place: place.place, seats: seats.join(" ") },
            title: place.text || null,
          }),
          h("strong", { class: "place__rank" }, placeWord(place.place)),
          " ",
          h("span", { class: "place__who" }, who || place.text || ""),
        ),
      );
    }
    return h(
      "section",
      testid("places", { class: "places", "aria-label": "final places" }),
      h("h3", {}, "Final places"),
      list,
    );
  }

  drawPile(state) {
    if (state.draw_pile_size === undefined || state.draw_pile_size === null) return null;
    return h(
      "span",
      testid("draw-pile", {
        class: "drawpile",
        dataset: { size: state.draw_pile_size },
        title: "cards left in the draw pile",
      }),
      h("span", { class: "drawpile__back", "aria-hidden": "true" }),
      `Draw pile: ${state.draw_pile_size}`,
    );
  }

  /** One play on the table: who played it, what it is, its cards. */
  play(play, { last, fresh, small, chips }) {
    const describe = play.describe ? String(play.describe) : "";
    const text = String(play.text ?? "");
    return h(
      "div",
      testid("play", {
        class: `play${last ? " play--last" : ""}${last && fresh ? " fresh" : ""}`,
        dataset: { player: play.player, last: String(Boolean(last)) },
      }),
      h(
        "div",
        { class: "play__text" },
        h("span", { class: "play__who" }, text),
        describe && !text.includes(describe)
          ? h("span", testid("play-describe", { class: "play__what" }), ` ${describe}`)
          : null,
      ),
      chips
        ? h("div", { class: "chips" }, (play.cards || []).map((c) => cardChip(c)))
        : h("div", { class: "cards" }, (play.cards || []).map((c) => cardElement(c, { small }))),
    );
  }

  tableArea(state, fresh) {
    const table = state.table || {};
    const plays = table.plays || [];
    const area = h(
      "section",
      testid("table-area", { class: "table-area", "aria-label": "the table" }),
      h(
        "div",
        { class: "table-area__head" },
        h("h3", {}, capital(table.title || "table")),
        this.drawPile(state),
      ),
    );
    if (table.to_beat) {
      area.append(
        h("p", testid("to-beat", { class: "table-area__beat" }), `To beat: ${table.to_beat}`),
      );
    }
    const list = h("div", { class: "plays" });
    if (!plays.length) list.append(h("p", { class: "muted" }, "Nothing on the table yet."));
    const lastPlayer = state.last_move ? state.last_move.player : null;
    plays.forEach((play, i) => {
      const last = i === plays.length - 1 || play.player === lastPlayer;
      list.append(this.play(play, { last, fresh, small: true }));
    });
    area.append(list);
    const notes = (table.notes || []).filter(Boolean);
    if (notes.length) {
      area.append(h("p", { class: "table-area__note" }, notes.join(" · ")));
    }
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

  /** The previous finished trick or pile: its plays and who won it. */
  lastTrick(state) {
    const last = state.last_trick;
    if (!last || typeof last !== "object") return null;
    const plays = Array.isArray(last.plays) ? last.plays : [];
    return h(
      "section",
      testid("last-trick", {
        class: "last-trick",
        "aria-label": "the last finished trick",
        dataset: { winner: last.winner ?? "" },
      }),
      h("h3", {}, `Last finished: ${last.title || "trick"}`),
      last.text ? h("p", { class: "last-trick__text" }, last.text) : null,
      h(
        "div",
        { class: "last-trick__plays" },
        plays.map((p) =>
          this.play(p, { last: p.player === last.winner, fresh: false, chips: true }),
        ),
      ),
    );
  }

  /** What the seat's own last move caused (cards drawn, turned up, back blue). */
  consequences(state, fresh) {
    const list = Array.isArray(state.consequences) ? state.consequences : [];
    const lines = list.map((e) => (e && typeof e === "object" ? e.text : e)).filter(Boolean);
    if (!lines.length || state.is_over) return null;
    return h(
      "section",
      testid("consequences", {
        class: `consequences${fresh ? " fresh" : ""}`,
        "aria-label": "what your move caused",
      }),
      h("strong", {}, "Your move: "),
      lines.join(" · "),
    );
  }

  hand(state) {
    const cards = state.hand || [];
    if (state.spectator && !cards.length) return null;
    const section = h(
      "section",
      testid("hand", { class: "hand", "aria-label": "your hand" }),
      h(
        "h3",
        {},
        state.frame !== undefined && state.seat !== null && state.seat !== undefined
          ? `${seatLabel(state, state.seat)}'s hand (${cards.length})`
          : `Your hand (${cards.length})`,
        cards.some((c) => c.help)
          ? h("span", { class: "hand__hint muted" }, " · hover, focus or tap a card for its help")
          : null,
      ),
    );
    const row = h("div", { class: "cards cards--hand" });
    for (const card of cards) {
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
    if (!cards.length) row.append(h("p", { class: "muted" }, "No cards."));
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
      let why = state.is_over ? "The game is over." : "Not your turn.";
      if (state.spectator && !state.is_over) why = "You are watching: a spectator sees no hand.";
      section.append(h("p", { class: "muted" }, why));
      return section;
    }
    const selected = [...this.selected];
    const shown = selected.length
      ? legal.filter((m) => selected.every((id) => (m.cards || []).some((c) => c.id === id)))
      : legal;
    const head = h("div", { class: "moves__head" }, h("h3", {}, `Your moves (${legal.length})`));
    if (selected.length) {
      head.append(
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
      head.append(
        h(
          "p",
          { class: "moves__hint muted" },
          "Click cards in your hand to keep the moves that use them.",
        ),
      );
    }
    const notation = h(
      "input",
      testid("move-notation", {
        type: "text",
        placeholder: "or type a move (notation)",
        "aria-label": "move notation",
        autocomplete: "off",
      }),
    );
    head.append(
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
    section.append(head);
    // Many moves (the climbing games can have hundreds): in the server's groups (passes,
    // singles, pairs and sets by size, runs…), in its order; the list scrolls on its own.
    const groups = moveGroups(shown);
    const box = h("div", { class: "moves__groups" });
    for (const group of groups) {
      const list = h("div", { class: "moves__list" });
      for (const move of group.moves) list.append(this.moveButton(move));
      box.append(
        h(
          "div",
          testid("move-group", {
            class: "moves__group",
            role: "group",
            "aria-label": group.label,
            dataset: { order: group.order, label: group.label },
          }),
          h("h4", {}, `${capital(group.label)} (${group.moves.length})`),
          list,
        ),
      );
    }
    section.append(box);
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
    const label = String(move.text || move.notation);
    const title = [move.notation, move.rule].filter(Boolean).join(" — ");
    return h(
      "button",
      testid("move", {
        type: "button",
        class: "move",
        dataset: { moveIndex: move.index, notation: move.notation, cards: ids.join(" ") },
        title,
        onmouseenter: () => mark(true),
        onmouseleave: () => mark(false),
        onfocus: () => mark(true),
        onblur: () => mark(false),
        onclick: () => this.onMove(move.index),
      }),
      h("span", { class: "move__text" }, label),
      ids.length ? h("span", { class: "chips" }, (move.cards || []).map((c) => cardChip(c))) : null,
    );
  }

  /** The log, in the server's groups (a trick, a pile, a hand) when it sends them. */
  log(state) {
    const events = state.events || [];
    const since = Number(state.since_last_turn ?? events.length);
    // A replay frame's new events are those of the move that led to it.
    const replaying = state.frame !== undefined;
    let sinceWord = replaying ? "the last move" : "since your last turn";
    if (state.spectator && !replaying) sinceWord = "the latest";
    const groups = (Array.isArray(state.log) ? state.log : []).filter(
      (g) => g && Array.isArray(g.seqs) && g.seqs.length === 2,
    );
    const groupOf = (seq) =>
      groups.find((g) => Number(g.seqs[0]) <= seq && seq <= Number(g.seqs[1])) || null;
    const list = h("ol", { class: "log__list" });
    let current = null; // {group, items}
    const flush = () => {
      if (!current) return;
      const g = current.group;
      if (g) {
        list.append(
          h(
            "li",
            testid("log-group", {
              class: `log__group${g.current ? " log__group--current" : ""}`,
              dataset: { current: String(Boolean(g.current)), title: g.title ?? "" },
            }),
            h("h4", { class: "log__title" }, capital(String(g.title ?? ""))),
            h("ol", { class: "log__items" }, current.items),
          ),
        );
      } else {
        list.append(
          h(
            "li",
            { class: "log__group log__group--loose" },
            h("ol", { class: "log__items" }, current.items),
          ),
        );
      }
      current = null;
    };
    events.forEach((event, i) => {
      const seq = Number(event.seq ?? i);
      const group = groups.length ? groupOf(seq) : null;
      if (!current || current.group !== group) {
        flush();
        current = { group, items: [] };
      }
      const isNew = i >= since;
      if (i === since && since > 0) {
        current.items.push(h("li", { class: "log__since", "aria-hidden": "true" }, sinceWord));
      }
      current.items.push(
        h(
          "li",
          testid("event", {
            class: `log__event log__event--${event.type}${isNew ? " log__event--new" : ""}`,
            dataset: { seq, new: String(isNew), type: event.type },
          }),
          event.text || event.type,
        ),
      );
    });
    flush();
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
            r.text || (r.scores ? r.scores.join(", ") : ""),
          ),
        );
      });
    section.append(list);
    return section;
  }
}
