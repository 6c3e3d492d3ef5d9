// A replay: frames fetched from the server, stepped with buttons and keys, or played by itself
// (auto-play, at a chosen speed, stopping at the last frame). Seats are named by the frames'
// `seats` (a table's names, when the server kept them).

import { Board } from "./board.js";
import { uploadRecord } from "./lobby.js";
import { app, api, h, replaceHash, roundWord, seatLabel, showMessage, testid } from "./util.js";

/** Auto-play speeds: milliseconds per frame, and their names. */
export const SPEEDS = [
  [2000, "slow (2 s a move)"],
  [1000, "normal (1 s a move)"],
  [500, "fast (0.5 s a move)"],
  [200, "very fast (0.2 s a move)"],
];

export class ReplayView {
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
    this.playing = false;
    this.timer = null;
    this.delay = 1000;
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
    this.disposed = true;
    this.stop();
    document.removeEventListener("keydown", this.onKey);
  }

  key(e) {
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (e.key === "ArrowRight") this.go(this.frame + 1);
    else if (e.key === "ArrowLeft") this.go(this.frame - 1);
    else if (e.key === "Home") this.go(0);
    else if (e.key === "End" && this.frames) this.go(this.frames - 1);
    else if ((e.key === "p" || e.key === "P") && !e.ctrlKey && !e.metaKey && !e.altKey) {
      this.toggle();
    } else return;
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
    if (this.disposed) return;
    this.frame = frame.frame;
    const first = this.frames === null;
    this.frames = frame.frames;
    this.players = frame.players;
    replaceHash({ replay: this.id, seat: this.seat, frame: this.frame });
    if (first) this.buildControls(frame);
    this.updateControls(frame);
    this.board.render(frame);
    if (this.playing) this.schedule();
  }

  // ---- auto-play ----

  /** Start or stop auto-play (the button, the P key). */
  toggle() {
    if (this.playing) this.stop();
    else this.start();
  }

  start() {
    if (this.frames === null) return;
    this.playing = true;
    if (this.frame >= this.frames - 1) this.go(0); // at the end: play it again from the deal
    else this.schedule();
    this.updatePlay();
  }

  stop() {
    this.playing = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.updatePlay();
  }

  /** The next frame after the chosen delay; at the last frame auto-play stops. */
  schedule() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.frame >= this.frames - 1) {
      this.stop();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.playing && !this.disposed) this.go(this.frame + 1);
    }, this.delay);
  }

  updatePlay() {
    if (!this.playButton) return;
    this.playButton.setAttribute("aria-pressed", String(this.playing));
    this.playButton.dataset.playing = String(this.playing);
    this.playButton.textContent = this.playing ? "❚❚ Pause" : "▶ Auto-play";
    this.playButton.setAttribute(
      "aria-label",
      this.playing ? "pause auto-play (P)" : "auto-play the game (P)",
    );
  }

  buildControls(frame) {
    const seat = h("select", testid("replay-seat", { id: "replay-seat" }));
    const everyone = this.seat === "all";
    seat.append(h("option", { value: "all", selected: everyone }, "every hand (full information)"));
    for (let s = 0; s < frame.players; s += 1) {
      const label = seatLabel(frame, s);
      const name = label[0].toLowerCase() + label.slice(1);
      seat.append(h("option", { value: s, selected: this.seat === s }, `as ${name} saw it`));
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
    this.playButton = h(
      "button",
      testid("replay-play", {
        type: "button",
        class: "replay__play",
        onclick: () => this.toggle(),
      }),
    );
    const speed = h("select", testid("replay-speed", { id: "replay-speed" }));
    for (const [ms, name] of SPEEDS) {
      speed.append(h("option", { value: ms, selected: ms === this.delay }, name));
    }
    speed.addEventListener("change", () => {
      this.delay = Number(speed.value) || 1000;
      if (this.playing) this.schedule();
    });
    this.updatePlay();
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
        class: "replay__again-input",
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
      h(
        "span",
        { class: "replay__group" },
        this.playButton,
        h("label", { for: "replay-speed", class: "sr-only" }, "auto-play speed"),
        speed,
      ),
      h("label", { for: "replay-round" }, " Jump to "),
      this.roundSelect,
      h("span", { class: "replay__keys muted" }, " (← → step, P plays)"),
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
