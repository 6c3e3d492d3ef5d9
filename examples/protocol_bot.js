#!/usr/bin/env node
// A bot for every panda-core game, over the bot protocol (docs/bot_protocol.md), for Node.js 20
// with no npm packages. Run it as an entrant:
//     panda-core arena -e 'heuristic,random,exec:node examples/protocol_bot.js'
// It reads the engine's messages on stdin, one JSON object per line, and writes its own on stdout.
//
// Its policy is examples/protocol_bot.py's, move for move: a SplitMix64 generator seeded with the
// game's `seed` (from `start`) picks, at each decision, one of the distinct legal action ids in
// ascending order (a move whose `id` is null is never chosen). The seed is a 64-bit integer,
// beyond what a JavaScript number holds exactly, so it is read from the message's text as a
// BigInt.
"use strict";

const readline = require("node:readline");

const MASK = (1n << 64n) - 1n;

// The next [output, state] of SplitMix64 (BigInts of 64 bits).
function splitmix64(state) {
  state = (state + 0x9e3779b97f4a7c15n) & MASK;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return [z ^ (z >> 31n), state];
}

// The policy: one of the legal ids (distinct, ascending) and the generator's next state.
function choose(legalIds, state) {
  const ids = [...new Set(legalIds)].sort((a, b) => a - b);
  const [output, next] = splitmix64(state);
  return [ids[Number(output % BigInt(ids.length))], next];
}

// The integer value of `key` at the top level of the JSON object `text`, exactly (a BigInt);
// null if it has none.
function topLevelInteger(text, key) {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const name = JSON.parse(text.slice(i, j + 1));
      i = j + 1;
      while (/\s/.test(text[i] || "")) i++;
      if (depth === 1 && text[i] === ":" && name === key) {
        i++;
        while (/\s/.test(text[i] || "")) i++;
        const digits = /^-?\d+/.exec(text.slice(i, i + 32));
        return digits ? BigInt(digits[0]) : null;
      }
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    i++;
  }
  return null;
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function main() {
  let state = 0n;
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    const message = JSON.parse(line);
    switch (message.type) {
      case "hello":
        if (message.protocol !== 1) {
          process.stderr.write("protocol_bot.js speaks protocol 1\n");
          process.exit(2);
        }
        send({ type: "hello", protocol: 1, name: "protocol_bot.js" });
        break;
      case "start":
        state = (topLevelInteger(line, "seed") ?? 0n) & MASK;
        break;
      case "decision": {
        const ids = message.legal.map((move) => move.id).filter((id) => id !== null);
        if (ids.length === 0) {
          // no move has an id (never with the shipped decks): the first, by notation
          send({ type: "move", game_id: message.game_id, notation: message.legal[0].notation });
          break;
        }
        const [action, next] = choose(ids, state);
        state = next;
        send({ type: "move", game_id: message.game_id, id: action });
        break;
      }
      case "ping":
        send({ type: "pong" });
        break;
      case "bye":
        process.exit(0);
        break;
      default: // "end": nothing to answer; the next game starts with its own seed
    }
  });
}

if (require.main === module) main();

module.exports = { splitmix64, choose, topLevelInteger };
