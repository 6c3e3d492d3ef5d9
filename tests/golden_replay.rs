//! The golden playthroughs of `tests/golden/` replayed through the Rust core alone.
//!
//! Each file is a complete seeded game written as text (the Python golden tests write and check
//! it against the engine and the oracle). Here the header is read back (game, players, seed,
//! rules or preset and mood), the game is rebuilt with the core's public API, and every move the
//! file records is played: at each step the replay checks the line the file holds against the
//! live state (round or hand headers with the hands and the draw pile, the player to move, the
//! legal moves or their count, the scores, each hand result) and that the recorded move is legal
//! and is the one the file's rule picks (step `k` plays `legal[(7k) mod len(legal)]`). The final
//! line (winner, scores, Pooped seats) must match the state the last move leaves, and nothing may
//! follow it. A corrupted copy of a file is refused (see the tests at the end).

use std::fs;
use std::path::PathBuf;

use panda_core::climb::{ClimbGame, ClimbSettings, Mood, Move, Preset};
use panda_core::head::action::{mask_ids, Action};
use panda_core::head::cards::{ids, kind, CardKind};
use panda_core::head::{HeadGame, HeadRules, LastPileScoring};

/// The file's lines with a cursor: each expected line is compared with what the replay
/// produces, and a mismatch names the file line.
struct Lines<'a> {
    name: &'a str,
    lines: Vec<&'a str>,
    next: usize,
}

impl<'a> Lines<'a> {
    fn new(name: &'a str, text: &'a str) -> Self {
        Lines {
            name,
            lines: text.lines().collect(),
            next: 0,
        }
    }

    fn peek(&self) -> Result<&'a str, String> {
        self.lines.get(self.next).copied().ok_or_else(|| {
            format!(
                "{}: ends after line {}, the game goes on",
                self.name, self.next
            )
        })
    }

    fn fail(&self, what: impl std::fmt::Display) -> String {
        format!("{}:{}: {what}", self.name, self.next + 1)
    }

    /// The next line must be `replayed`.
    fn expect(&mut self, replayed: &str) -> Result<(), String> {
        let recorded = self.peek()?;
        if recorded != replayed {
            return Err(self.fail(format!(
                "the file records\n    {recorded:?}\nthe replay gives\n    {replayed:?}"
            )));
        }
        self.next += 1;
        Ok(())
    }

    fn expect_end(&self) -> Result<(), String> {
        match self.lines.get(self.next) {
            None => Ok(()),
            Some(extra) => {
                Err(self.fail(format!("the game is over, yet the file goes on: {extra:?}")))
            }
        }
    }
}

/// The move a step line records, between `-> ` and `until` (or the end of the line).
fn recorded_move<'a>(line: &'a str, until: Option<&str>) -> Option<&'a str> {
    let (_, rest) = line.split_once(" -> ")?;
    match until {
        Some(end) => rest.split_once(end).map(|(m, _)| m),
        None => Some(rest),
    }
}

/// The index the file's rule picks at step `step` among `n` legal moves.
fn rule_pick(step: usize, n: usize) -> usize {
    (7 * step) % n
}

/// A Python list repr of numbers: `[1, 2]`.
fn py_list<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let parts: Vec<String> = items.into_iter().map(|x| x.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

fn py_option<T: std::fmt::Display>(x: Option<T>) -> String {
    x.map_or_else(|| "None".to_string(), |v| v.to_string())
}

// ---------------------------------------------------------------------------------------------
// Panda Head
// ---------------------------------------------------------------------------------------------

/// `# Panda Head, 4 players, seed 2026, rules [('first_dealer', 3), ('special_cards', False)]`
fn head_header(line: &str) -> Result<(u8, u64, HeadRules), String> {
    let rest = line
        .strip_prefix("# Panda Head, ")
        .ok_or_else(|| format!("not a Panda Head header: {line:?}"))?;
    let (players, rest) = rest
        .split_once(" players, seed ")
        .ok_or_else(|| format!("no player count and seed in {line:?}"))?;
    let (seed, rules) = rest
        .split_once(", rules ")
        .ok_or_else(|| format!("no rules in {line:?}"))?;
    let players = players
        .parse()
        .map_err(|e| format!("players {players:?}: {e}"))?;
    let seed = seed.parse().map_err(|e| format!("seed {seed:?}: {e}"))?;
    Ok((players, seed, head_rules(rules)?))
}

/// A Python repr of sorted `(name, value)` pairs, applied to the default rules.
fn head_rules(text: &str) -> Result<HeadRules, String> {
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| format!("rules must be a list: {text:?}"))?;
    let mut rules = HeadRules::default();
    if inner.is_empty() {
        return Ok(rules);
    }
    let inner = inner
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(inner);
    for pair in inner.split("), (") {
        let (key, value) = pair
            .split_once(", ")
            .ok_or_else(|| format!("not a (name, value) pair: {pair:?}"))?;
        let key = key.trim_matches('\'');
        let flag = || match value {
            "True" => Ok(true),
            "False" => Ok(false),
            _ => Err(format!("rule {key}: {value:?} is not True or False")),
        };
        let int = || {
            value
                .parse::<u32>()
                .map_err(|e| format!("rule {key}: {value:?}: {e}"))
        };
        match key {
            "last_pile_scoring" => {
                rules.last_pile_scoring =
                    LastPileScoring::parse(value.trim_matches('\'')).map_err(|e| e.0)?
            }
            "poor_panda" => rules.poor_panda = flag()?,
            "lowest_only_when_cannot_follow" => rules.lowest_only_when_cannot_follow = flag()?,
            "special_cards" => rules.special_cards = flag()?,
            "bust_threshold" => rules.bust_threshold = int()?,
            "first_dealer" => {
                rules.first_dealer = u8::try_from(int()?).map_err(|e| format!("{key}: {e}"))?
            }
            other => return Err(format!("unknown Panda Head rule {other:?}")),
        }
    }
    Ok(rules)
}

/// A card as the golden files write it: its value (`7`), `BP` or `Bamboo` (copies unmarked).
fn head_card(id: u8) -> String {
    match kind(id) {
        CardKind::Regular(v) => v.to_string(),
        CardKind::BigPanda => "BP".into(),
        CardKind::Bamboo => "Bamboo".into(),
    }
}

fn head_cards(cards: impl IntoIterator<Item = u8>) -> String {
    cards
        .into_iter()
        .map(head_card)
        .collect::<Vec<_>>()
        .join(" ")
}

fn notation(id: u8) -> String {
    Action::from_id(id)
        .expect("a legal id is an action")
        .notation()
}

fn replay_head(name: &str, text: &str) -> Result<(), String> {
    let mut lines = Lines::new(name, text);
    let (players, seed, rules) = head_header(lines.peek()?)?;
    lines.next += 1;
    let mut game = HeadGame::new(players, seed, rules).map_err(|e| e.to_string())?;
    let (mut step, mut hand) = (0usize, None);
    while !game.state().is_over() {
        let st = game.state();
        if hand != Some(st.hand_number()) {
            hand = Some(st.hand_number());
            lines.expect(&format!(
                "== hand {} dealer {} scores {}",
                st.hand_number(),
                st.dealer(),
                py_list(st.scores())
            ))?;
            for seat in 0..players {
                let held = ids(st.hand(seat));
                if !held.is_empty() {
                    lines.expect(&format!("   seat {seat}: {}", head_cards(held)))?;
                }
            }
            lines.expect(&format!(
                "   draw pile: {}",
                head_cards(st.draw_pile().iter().copied())
            ))?;
        }
        let legal: Vec<u8> = mask_ids(st.legal_actions()).collect();
        let recorded =
            recorded_move(lines.peek()?, None).ok_or_else(|| lines.fail("not a step line"))?;
        let chosen = *legal
            .iter()
            .find(|&&id| notation(id) == recorded)
            .ok_or_else(|| lines.fail(format!("the recorded move {recorded:?} is not legal")))?;
        let picked = legal[rule_pick(step, legal.len())];
        if chosen != picked {
            return Err(lines.fail(format!(
                "the recorded move {recorded:?} is not the rule's pick {}",
                notation(picked)
            )));
        }
        let names: Vec<String> = legal.iter().map(|&id| notation(id)).collect();
        lines.expect(&format!(
            "{step:4} pile {} seat {}: [{}] -> {recorded}",
            st.pile_number() + 1,
            py_option(st.current_player()),
            names.join(" ")
        ))?;
        let results_before = game.hand_results().len();
        game.apply(chosen).map_err(|e| lines.fail(e))?;
        if game.hand_results().len() > results_before {
            let r = game.hand_results().last().expect("a new hand result");
            let n = players as usize;
            let seats = |mask: u8| py_list((0..n).filter(|s| mask & (1 << s) != 0));
            lines.expect(&format!(
                "   hand result: pile 7 won by {}, deltas {}, scores {}, drowsy+ {}, pooped+ {}",
                r.last_pile_winner,
                py_list(&r.deltas[..n]),
                py_list(&r.scores[..n]),
                seats(r.new_drowsy),
                seats(r.new_pooped)
            ))?;
        }
        step += 1;
    }
    let st = game.state();
    let pooped: Vec<&str> = (0..players).map(|s| py_bool(st.is_pooped(s))).collect();
    lines.expect(&format!(
        "== over: winner {}, scores {}, pooped [{}]",
        py_option(st.winner()),
        py_list(st.scores()),
        pooped.join(", ")
    ))?;
    lines.expect_end()
}

// ---------------------------------------------------------------------------------------------
// The climbing games
// ---------------------------------------------------------------------------------------------

/// `# year (flip), 4 players, seed 2026`
fn climb_header(line: &str) -> Result<(u8, u64, ClimbSettings), String> {
    let rest = line
        .strip_prefix("# ")
        .ok_or_else(|| format!("not a header: {line:?}"))?;
    let (preset, rest) = rest
        .split_once(" (")
        .ok_or_else(|| format!("no preset in {line:?}"))?;
    let (mood, rest) = rest
        .split_once("), ")
        .ok_or_else(|| format!("no mood in {line:?}"))?;
    let (players, seed) = rest
        .split_once(" players, seed ")
        .ok_or_else(|| format!("no player count and seed in {line:?}"))?;
    let mut settings = ClimbSettings::preset(Preset::parse(preset).map_err(|e| e.0)?);
    settings.mood = Mood::parse(mood).map_err(|e| e.0)?;
    let players = players
        .parse()
        .map_err(|e| format!("players {players:?}: {e}"))?;
    let seed = seed.parse().map_err(|e| format!("seed {seed:?}: {e}"))?;
    Ok((players, seed, settings))
}

const SUITS: [&str; 5] = ["Fi", "Ea", "Wo", "Wa", "Me"];
const RANKS: [&str; 13] = [
    "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2",
];

/// A card as the golden files write it: `FiJ`, `Wo3*` when it shows its blue face, `Me!` for
/// an element card.
fn climb_token(card: u64, blue: &[u64]) -> String {
    if card >= 65 {
        return format!("{}!", SUITS[(card - 65) as usize]);
    }
    let face = if blue.contains(&card) { "*" } else { "" };
    format!(
        "{}{}{face}",
        SUITS[(card / 13) as usize],
        RANKS[(card % 13) as usize]
    )
}

fn climb_cards(cards: &[u64], blue: &[u64]) -> String {
    if cards.is_empty() {
        return "-".into();
    }
    cards
        .iter()
        .map(|&c| climb_token(c, blue))
        .collect::<Vec<_>>()
        .join(" ")
}

fn replay_climb(name: &str, text: &str) -> Result<(), String> {
    let mut lines = Lines::new(name, text);
    let (players, seed, settings) = climb_header(lines.peek()?)?;
    lines.next += 1;
    let mut game = ClimbGame::new(players, seed, settings).map_err(|e| e.to_string())?;
    let (mut step, mut round) = (0usize, None);
    loop {
        let snap = game.snapshot();
        if snap.game_over {
            break;
        }
        if round != Some(snap.round) {
            round = Some(snap.round);
            lines.expect(&format!(
                "== round {} starter {} scores {}",
                snap.round,
                snap.starter,
                py_list(&snap.scores)
            ))?;
            for (seat, held) in snap.hands.iter().enumerate() {
                lines.expect(&format!(
                    "   seat {seat}: {}",
                    climb_cards(held, &snap.blue)
                ))?;
            }
            lines.expect(&format!(
                "   draw pile: {}",
                climb_cards(&snap.draw_pile, &snap.blue)
            ))?;
        }
        let legal: Vec<Move> = game.legal_moves();
        let recorded = recorded_move(lines.peek()?, Some("   | scores"))
            .ok_or_else(|| lines.fail("not a step line"))?;
        let chosen = legal
            .iter()
            .find(|m| m.notation() == recorded)
            .ok_or_else(|| lines.fail(format!("the recorded move {recorded:?} is not legal")))?
            .clone();
        let picked = &legal[rule_pick(step, legal.len())];
        if chosen != *picked {
            return Err(lines.fail(format!(
                "the recorded move {recorded:?} is not the rule's pick {}",
                picked.notation()
            )));
        }
        lines.expect(&format!(
            "{step:4} seat {} ({} legal) -> {recorded}   | scores {}",
            py_option(snap.current_player),
            legal.len(),
            py_list(&snap.scores)
        ))?;
        game.apply(&chosen).map_err(|e| lines.fail(e))?;
        step += 1;
    }
    let snap = game.snapshot();
    if snap.game_over != game.state().is_over() || !game.state().is_over() {
        return Err(lines.fail("the snapshot and the state disagree on the game being over"));
    }
    lines.expect(&format!(
        "== over after {step} decisions: winner {}, scores {}",
        py_option(snap.winner),
        py_list(&snap.scores)
    ))?;
    lines.expect_end()
}

// ---------------------------------------------------------------------------------------------
// The files
// ---------------------------------------------------------------------------------------------

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

/// Replays one golden text; the header says which game it is.
fn replay(name: &str, text: &str) -> Result<(), String> {
    if text.starts_with("# Panda Head") {
        replay_head(name, text)
    } else {
        replay_climb(name, text)
    }
}

fn golden_files() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (
                name,
                fs::read_to_string(&p).expect("a golden file is UTF-8 text"),
            )
        })
        .collect();
    files.sort();
    files
}

fn golden(name: &str) -> String {
    fs::read_to_string(golden_dir().join(name)).expect("the golden file exists")
}

#[test]
fn every_golden_playthrough_replays_through_the_core() {
    let files = golden_files();
    let heads = files.iter().filter(|(n, _)| n.starts_with("head_")).count();
    let climbs = files
        .iter()
        .filter(|(n, _)| n.starts_with("climb_"))
        .count();
    assert!(
        heads >= 3 && climbs >= 3,
        "expected the golden files of both games: {files:?}"
    );
    let failures: Vec<String> = files
        .iter()
        .filter_map(|(name, text)| replay(name, text).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_climb_golden_files_cover_both_presets_and_moods() {
    let headers: Vec<String> = golden_files()
        .iter()
        .filter(|(n, _)| n.starts_with("climb_"))
        .map(|(_, t)| t.lines().next().unwrap_or_default().to_string())
        .collect();
    for needle in ["# year (hungry)", "# year (flip)", "# spin ("] {
        assert!(
            headers.iter().any(|h| h.starts_with(needle)),
            "{needle} missing in {headers:?}"
        );
    }
}

// ---- a corrupted copy is refused ------------------------------------------------------------

/// `text` with the first line containing `from` changed to contain `to` there.
fn corrupt(text: &str, from: &str, to: &str) -> String {
    let mut done = false;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if !done && l.contains(from) {
                done = true;
                l.replacen(from, to, 1)
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(done, "{from:?} not found");
    out.join("\n") + "\n"
}

const HEAD: &str = "head_2p_own_card_seed7.txt";
const CLIMB: &str = "climb_year_4p_flip_seed2026.txt";

#[test]
fn the_uncorrupted_copies_replay() {
    replay(HEAD, &golden(HEAD)).unwrap();
    replay(CLIMB, &golden(CLIMB)).unwrap();
}

#[test]
fn a_head_move_the_rules_forbid_is_refused() {
    // Step 1 holds [2 7 9 10 11]; 4 is not among them.
    let err = replay(
        HEAD,
        &corrupt(&golden(HEAD), "[2 7 9 10 11] -> 9", "[2 7 9 10 11] -> 4"),
    )
    .unwrap_err();
    assert!(
        err.contains(":7:") && err.contains("\"4\" is not legal"),
        "{err}"
    );
}

#[test]
fn a_head_move_other_than_the_recorded_rule_s_pick_is_refused() {
    let err = replay(
        HEAD,
        &corrupt(&golden(HEAD), "[2 7 9 10 11] -> 9", "[2 7 9 10 11] -> 7"),
    )
    .unwrap_err();
    assert!(err.contains("not the rule's pick 9"), "{err}");
}

#[test]
fn a_wrong_head_legal_list_hand_or_score_is_refused() {
    let text = golden(HEAD);
    for (from, to) in [
        ("[2 7 9 10 11] -> 9", "[2 7 9 11] -> 9"),
        ("   seat 1: 2 4 6 8 10 11 BP", "   seat 1: 2 4 6 8 10 11 11"),
        (
            "deltas [10, 0], scores [10, 0]",
            "deltas [10, 0], scores [11, 0]",
        ),
        ("== hand 1 dealer 1", "== hand 1 dealer 0"),
        ("   1 pile 1 seat 0", "   1 pile 1 seat 1"),
    ] {
        let err = replay(HEAD, &corrupt(&text, from, to)).unwrap_err();
        assert!(err.contains("the file records"), "{from:?}: {err}");
    }
}

#[test]
fn a_wrong_final_result_or_a_cut_or_padded_file_is_refused() {
    let text = golden(HEAD);
    let last = text.lines().last().unwrap().to_string();
    let wrong_end = text.replace(&last, &last.replacen("winner ", "winner 9", 1));
    assert!(replay(HEAD, &wrong_end)
        .unwrap_err()
        .contains("the file records"));
    let cut: String = text
        .lines()
        .take(text.lines().count() - 1)
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(replay(HEAD, &cut).unwrap_err().contains("ends after line"));
    let padded = format!("{text}   0 pile 1 seat 0: [1] -> 1\n");
    assert!(replay(HEAD, &padded)
        .unwrap_err()
        .contains("yet the file goes on"));
}

#[test]
fn a_wrong_climb_count_move_or_score_is_refused() {
    let text = golden(CLIMB);
    let not_legal = replay(
        CLIMB,
        &corrupt(&text, "-> single Fi3   |", "-> single Fi4   |"),
    )
    .unwrap_err();
    assert!(
        not_legal.contains("\"single Fi4\" is not legal"),
        "{not_legal}"
    );
    let not_pick = replay(
        CLIMB,
        &corrupt(&text, "-> single Fi3   |", "-> single Fi9   |"),
    )
    .unwrap_err();
    assert!(
        not_pick.contains("not the rule's pick single Fi3"),
        "{not_pick}"
    );
    for (from, to) in [
        ("(39 legal)", "(38 legal)"),
        ("   0 seat 1 (", "   0 seat 2 ("),
        ("== round 1 starter 1", "== round 1 starter 2"),
        ("   seat 0: FiJ FiQ", "   seat 0: FiJ* FiQ"),
        ("   draw pile: Wo3 Me7", "   draw pile: Me7 Wo3"),
        ("| scores [0, 0, 0, 0]", "| scores [0, 0, 0, 1]"),
    ] {
        let err = replay(CLIMB, &corrupt(&text, from, to)).unwrap_err();
        assert!(err.contains("the file records"), "{from:?}: {err}");
    }
}

#[test]
fn a_header_that_names_no_known_game_setting_is_refused() {
    let text = golden(CLIMB);
    assert!(replay(CLIMB, &text.replacen("# year (flip)", "# year (sleepy)", 1)).is_err());
    let head = golden(HEAD);
    let err = replay(
        HEAD,
        &head.replacen("last_pile_scoring", "last_pile_rule", 1),
    )
    .unwrap_err();
    assert!(err.contains("unknown Panda Head rule"), "{err}");
    // Another seed deals other hands: the first hand line differs.
    let err = replay(HEAD, &head.replacen("seed 7,", "seed 8,", 1)).unwrap_err();
    assert!(err.contains(":3:"), "{err}");
}
