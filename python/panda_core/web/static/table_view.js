// A live table: the seat's websocket, its states drawn on the board, and the game-over box.
// A spectator's page (#table=ID&spectator=TOKEN) follows the table's public state and sends no
// move; the server's notices (someone left, came back, is played by the stand-in) are shown as
// they come.

import { Board } from "./board.js";
import { app, api, capital, clearMessage, h, navigate, roundWord, seatName, showMessage, testid } from "./util.js";

/** Whether the message area shows a notice (news of the table), not an error. */
function noticeShown() {
  const area = document.querySelector('[data-testid="message"]');
  return Boolean(area && !area.hidden && area.dataset.kind === "info");
}

export class TableView {
  constructor(params) {
    this.id = params.table;
    this.spectator = params.spectator || null;
    this.seat = this.spectator ? null : Number(params.seat);
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
        dataset: {
          table: this.id,
          seat: this.spectator ? "spectator" : this.seat,
          over: "false",
        },
      }),
      this.summary,
      this.board.root,
    );
    app.append(this.root);
    this.query = new URLSearchParams(
      this.spectator ? { spectator: this.spectator } : { seat: this.seat, token: this.token },
    ).toString();
    // A page left for another (or kept in the browser's back-forward cache) closes its socket,
    // so the table knows the seat is away; shown again, it connects again.
    this.away = false;
    this.onHide = () => {
      this.away = true;
      if (this.ws) this.ws.close();
    };
    this.onShow = (event) => {
      if (this.away && event.persisted && !this.closed) {
        this.away = false;
        this.connect();
      }
    };
    window.addEventListener("pagehide", this.onHide);
    window.addEventListener("pageshow", this.onShow);
    this.connect();
  }

  dispose() {
    this.closed = true;
    window.removeEventListener("pagehide", this.onHide);
    window.removeEventListener("pageshow", this.onShow);
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
        if (!noticeShown()) clearMessage(); // a notice stays until dismissed or replaced
        this.show(msg.state);
      } else if (msg.type === "error") {
        this.pending = false;
        showMessage(msg.message);
        if (this.state) this.show(this.state);
      } else if (msg.type === "notice") {
        showMessage(msg.message, "info");
      }
    });
    ws.addEventListener("close", () => {
      if (this.closed || this.away || ws !== this.ws) return;
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
    if (this.pending || this.spectator) return;
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
    else if (!this.spectator && winner === this.seat) headline = "You win!";
    let scores;
    if (Array.isArray(state.places) && state.places.length) {
      // By place, in the game's own ranking (the table's words).
      scores = h("ol", testid("places", { class: "final-scores final-scores--places" }));
      for (const place of state.places) {
        const first = place.place === 1;
        scores.append(h("li", { class: first ? "winner" : "", value: place.place }, place.text));
      }
    } else {
      scores = h("ol", { class: "final-scores", start: 0 });
      state.scores.forEach((score, s) => {
        const line = `${seatName(state, s)}: ${score}`;
        scores.append(h("li", { class: s === winner ? "winner" : "" }, line));
      });
    }
    const replayButton = h(
      "button",
      testid("replay-this-game", {
        type: "button",
        class: "primary",
        onclick: async () => {
          replayButton.disabled = true;
          try {
            // A spectator replays the finished game with every hand (its record is public now).
            const who = this.spectator
              ? { spectator: this.spectator }
              : { seat: this.seat, token: this.token };
            const made = await api(`${base}/replay`, { method: "POST", json: who });
            navigate({ replay: made.replay, seat: this.spectator ? "all" : this.seat, frame: 0 });
          } catch (err) {
            showMessage(err.message);
            replayButton.disabled = false;
          }
        },
      }),
      "Replay this game",
    );
    const named = h(
      "a",
      testid("download-named-record", {
        href: `${base}/record?${this.query}&names=true`,
        download: `panda-${state.game}-${this.id}-named.json`,
        class: "button",
      }),
      "Record with names",
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
        named,
        " ",
        h("a", testid("new-game", { href: "#", class: "button" }), "New game"),
      ),
    );
  }
}
