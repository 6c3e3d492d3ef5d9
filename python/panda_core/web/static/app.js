// The panda-core page: a lobby, a live table and a replay viewer, in one page with the state in
// the location hash (a reload resumes):
//   #                                  the lobby
//   #table=ID&seat=S&token=T           a live table, seen by seat S
//   #table=ID&spectator=TOKEN          a live table, seen by a spectator
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
//     lobby-name            <input> your name         lobby-person-<S> <checkbox> a friend plays S
//     lobby-name-<S>        <input> the friend's name lobby-stand-in   <select> bot for the absent
//     lobby-hold            <input> seconds an absent person's seat is held
//     replay-file           <input type=file> a record to replay (uploaded on change)
//   invites                 after making a table for friends (data-table); invite-<S> and
//                           invite-spectator: invite-link-<S|spectator> (<input>, the address),
//                           invite-copy-<S|spectator> (<button>); invite-take-seat (<button>);
//                           invites-loopback (the note that the links name this machine)
//   table-view              a live table (data-table, data-seat: S or "spectator",
//                           data-over="true|false")
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
//     seat-status           a seat's badge (Drowsy, Pooped, shown out…: data-seat, data-word);
//                           seat-presence: a person's presence badge (away, invited, bot plays)
//     to-beat, play-describe  the play to beat; what a play on the table is
//     last-trick            the last finished trick or pile (data-winner), its plays as play
//     consequences          what the seat's own last move caused
//     places, place         (replays) the final places (data-place, data-seats)
//     move-group            a group of legal moves (data-order, data-label)
//     log-group             a group of the log (data-current, data-title)
//   game-over               the game-over summary (data-winner); replay-this-game (button),
//                           download-record (link), download-named-record (link, the record
//                           with the names), new-game (link); places (the list by place)
//   replay controls: replay-seat (<select>), replay-first, replay-prev, replay-next,
//                    replay-last (buttons), replay-frame (data-frame, data-frames),
//                    replay-round (<select>), replay-play (auto-play, aria-pressed),
//                    replay-speed (<select>)
//   replay-upload-again     (replay view) another record to replay

import { Lobby } from "./lobby.js";
import { ReplayView } from "./replay_view.js";
import { TableView } from "./table_view.js";
import { app, clearMessage, hashParams } from "./util.js";

let current = null; // the view on screen: {dispose()}

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

// ---- start ------------------------------------------

window.addEventListener("hashchange", route);
if (document.readyState === "loading") {
  window.addEventListener("DOMContentLoaded", route, { once: true });
} else {
  route();
}
