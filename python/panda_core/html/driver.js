// The driver of the notebook and file views (panda_core.html): draws a seat state, or steps
// through a replay's frames, with the page's own Board (web/static/board.js). It is bundled after
// the page's modules into one classic script (panda_core.html.bundle), where `__pandaModules`
// holds their exports. It knows no rule and no word of a game: every text is in the states.
//
// A view is an element (div.pc-html, id ID) holding its data as JSON in a script element of
// type application/json (id ID-data) and the plain-text fallback (pre.pc-html__text, hidden once
// the board is drawn).

const { Board } = __pandaModules["board.js"];
const { h, testid } = __pandaModules["util.js"];

function dataOf(id) {
  const root = document.getElementById(id);
  const data = document.getElementById(`${id}-data`);
  if (!root || !data) return null;
  return { root, data: JSON.parse(data.textContent) };
}

/** A replay's data, stored as gzip in base64 (`{"gzip": …}`): unpacked by the browser itself. */
async function unpacked(data) {
  if (data.gzip === undefined) return data;
  if (typeof DecompressionStream === "undefined") {
    throw new Error("this browser cannot unpack the replay (it has no DecompressionStream)");
  }
  const text = atob(data.gzip);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

function fallbackGone(root) {
  const text = root.querySelector(":scope > .pc-html__text");
  if (text) text.hidden = true;
}

/** One state (a game or a seat): the board, and the legal moves listed for reading. */
function show(id) {
  const found = dataOf(id);
  if (!found || found.root.dataset.drawn) return;
  const { root, data } = found;
  const note = h("p", testid("html-note", { class: "pc-html__note", hidden: true }));
  const onMove = data.moves
    ? (move) => {
        const legal = data.state.legal || [];
        const chosen = typeof move === "number" ? legal.find((m) => m.index === move) : null;
        const notation = chosen ? chosen.notation : String(move);
        note.hidden = false;
        note.textContent = `This is a picture of the seat: play it in Python, e.g. apply(${JSON.stringify(notation)}).`;
      }
    : null;
  const board = new Board(onMove);
  root.append(note, board.root);
  board.render(data.state);
  fallbackGone(root);
  root.dataset.drawn = "true";
}

/**
 * One change to a frame, in a copy of `obj` (the objects along the path copied, the rest shared):
 * [path, value] sets, [path] deletes, [path, rest, n] keeps a list's first n items, then rest.
 */
function patched(obj, patch) {
  const [path, value] = patch;
  const remove = patch.length === 1;
  const top = Array.isArray(obj) ? obj.slice() : { ...obj };
  let node = top;
  for (let i = 0; i < path.length - 1; i += 1) {
    const key = path[i];
    const child = node[key];
    node[key] = Array.isArray(child) ? child.slice() : { ...child };
    node = node[key];
  }
  const last = path[path.length - 1];
  if (remove) delete node[last];
  else if (patch.length === 3) node[last] = node[last].slice(0, patch[2]).concat(value);
  else node[last] = value;
  return top;
}

/** Every frame of a replay, from its first frame and one list of patches per later frame. */
function framesOf(data) {
  const frames = [data.first];
  for (const patches of data.patches) {
    let frame = frames[frames.length - 1];
    for (const p of patches) frame = patched(frame, p);
    frames.push(frame);
  }
  return frames;
}

/** A replay: the frames as one seat saw them, with buttons, a slider, keys and auto-play. */
function replay(id, options = {}) {
  const found = dataOf(id);
  if (!found || found.root.dataset.drawn) return;
  found.root.dataset.drawn = "loading";
  unpacked(found.data).then(
    (data) => replayOf(found.root, data, options),
    (err) => {
      found.root.dataset.drawn = "failed";
      found.root.prepend(h("p", testid("html-error", { class: "pc-html__note" }), err.message));
    },
  );
}

function replayOf(root, data, options) {
  const frames = framesOf(data);
  const last = frames.length - 1;
  const board = new Board(null);
  let at = -1;
  let timer = null;

  const button = (tid, text, label, onclick) =>
    h("button", testid(tid, { type: "button", "aria-label": label, onclick }), text);
  const first = button("replay-first", "|◀", "first frame", () => go(0));
  const prev = button("replay-prev", "◀ Back", "previous frame", () => go(at - 1));
  const next = button("replay-next", "Forward ▶", "next frame", () => go(at + 1));
  const end = button("replay-last", "▶|", "last frame", () => go(last));
  const play = button("replay-play", "Play ▶▶", "play the game frame by frame", () => toggle());
  const speed = h(
    "select",
    testid("replay-speed", { "aria-label": "auto-play speed" }),
    ...data.speeds.map(([ms, label]) =>
      h("option", { value: ms, selected: ms === data.speed }, label),
    ),
  );
  speed.addEventListener("change", () => {
    if (timer !== null) {
      stop();
      start();
    }
  });
  const slider = h(
    "input",
    testid("replay-slider", {
      type: "range",
      min: 0,
      max: last,
      value: 0,
      step: 1,
      "aria-label": "frame",
      class: "pc-html__slider",
    }),
  );
  slider.addEventListener("input", () => go(Number(slider.value)));
  const counter = h(
    "span",
    testid("replay-frame", { class: "replay__frame", "aria-live": "polite" }),
  );
  const controls = h(
    "div",
    { class: "replay__controls" },
    first,
    prev,
    counter,
    next,
    end,
    play,
    speed,
    slider,
    h("span", { class: "replay__keys muted" }, data.keys_text),
  );
  const view = h(
    "section",
    testid("replay-view", {
      class: "replay-view",
      dataset: { seat: data.seat === null ? "all" : data.seat, frames: frames.length },
    }),
    h("p", testid("replay-title", { class: "pc-html__title" }), data.title),
    controls,
    board.root,
  );

  function state(k) {
    const frame = frames[k];
    return { ...frame, events: data.events.slice(0, frame.events_n) };
  }

  function go(k) {
    const target = Math.min(Math.max(0, Number(k) || 0), last);
    if (target === at) return;
    at = target;
    board.render(state(at));
    counter.textContent = `Frame ${at} of ${last}`;
    counter.dataset.frame = String(at);
    counter.dataset.frames = String(frames.length);
    slider.value = String(at);
    first.disabled = at <= 0;
    prev.disabled = at <= 0;
    next.disabled = at >= last;
    end.disabled = at >= last;
    if (at >= last) stop();
  }

  function start() {
    if (at >= last) go(0);
    play.textContent = "Pause ❚❚";
    play.dataset.playing = "true";
    timer = setInterval(() => go(at + 1), Number(speed.value) || 800);
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "Play ▶▶";
    play.dataset.playing = "false";
  }

  function toggle() {
    if (timer === null) start();
    else stop();
  }

  function key(e) {
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (e.key === "ArrowRight") go(at + 1);
    else if (e.key === "ArrowLeft") go(at - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(last);
    else if (e.key === " " || e.key === "p") toggle();
    else return;
    e.preventDefault();
  }

  // In a file the page is the replay's own: keys work anywhere. In a notebook they work only
  // while the replay has the focus (click it), so the notebook keeps its own keys.
  if (options.documentKeys) document.addEventListener("keydown", key);
  else {
    root.tabIndex = 0;
    root.addEventListener("keydown", key);
  }
  root.append(view);
  fallbackGone(root);
  root.dataset.drawn = "true";
  go(Math.min(Math.max(0, Number(data.start) || 0), last));
  if (options.autoplay) start();
}

window.PandaCoreHtml[__pandaKey] = { show, replay };
