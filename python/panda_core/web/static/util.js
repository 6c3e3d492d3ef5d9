// Small helpers shared by every view of the page: element building, messages, the API, the
// location hash and a few words.


export const app = document.getElementById("app");
const messageArea = document.querySelector('[data-testid="message"]');

// ---- small helpers ------------------------------------------------------------------------

/** h("div", {class: "x", dataset: {testid: "y"}, onclick: f}, child, "text", …) */
export function h(tag, attrs = {}, ...children) {
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

export function testid(id, attrs = {}) {
  return { ...attrs, dataset: { ...(attrs.dataset || {}), testid: id } };
}

export function showMessage(text, kind = "error") {
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

export function clearMessage() {
  messageArea.hidden = true;
  messageArea.replaceChildren();
}

export class ApiError extends Error {
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
export async function api(path, { method = "GET", json, body } = {}) {
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

export function hashParams() {
  return Object.fromEntries(new URLSearchParams(location.hash.replace(/^#/, "")));
}

export function hashOf(params) {
  return `#${new URLSearchParams(params).toString()}`;
}

/** Go to another view (a new history entry). */
export function navigate(params) {
  location.hash = hashOf(params);
}

/** Change the hash of the view on screen without re-opening it (stepping through a replay). */
export function replaceHash(params) {
  history.replaceState(null, "", hashOf(params));
}

/** "Seat 2 (Ada)": a seat by its number and, when the state names it, its name. */
export function seatLabel(state, seat) {
  if (seat === null || seat === undefined) return "nobody";
  const spec = state && state.seats && state.seats[seat];
  const name = spec && spec.name ? String(spec.name) : `seat ${seat}`;
  return name === `seat ${seat}` ? `Seat ${seat}` : `Seat ${seat} (${name})`;
}

/** A seat as the viewer reads it: "You (seat 0)" at a live table, else its label. */
export function seatName(state, seat) {
  if (seat === null || seat === undefined) return "nobody";
  if (seat === state.seat && state.frame === undefined) return `You (seat ${seat})`;
  return seatLabel(state, seat);
}

export function roundWord(state) {
  return state.round_word || "round";
}

export function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}
