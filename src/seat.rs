//! One seat's information in a recorded game, as plain data: what a bot may know.
//!
//! A bot is handed a seat, never the game: the seat object of the binding and the bot protocol's
//! decision messages are built from what is here, and everything here is computed from what the
//! seat may see ([`RecordedGame::view`], [`RecordedGame::events_seen_by`], the public round
//! results) — the legal moves only when the seat is the one to move, since another seat's legal
//! moves would show its hand.

use serde::Serialize;

use crate::contract::{GameState, RecordedGame};
use crate::error::EngineError;

/// One legal move as the protocol lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LegalEntry {
    /// Its action id (`None`: a move the fixed action space does not reach). In the climbing
    /// games an id is an abstract action (a shape, not the cards) that several moves may share;
    /// played by id, the engine picks its move among them. The notation names the move exactly.
    pub id: Option<u32>,
    pub notation: String,
}

/// Everything one seat knows at one point of a game (the seat object's `to_json()`).
#[derive(Serialize)]
pub struct SeatInfo<R: RecordedGame> {
    pub seat: u8,
    pub players: u8,
    pub to_move: Option<u8>,
    pub over: bool,
    pub winner: Option<u8>,
    pub scores: Vec<u32>,
    pub view: R::View,
    pub events: Vec<R::Event>,
    pub round_results: R::Rounds,
    pub legal: Vec<LegalEntry>,
}

/// Whether `seat` is the seat to move (only then are the legal moves its to see).
pub fn is_to_move<R: RecordedGame>(game: &R, seat: u8) -> bool {
    game.state().current_player() == Some(seat)
}

/// The legal moves of `seat`, in the engine's order, when it is to move; empty otherwise.
pub fn legal_entries<R: RecordedGame>(game: &R, seat: u8) -> Result<Vec<LegalEntry>, EngineError> {
    if !is_to_move(game, seat) {
        return Ok(Vec::new());
    }
    let mut moves = Vec::new();
    game.state().legal_moves_into(&mut moves)?;
    Ok(moves
        .iter()
        .map(|mv| LegalEntry {
            id: game.action_id(mv),
            notation: game.notation(mv),
        })
        .collect())
}

/// What `seat` knows of `game` now.
pub fn seat_info<R: RecordedGame>(game: &R, seat: u8) -> Result<SeatInfo<R>, EngineError> {
    let state = game.state();
    Ok(SeatInfo {
        seat,
        players: state.players(),
        to_move: state.current_player(),
        over: state.is_over(),
        winner: state.winner(),
        scores: state.scores().to_vec(),
        view: game.view(seat),
        events: game.events_seen_by(seat),
        round_results: game.round_results(),
        legal: legal_entries(game, seat)?,
    })
}
