// Card drawing for the panda-core page: every card is an HTML element styled by style.css, with
// a small inline SVG for the pictures (no images, no fonts fetched from anywhere).
//
// A card dict comes from the server (panda_core.table.cards):
//   {id, token, label, kind, suit, face, face_label, help}
// face is null in Panda Head and "white" | "blue" | "element" in the climbing games; face_label
// is what the current face shows ("A + bamboo"); help (newer servers) is one line a person reads:
// the card's name, its faces, its symbol's effect and play condition with their rule IDs. Nothing
// here knows a rule: the element only shows what the dict says, and picks colours by kind, suit
// and face.

const SVG_NS = "http://www.w3.org/2000/svg";
const INK = "#222";

const SUITS = ["fire", "earth", "wood", "water", "metal"];

/** The drawing family of a card: "panda", "big_panda", "bamboo", "animal" or "element". */
export function cardFamily(card) {
  const kind = String(card.kind || "").toLowerCase();
  if (card.face === "element" || kind.includes("element") || kind.includes("wind")) {
    return "element";
  }
  if (card.face === "white" || card.face === "blue" || kind.includes("animal")) return "animal";
  if (kind.includes("big")) return "big_panda";
  if (kind.includes("bamboo")) return "bamboo";
  if (kind) return "panda";
  // No kind given: go by the token (Panda Head's "BP" and "B").
  const token = String(card.token);
  if (token === "BP") return "big_panda";
  if (token === "B" || /bamboo/i.test(String(card.label))) return "bamboo";
  return "panda";
}

/** The suit name of a climbing card ("fire" … "metal"), or null. */
export function cardSuit(card) {
  if (card.suit !== undefined && card.suit !== null) {
    if (typeof card.suit === "number") return SUITS[card.suit] || null;
    return String(card.suit).toLowerCase();
  }
  const first = String(card.label || "").split(/\s+/)[0].toLowerCase();
  return SUITS.includes(first) ? first : null;
}

/** The accessible name of a card as it lies now: its label, and the face it shows. */
export function cardAriaLabel(card) {
  let text = String(card.label);
  if (card.face === "blue") text += ` (blue face: ${card.face_label})`;
  else if (card.face === "element" && card.face_label && card.face_label !== card.label) {
    text += ` (${card.face_label})`;
  }
  return text;
}

function svg(tag, attrs, children = []) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.appendChild(c);
  return el;
}

// A panda face, drawn in a 40×40 box.
function pandaPicture(big) {
  const scale = big ? 1.15 : 1;
  return svg("svg", { viewBox: "0 0 40 40", class: "card__pic", "aria-hidden": "true" }, [
    svg("g", { transform: `translate(20 21) scale(${scale}) translate(-20 -21)` }, [
      svg("circle", { cx: 9, cy: 10, r: 6, fill: "#222" }),
      svg("circle", { cx: 31, cy: 10, r: 6, fill: "#222" }),
      svg("circle", { cx: 20, cy: 22, r: 15, fill: "#fff", stroke: "#222", "stroke-width": 1.5 }),
      svg("ellipse", { cx: 14, cy: 20, rx: 4, ry: 5, fill: INK, transform: "rotate(-25 14 20)" }),
      svg("ellipse", { cx: 26, cy: 20, rx: 4, ry: 5, fill: INK, transform: "rotate(25 26 20)" }),
      svg("circle", { cx: 14.5, cy: 19.5, r: 1.3, fill: "#fff" }),
      svg("circle", { cx: 25.5, cy: 19.5, r: 1.3, fill: "#fff" }),
      svg("ellipse", { cx: 20, cy: 28, rx: 3, ry: 2, fill: "#222" }),
    ]),
  ]);
}

// A bamboo stalk with two leaves.
function bambooPicture() {
  return svg("svg", { viewBox: "0 0 40 40", class: "card__pic", "aria-hidden": "true" }, [
    svg("rect", { x: 16, y: 2, width: 8, height: 36, rx: 3, fill: "#4f9d3a" }),
    svg("rect", { x: 15, y: 13, width: 10, height: 2.5, fill: "#2f6d22" }),
    svg("rect", { x: 15, y: 26, width: 10, height: 2.5, fill: "#2f6d22" }),
    svg("path", { d: "M24 13 q10 -6 14 -2 q-8 4 -14 4z", fill: "#6cbf4f" }),
    svg("path", { d: "M16 26 q-10 -6 -14 -2 q8 4 14 4z", fill: "#6cbf4f" }),
  ]);
}

// An element (wind) card: a circle with four rays.
function elementPicture() {
  return svg("svg", { viewBox: "0 0 40 40", class: "card__pic", "aria-hidden": "true" }, [
    svg("circle", { cx: 20, cy: 20, r: 9, fill: "currentColor", opacity: 0.85 }),
    svg("path", {
      d: "M20 2 v8 M20 30 v8 M2 20 h8 M30 20 h8",
      stroke: "currentColor",
      "stroke-width": 3,
      "stroke-linecap": "round",
    }),
  ]);
}

let helpCount = 0;

/** The help line of a card (the server's words), or its accessible name on older servers. */
export function cardHelp(card) {
  return typeof card.help === "string" && card.help ? card.help : cardAriaLabel(card);
}

/**
 * Gives a card element its help: when the server sent a help line, an accessible tooltip (a
 * child element, role "tooltip", described-by) that style.css shows on hover, on keyboard focus
 * and on a tap (a tap focuses the card); else the card's name as the native tooltip (title).
 */
function addHelp(el, card, focusable) {
  if (typeof card.help !== "string" || !card.help) {
    el.title = cardHelp(card); // an older server: the card's name as the native tooltip
    return;
  }
  helpCount += 1;
  const id = `card-help-${helpCount}`;
  const tip = span("card__help", card.help);
  tip.id = id;
  tip.setAttribute("role", "tooltip");
  el.append(tip);
  el.setAttribute("aria-describedby", id);
  el.dataset.help = "true";
  if (focusable) el.tabIndex = 0;
  // The tooltip opens toward the middle of the screen, so that it is never cut at an edge.
  const place = () => {
    const box = el.getBoundingClientRect();
    el.classList.toggle("card--tip-end", box.left + box.width / 2 > window.innerWidth / 2);
  };
  el.addEventListener("mouseenter", place);
  el.addEventListener("focus", place);
}

function span(cls, text) {
  const el = document.createElement("span");
  el.className = cls;
  el.textContent = text;
  return el;
}

/**
 * The element for one card. options.small draws a compact card (the table, the log);
 * options.button makes it a toggle button (the hand: clicking selects it).
 */
export function cardElement(card, options = {}) {
  const family = cardFamily(card);
  const suit = cardSuit(card);
  const el = document.createElement(options.button ? "button" : "div");
  if (options.button) {
    el.type = "button";
    el.setAttribute("aria-pressed", "false");
  } else {
    el.setAttribute("role", "img");
  }
  el.className = `card card--${family}`;
  if (suit) el.classList.add(`suit--${suit}`);
  if (card.face) el.classList.add(`face--${card.face}`);
  if (options.small) el.classList.add("card--small");
  el.dataset.testid = "card";
  el.dataset.cardId = String(card.id);
  if (card.face) el.dataset.face = card.face;
  el.setAttribute("aria-label", cardAriaLabel(card));

  if (family === "panda") {
    el.append(span("card__corner", card.token), pandaPicture(false), span("card__name", "Panda"));
  } else if (family === "big_panda") {
    el.append(span("card__corner", "BP"), pandaPicture(true), span("card__name", "Big Panda"));
  } else if (family === "bamboo") {
    el.append(span("card__corner", "B"), bambooPicture(), span("card__name", "Bamboo"));
  } else if (family === "element") {
    el.append(
      span("card__corner", suit ? suit.slice(0, 2) : "El"),
      elementPicture(),
      span("card__name", card.face_label || card.label),
    );
  } else {
    // An animal card: the current face's value big, the suit in words, the face named.
    const shown = String(card.face_label || card.token);
    const value = span("card__value", shown);
    if (shown.length > 5) value.classList.add("card__value--long");
    el.append(
      span("card__suit", suit || ""),
      value,
      span("card__facename", card.face === "blue" ? "blue" : "white"),
    );
  }
  addHelp(el, card, !options.button && options.focusable !== false);
  return el;
}

/**
 * A compact card for a line of text (a move button, the last trick): its token, and the face it
 * shows when that is not its white face, coloured by suit and face. Never focusable (it sits
 * inside buttons); its help is the native tooltip.
 */
export function cardChip(card) {
  const family = cardFamily(card);
  const suit = cardSuit(card);
  const el = document.createElement("span");
  el.className = `chip chip--${family}`;
  if (suit) el.classList.add(`suit--${suit}`);
  if (card.face) el.classList.add(`face--${card.face}`);
  el.dataset.cardId = String(card.id);
  let text = String(card.token);
  if (card.face === "blue" && card.face_label) text += ` ${card.face_label}`;
  el.textContent = text;
  el.title = cardHelp(card);
  return el;
}

/** A face-down card (another seat's hand): no id, no label beyond "hidden card". */
export function cardBack(small = true) {
  const el = document.createElement("div");
  el.className = "card card--back";
  if (small) el.classList.add("card--small");
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", "hidden card");
  return el;
}

/** A row of cards. */
export function cardRow(cards, options = {}) {
  const row = document.createElement("div");
  row.className = "cards";
  for (const c of cards) row.appendChild(cardElement(c, options));
  return row;
}
