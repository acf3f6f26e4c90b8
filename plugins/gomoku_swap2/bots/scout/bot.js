// scout: a simple heuristic Gomoku (Swap2) bot in JavaScript for kothkit's gomoku_swap2 game.
//
// Usage: node bot.js OPPONENT_NAME SEED.  One judge line in, one line out, until EXIT.
// It takes a five when it has one, blocks the opponent's five, and otherwise plays
// next to the stones where its own and the opponent's runs are longest.  In the
// opening it picks one of the three Swap2 answers at random (seeded), so games
// against it go down every branch.
'use strict';

const readline = require('readline');

const SIZE = 15;
const DIRS = [[1, 0], [0, 1], [1, 1], [1, -1]];

// mulberry32: a small seeded generator, so the same seed plays the same game.
let state = (parseInt(process.argv[3], 10) || 0) >>> 0;
function rand() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function pick(list) {
  return list[Math.floor(rand() * list.length)];
}

function parseBoard(text) {
  const board = [];
  for (let x = 0; x < SIZE; x++) board.push(new Array(SIZE).fill(''));
  const re = /\(\((\d+),(\d+)\),"([BW])"\)/g;
  let m;
  while ((m = re.exec(text)) !== null) board[+m[1]][+m[2]] = m[3];
  return board;
}

function inside(x, y) {
  return x >= 0 && y >= 0 && x < SIZE && y < SIZE;
}

// Length of the run of `color` through empty (x, y) if `color` were played there.
function runThrough(board, x, y, color) {
  let best = 0;
  for (const [dx, dy] of DIRS) {
    let n = 1;
    for (const s of [1, -1]) {
      let cx = x + s * dx, cy = y + s * dy;
      while (inside(cx, cy) && board[cx][cy] === color) {
        n++;
        cx += s * dx;
        cy += s * dy;
      }
    }
    best = Math.max(best, n);
  }
  return best;
}

function emptyNearStones(board) {
  const cells = [];
  for (let x = 0; x < SIZE; x++) {
    for (let y = 0; y < SIZE; y++) {
      if (board[x][y] !== '') continue;
      let near = false;
      for (let dx = -1; dx <= 1 && !near; dx++) {
        for (let dy = -1; dy <= 1 && !near; dy++) {
          if ((dx || dy) && inside(x + dx, y + dy) && board[x + dx][y + dy] !== '') near = true;
        }
      }
      if (near) cells.push([x, y]);
    }
  }
  if (cells.length > 0) return cells;
  for (let x = 0; x < SIZE; x++) for (let y = 0; y < SIZE; y++) if (board[x][y] === '') cells.push([x, y]);
  return cells;
}

function bestCell(board, me) {
  const opp = me === 'B' ? 'W' : 'B';
  let best = [], bestScore = -1;
  for (const [x, y] of emptyNearStones(board)) {
    const mine = runThrough(board, x, y, me);
    const theirs = runThrough(board, x, y, opp);
    let score;
    if (mine >= 5) score = 1000;
    else if (theirs >= 5) score = 900;
    else score = mine * 10 + theirs * 9;
    if (score > bestScore) {
      bestScore = score;
      best = [[x, y]];
    } else if (score === bestScore) {
      best.push([x, y]);
    }
  }
  return pick(best);
}

const fmt = ([x, y]) => '(' + x + ',' + y + ')';

function answer(line) {
  const space = line.indexOf(' ');
  const tag = space < 0 ? line : line.slice(0, space);
  const board = parseBoard(space < 0 ? '' : line.slice(space + 1));
  if (tag === 'A') {
    const cells = [];
    while (cells.length < 3) {
      const c = [5 + Math.floor(rand() * 5), 5 + Math.floor(rand() * 5)];
      if (!cells.some(([x, y]) => x === c[0] && y === c[1])) cells.push(c);
    }
    return cells.map(fmt).join(' ');
  }
  if (tag === 'B') {
    const choice = Math.floor(rand() * 3);
    if (choice === 0) return 'B';
    const white = bestCell(board, 'W');
    if (choice === 1) return 'W ' + fmt(white);
    board[white[0]][white[1]] = 'W';
    const black = bestCell(board, 'B');
    return fmt(black) + ' ' + fmt(white);
  }
  if (tag === 'C') return rand() < 0.5 ? 'B' : 'W';
  // Game phase: black moves on even rounds.
  const me = parseInt(tag, 10) % 2 === 0 ? 'B' : 'W';
  return fmt(bestCell(board, me));
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (raw) => {
  const line = raw.trim();
  if (line === '') return;
  if (line.startsWith('EXIT')) {
    rl.close();
    process.exit(0);
  }
  // Node does not buffer stdout: on Linux a write to a pipe is synchronous, so the line is out now.
  process.stdout.write(answer(line) + '\n');
});
rl.on('close', () => process.exit(0));
