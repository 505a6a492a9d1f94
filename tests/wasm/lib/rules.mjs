// The rules, from tsshogi (a library independent of the engine): whether the engine's moves are
// legal, and whether a `checkmate` answer really mates.
import { Position, Square, handPieceTypes } from "tsshogi";

export const STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/** The position of an SFEN (or "startpos"); throws on an SFEN tsshogi rejects. */
export function positionOf(sfen = STARTPOS) {
  const position = Position.newBySFEN(sfen === "startpos" ? STARTPOS : sfen);
  if (!position) {
    throw new Error(`tsshogi rejects the SFEN ${sfen}`);
  }
  return position;
}

/**
 * Plays a USI move on `position` when it is legal there; returns null when it is, else why not
 * (unreadable or illegal).
 */
export function playUsi(position, usi) {
  const move = position.createMoveByUSI(usi);
  if (!move) {
    return `${usi} cannot be read as a move in ${position.sfen}`;
  }
  if (!position.doMove(move)) {
    return `${usi} is illegal in ${position.sfen}`;
  }
  return null;
}

/** Plays every move of `moves` from `sfen`; returns the first problem, or null. */
export function checkLine(sfen, moves) {
  const position = positionOf(sfen);
  for (const [index, usi] of moves.entries()) {
    const problem = playUsi(position, usi);
    if (problem) {
      return `move ${index + 1} of ${moves.join(" ")}: ${problem}`;
    }
  }
  return null;
}

/** Every legal move of the position (tsshogi has no generator: each candidate is tried). */
export function legalMoves(position) {
  const moves = [];
  for (const to of Square.all) {
    for (const from of Square.all) {
      const move = position.createMove(from, to);
      if (!move) {
        continue;
      }
      if (position.isValidMove(move)) {
        moves.push(move);
      }
      const promoted = move.withPromote();
      if (position.isValidMove(promoted)) {
        moves.push(promoted);
      }
    }
    for (const type of handPieceTypes) {
      const drop = position.createMove(type, to);
      if (drop && position.isValidMove(drop)) {
        moves.push(drop);
      }
    }
  }
  return moves;
}

/**
 * Why the moves of a `checkmate` answer from `sfen` are not a forced mate's line, or null when
 * they are one: every move legal, the attacker checking with each of its moves, an odd number of
 * moves, and the defender without a legal move at the end.
 */
export function checkMateLine(sfen, moves) {
  const position = positionOf(sfen);
  if (moves.length % 2 === 0) {
    return `an even number of moves (${moves.length}) cannot end in the defender's mate`;
  }
  for (const [index, usi] of moves.entries()) {
    const problem = playUsi(position, usi);
    if (problem) {
      return `move ${index + 1}: ${problem}`;
    }
    if (index % 2 === 0 && !position.checked) {
      return `move ${index + 1} (${usi}) gives no check`;
    }
  }
  const escapes = legalMoves(position);
  if (escapes.length > 0) {
    return `the defender still has ${escapes.map((m) => m.usi).join(" ")} in ${position.sfen}`;
  }
  return null;
}
